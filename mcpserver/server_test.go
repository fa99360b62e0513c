package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestMain lets the test binary serve as the sessions' worker, as rlm's main does.
func TestMain(m *testing.M) {
	rlm.MaybeServeWorker()
	os.Exit(m.Run())
}

var demoDir, _ = filepath.Abs("../examples/demo")

// start starts a server with opts (Home and Roots filled in when empty) and connects a
// go-sdk client to it over in-memory transports.
func start(t *testing.T, opts mcpserver.Options) (*mcpserver.Server, *mcp.ClientSession) {
	t.Helper()
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.Roots == nil {
		opts.Roots = []string{demoDir}
	}
	srv, err := mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv, connect(t, srv, nil)
}

// connect connects one more client to srv.
func connect(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// call calls a tool and decodes its structured output into out (when not nil).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if out != nil && res.StructuredContent != nil {
		remarshal(t, res.StructuredContent, out)
	}
	return res
}

// remarshal decodes v (decoded JSON) into out.
func remarshal(t *testing.T, v, out any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type openOut struct {
	Session, Lang, Workspace, Isolation string
	Files, API, Notes                   []string
}

type execOut struct {
	Session   string
	Cell      int
	Output    string
	Truncated bool
	Final     *string
	Error     *rlm.Failure
	Vars      []string
}

func open(t *testing.T, cs *mcp.ClientSession, args map[string]any) openOut {
	t.Helper()
	var o openOut
	res := call(t, cs, "sandbox_open", args, &o)
	if res.IsError || o.Session == "" {
		t.Fatalf("sandbox_open %v: %s", args, text(res))
	}
	return o
}

// TestListTools: the five tools, each with an input and an output schema; the language is an
// enum.
func TestListTools(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description %q, input schema %v, output schema %v", tool.Name, tool.Description, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
		b, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(string(b), `"lang"`) && !strings.Contains(string(b), `"enum":["go","js"]`) {
			t.Errorf("%s: lang is not an enum: %s", tool.Name, b)
		}
	}
	slices.Sort(names)
	if want := []string{"rlm_ask", "sandbox_close", "sandbox_exec", "sandbox_open", "validate"}; !slices.Equal(names, want) {
		t.Errorf("tools %v; want %v", names, want)
	}
}

// TestSandboxSession: state across calls, output, FINAL, a runaway loop stopped by the
// timeout with the session alive after it, escapes rejected with a message, and the
// results structured as the REPL's.
func TestSandboxSession(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	o := open(t, cs, map[string]any{"lang": "js", "files": []string{"app.log"}, "cell_timeout_seconds": 4})
	if o.Lang != "js" || len(o.Files) != 1 || o.Files[0] != filepath.Join(demoDir, "app.log") || o.Isolation == "" || o.Workspace == "" {
		t.Errorf("open = %+v", o)
	}
	if ok, _ := regexp.MatchString(`^s-[0-9a-f]{32}$`, o.Session); !ok {
		t.Errorf("session id %q; want s- and 128 random bits in hex, which no other client can guess", o.Session)
	}
	if !slices.ContainsFunc(o.API, func(l string) bool { return strings.HasPrefix(l, "search(ctx, regex, from?)") }) ||
		slices.ContainsFunc(o.API, func(l string) bool { return strings.HasPrefix(l, "llm_query") }) || len(o.Notes) == 0 {
		t.Errorf("api = %q, notes %d; want search, no llm_query, notes", o.API, len(o.Notes))
	}
	tests := []struct {
		code    string
		output  string // a substring
		final   string
		kind    string
		message string // a substring of the error's message
	}{
		{code: `const errs = search(context, "ERROR svc=payment"); print(errs.length, "payment errors")`, output: "13 payment errors\n"},
		{code: `print(errs[0].line_text.split(" ")[0])`, output: "2026-11-20T08:58:39Z\n"},
		{code: `while (true) { errs.length + 1 }`, kind: "rejected", message: "give the loop an exit"},
		{code: `const t0 = Date.now(); while (Date.now() - t0 < 60000) {}`, kind: "timeout"},
		{code: `require("fs").readFileSync("/etc/passwd")`, kind: "rejected", message: "require"},
		{code: `const c = (()=>0).constructor; c("return process")()`, kind: "rejected"},
		{code: `print(read_file("/etc/passwd"))`, kind: "denied", message: "outside the allowed roots"},
		{code: `FINAL(errs.length * 2)`, final: "26"},
	}
	for i, tt := range tests {
		var r execOut
		res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": tt.code}, &r)
		if r.Cell != i+1 {
			t.Errorf("%q: cell %d; want %d", tt.code, r.Cell, i+1)
		}
		switch {
		case tt.kind == "" && (res.IsError || r.Error != nil):
			t.Errorf("%q: %s", tt.code, text(res))
		case tt.kind != "" && (!res.IsError || r.Error == nil || string(r.Error.Kind) != tt.kind || !strings.Contains(r.Error.Message, tt.message)):
			t.Errorf("%q: isError %v, error %+v; want kind %s with %q", tt.code, res.IsError, r.Error, tt.kind, tt.message)
		case tt.kind != "" && !strings.Contains(text(res), "error ("+tt.kind+"): "):
			t.Errorf("%q: text %q does not state the error", tt.code, text(res))
		}
		if !strings.Contains(r.Output, tt.output) || !strings.Contains(text(res), tt.output) {
			t.Errorf("%q: output %q, text %q; want %q", tt.code, r.Output, text(res), tt.output)
		}
		if tt.final != "" && (r.Final == nil || *r.Final != tt.final || !strings.Contains(text(res), "FINAL: "+tt.final)) {
			t.Errorf("%q: final %v; want %q", tt.code, r.Final, tt.final)
		}
	}
	var r execOut
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "print(errs.length)"}, &r)
	if r.Output != "13\n" || !slices.Contains(r.Vars, "errs") {
		t.Errorf("after the timeout: output %q, vars %v; want the state kept", r.Output, r.Vars)
	}
	var c struct{ Cells int }
	if res := call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, &c); res.IsError || c.Cells != len(tests)+1 {
		t.Errorf("close: %s, %+v", text(res), c)
	}
	res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "print(1)"}, nil)
	if !res.IsError || !strings.Contains(text(res), "sandbox_open") {
		t.Errorf("exec after close: %s; want an error that says to open a session", text(res))
	}
}

// TestExecCancel: a client's cancellation stops a cell; the session lives on.
func TestExecCancel(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	o := open(t, cs, map[string]any{"lang": "js"})
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "let n = 1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_exec", Arguments: map[string]any{"session": o.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 60000) {}"}})
	if err == nil {
		t.Fatal("the call was not cancelled")
	}
	// The next call waits for the cancelled cell to stop: well before its 60 s.
	var r execOut
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "print(n + 1)"}, &r)
	if r.Output != "2\n" || time.Since(start) > 20*time.Second {
		t.Errorf("after the cancellation: %+v after %v; want 2 at once", r, time.Since(start))
	}
}

// TestGoSession: a Go session, with the model's habits: a forgotten import, an escape.
func TestGoSession(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	o := open(t, cs, map[string]any{"files": []string{filepath.Join(demoDir, "app.log")}})
	if o.Lang != "go" {
		t.Errorf("lang %q; want go by default", o.Lang)
	}
	steps := []struct{ code, output, kind string }{
		{code: `n := count(context, "ERROR svc=payment")` + "\nfmt.Println(n)", output: "13\n"},
		{code: `fmt.Println(strings.Split("a,b", ",")[0], n)`, output: "a 13\n"},
		{code: "import \"os\"\nos.ReadFile(\"/etc/passwd\")", kind: "rejected"},
	}
	for _, st := range steps {
		var r execOut
		res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": st.code}, &r)
		if st.kind == "" && (res.IsError || !strings.HasSuffix(r.Output, st.output)) {
			t.Errorf("%q: %s; want output %q", st.code, text(res), st.output)
		}
		if st.kind != "" && (r.Error == nil || string(r.Error.Kind) != st.kind) {
			t.Errorf("%q: %s; want kind %s", st.code, text(res), st.kind)
		}
	}
}

// TestFiles: a client names files only inside the server's roots, and the refusal says what to
// do without telling what exists outside them.
func TestFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	_, cs := start(t, mcpserver.Options{Roots: []string{root}})
	tests := []struct {
		args map[string]any
		want string // "" = opens
	}{
		{map[string]any{"files": []string{"in.txt"}}, ""},
		{map[string]any{"files": []string{filepath.Join(root, "in.txt")}}, ""},
		{map[string]any{"files": []string{secret}}, "is outside the directories this server may read"},
		{map[string]any{"files": []string{filepath.Join(outside, "no-such.txt")}}, "is outside the directories this server may read"},
		{map[string]any{"files": []string{"../" + filepath.Base(outside) + "/secret.txt"}}, "is outside"},
		{map[string]any{"files": []string{"link.txt"}}, "is outside"},
		{map[string]any{"files": []string{"no-such.txt"}}, "does not exist"},
		{map[string]any{"roots": []string{"/etc"}}, "is outside"},
		{map[string]any{"lang": "python"}, "[go js]"},
	}
	for _, tt := range tests {
		var o openOut
		res := call(t, cs, "sandbox_open", tt.args, &o)
		switch {
		case tt.want == "" && res.IsError:
			t.Errorf("%v: %s", tt.args, text(res))
		case tt.want != "" && (!res.IsError || !strings.Contains(text(res), tt.want)):
			t.Errorf("%v: %q; want an error with %q", tt.args, text(res), tt.want)
		}
		if o.Session != "" {
			call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
		}
	}
}

// TestSessionLimit: at most MaxSessions open; the refusal names the open sessions and what
// to do; closing one frees its slot; another connection cannot use a session.
func TestSessionLimit(t *testing.T) {
	srv, cs := start(t, mcpserver.Options{MaxSessions: 2})
	a := open(t, cs, map[string]any{"lang": "js"})
	b := open(t, cs, map[string]any{"lang": "js"})
	res := call(t, cs, "sandbox_open", map[string]any{"lang": "js"}, nil)
	if !res.IsError || !strings.Contains(text(res), "sandbox_close") || !strings.Contains(text(res), a.Session) || !strings.Contains(text(res), b.Session) {
		t.Errorf("a third session: %q; want a refusal naming %s and %s and sandbox_close", text(res), a.Session, b.Session)
	}
	other := connect(t, srv, nil)
	res = call(t, other, "sandbox_exec", map[string]any{"session": a.Session, "code": "print(1)"}, nil)
	if !res.IsError || !strings.Contains(text(res), "another client") {
		t.Errorf("another connection's exec: %q; want refused", text(res))
	}
	call(t, cs, "sandbox_close", map[string]any{"session": a.Session}, nil)
	c := open(t, other, map[string]any{"lang": "js"})
	if res := call(t, cs, "sandbox_close", map[string]any{"session": a.Session}, nil); !res.IsError {
		t.Errorf("closing twice: %q; want an error", text(res))
	}
	call(t, other, "sandbox_close", map[string]any{"session": c.Session}, nil)
}

// TestIdleTimeout: an idle session is closed and recorded as such; one in use is not.
func TestIdleTimeout(t *testing.T) {
	home := t.TempDir()
	_, cs := start(t, mcpserver.Options{Home: home, IdleTimeout: 1200 * time.Millisecond})
	o := open(t, cs, map[string]any{"lang": "js"})
	// A cell longer than the idle timeout: the session is busy, not idle.
	var r execOut
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 2000) {}; print('done')"}, &r)
	if r.Output != "done\n" {
		t.Fatalf("a long cell: %+v", r)
	}
	time.Sleep(3500 * time.Millisecond)
	res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "print(1)"}, nil)
	if !res.IsError || !strings.Contains(text(res), "idle") {
		t.Errorf("after idling: %q; want the session gone", text(res))
	}
	task := sessionTask(t, home, o.Session)
	if task.Status != audit.Aborted || !strings.Contains(task.ErrorMessage, "idle") {
		t.Errorf("the session's record: %s %q; want ABORTED, idle", task.Status, task.ErrorMessage)
	}
}

// TestDisconnect: a client's sessions close when its connection ends, freeing their workers.
func TestDisconnect(t *testing.T) {
	home := t.TempDir()
	srv, cs := start(t, mcpserver.Options{Home: home, MaxSessions: 1})
	other := connect(t, srv, nil)
	o := open(t, cs, map[string]any{"lang": "js"})
	cs.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var p openOut
		if res := call(t, other, "sandbox_open", map[string]any{"lang": "js"}, &p); !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot of a disconnected client's session is still held after 20 s")
		}
	}
	if task := sessionTask(t, home, o.Session); task.Status != audit.Aborted || !strings.Contains(task.ErrorMessage, "disconnected") {
		t.Errorf("the session's record: %s %q; want ABORTED, its client disconnected", task.Status, task.ErrorMessage)
	}
}

// TestAudit: the server's task lists every tool call; a session's task its cells, with the
// validator's decision, and how it ended.
func TestAudit(t *testing.T) {
	home := t.TempDir()
	srv, cs := start(t, mcpserver.Options{Home: home})
	o := open(t, cs, map[string]any{"lang": "js", "files": []string{"app.log"}})
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `print(count(context, "ERROR"))`}, nil)
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `eval("1")`}, nil)
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `FINAL("42")`}, nil)
	call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
	call(t, cs, "validate", map[string]any{"lang": "go", "code": "x := 1"}, nil)
	call(t, cs, "sandbox_exec", map[string]any{"session": "s-nope", "code": "print(1)"}, nil)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := audit.Open(filepath.Join(home, "audit.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tasks, err := db.Tasks(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var server, session audit.Task
	for _, tk := range tasks {
		switch {
		case strings.HasPrefix(tk.Question, "rlm mcp server"):
			server = tk
		case strings.Contains(tk.Question, o.Session):
			session = tk
		}
	}
	calls, _ := db.ToolCalls(ctx, server.ID)
	var names []string
	for _, c := range calls {
		names = append(names, c.Name)
	}
	want := []string{"sandbox_open", "sandbox_exec", "sandbox_exec", "sandbox_exec", "sandbox_close", "validate", "sandbox_exec"}
	if !slices.Equal(names, want) || calls[len(calls)-1].Error == "" || server.Status != audit.Answered {
		t.Errorf("server task %s: calls %v (last error %q); want %v, the last one failed", server.Status, names, calls[len(calls)-1].Error, want)
	}
	steps, _ := db.Steps(ctx, session.ID)
	if len(steps) != 3 || steps[0].Decision != audit.Accepted || steps[1].Decision != audit.Rejected || steps[2].Code != `FINAL("42")` {
		t.Errorf("session steps %+v; want 3, the second rejected", steps)
	}
	if session.Status != audit.Answered || session.Answer != "42" || session.Lang != "js" || len(session.CtxFiles) != 1 {
		t.Errorf("session task %+v; want ANSWERED 42", session)
	}
}

func sessionTask(t *testing.T, home, id string) audit.Task {
	t.Helper()
	for _, tk := range allTasks(t, home) {
		if strings.Contains(tk.Question, id) {
			return tk
		}
	}
	t.Fatalf("no task for session %s", id)
	return audit.Task{}
}

// TestValidate: the validator alone, findings with positions and what to do.
func TestValidate(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	tests := []struct {
		lang, code string
		ok         bool
		rule       string
	}{
		{"js", "const x = [1,2].map(v => v * 2); print(x)", true, ""},
		{"js", "eval('1')", false, "evaluator"},
		{"go", "import \"os\"\nos.Exit(1)", false, "import"},
		{"go", "for {\n}", false, ""},
	}
	for _, tt := range tests {
		var out struct {
			OK       bool
			Findings []struct{ Pos, Rule, Message string }
		}
		res := call(t, cs, "validate", map[string]any{"lang": tt.lang, "code": tt.code}, &out)
		if res.IsError || out.OK != tt.ok || tt.ok != (len(out.Findings) == 0) {
			t.Errorf("%q: %s; want ok=%v", tt.code, text(res), tt.ok)
			continue
		}
		if !tt.ok && (!strings.HasPrefix(out.Findings[0].Pos, "cell."+tt.lang+":") || out.Findings[0].Message == "" || !strings.Contains(out.Findings[0].Rule, tt.rule)) {
			t.Errorf("%q: findings %+v; want a position, rule %q and message", tt.code, out.Findings, tt.rule)
		}
	}
	if res := call(t, cs, "validate", map[string]any{"lang": "ruby", "code": "1"}, nil); !res.IsError || !strings.Contains(text(res), "[go js]") {
		t.Errorf("lang ruby: %q", text(res))
	}
}
