package mcpserver_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

const (
	demoQuestion = "Which user had the most payment errors, and what went wrong?"
	demoAnswer   = "13 payment errors; u0011 had the most (2). Card payments were declined by the processor (code 51)."
	fakeKey      = "sk-proj-FAKEtestKEY0123456789abcdefghijklmnopqrstuv"
)

// fakeModel is the README demo's model: a fake OpenAI-compatible server over real HTTP,
// replaying examples/demo/model.json.
func fakeModel(t *testing.T) (*llmtest.Server, llm.Config) {
	t.Helper()
	sc, err := llmtest.Load(filepath.Join(demoDir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New()
	if err := srv.Push(sc...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, llm.Config{BaseURL: srv.URL(), APIKey: fakeKey, Models: []string{"fake-root"}}
}

type askOut struct {
	Status, Answer, Trace string
	TaskID                string `json:"task_id"`
	TraceResource         string `json:"trace_resource"`
	Error                 *struct{ Kind, Message string }
	Usage                 struct {
		APICalls   int `json:"api_calls"`
		Tokens     int
		Iterations int
		SubCalls   int      `json:"sub_calls"`
		CostUSD    *float64 `json:"cost_usd"`
		Unknown    int      `json:"cost_unknown_calls"`
	}
}

// TestAsk: the README demo through rlm_ask: the answer, the usage, the task and its trace,
// progress notifications, and the trace as a resource of the client that ran it, and of no
// other.
func TestAsk(t *testing.T) {
	_, model := fakeModel(t)
	home := t.TempDir()
	srv, err := mcpserver.New(mcpserver.Options{Home: home, Roots: []string{demoDir}, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	cs := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "rlm_ask", Arguments: map[string]any{"question": demoQuestion, "files": []string{"app.log"}, "lang": "js", "mode": "loop"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var out askOut
	decode(t, res, &out)
	if res.IsError || out.Status != "answered" || out.Answer != demoAnswer {
		t.Fatalf("rlm_ask: %s", text(res))
	}
	if u := out.Usage; u.APICalls != 3 || u.Iterations != 2 || u.SubCalls != 1 || u.Tokens <= 0 || u.CostUSD != nil || u.Unknown != 3 {
		t.Errorf("usage %+v; want 3 calls, 2 iterations, 1 sub-call, a cost of null with 3 calls of unknown cost", u)
	}
	if out.TaskID == "" || filepath.Dir(out.Trace) != filepath.Join(home, "traces") || out.TraceResource != "rlm://trace/"+out.TaskID {
		t.Errorf("task %q, trace %q, resource %q", out.TaskID, out.Trace, out.TraceResource)
	}
	if !strings.HasPrefix(text(res), demoAnswer+"\n") || !strings.Contains(text(res), out.TaskID) || !strings.Contains(text(res), ", cost unknown, ") {
		t.Errorf("text %q; want the answer first, then the task and its cost", text(res))
	}
	mu.Lock()
	got := progress
	mu.Unlock()
	if len(got) < 4 || got[0].ProgressToken != "tok-1" || got[0].Message == "" || !strings.HasPrefix(got[0].Message, "starting") {
		t.Errorf("%d progress notifications, first %+v; want at least 4, from starting", len(got), got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress {
			t.Errorf("progress %v after %v: want it to grow", got[i].Progress, got[i-1].Progress)
		}
	}
	checkTrace(t, srv, cs, out.TraceResource)
	if task := taskByID(t, home, out.TaskID); task.Status != audit.Answered || task.Answer != demoAnswer {
		t.Errorf("audit: %+v", task)
	}
}

// checkTrace: the run's trace is a resource of the client that ran it, and of no other: it
// holds the question, the answer and what the run read.
func checkTrace(t *testing.T, srv *mcpserver.Server, cs *mcp.ClientSession, uri string) {
	t.Helper()
	rl, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(rl.Resources) != 1 || rl.Resources[0].URI != uri {
		t.Fatalf("resources %+v, %v; want the run's trace", rl, err)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, `"type": "metadata"`) && !strings.Contains(rr.Contents[0].Text, `"type":"metadata"`) {
		t.Fatalf("reading the trace: %v, %+v", err, rr)
	}
	if strings.Contains(rr.Contents[0].Text, fakeKey) {
		t.Error("the trace holds the API key")
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rlm://trace/20260101-000000-abcdef"}); err == nil {
		t.Error("a trace of another run was served")
	}
	other := connect(t, srv, nil)
	if rl, err := other.ListResources(context.Background(), nil); err != nil || len(rl.Resources) != 0 {
		t.Errorf("another client's resources: %+v, %v; want none", rl, err)
	}
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Error("another client read the run's trace")
	}
}

func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatalf("no structured content: %s", text(res))
	}
	remarshal(t, res.StructuredContent, out)
}

// TestAskCancel: a client's cancellation stops the run: the task is recorded as failed and
// cancelled, and its worker slot is free again at once.
func TestAskCancel(t *testing.T) {
	fake := llmtest.New(llmtest.Reply{Text: "thinking", Latency: time.Minute})
	t.Cleanup(fake.Close)
	home := t.TempDir()
	srv, err := mcpserver.New(mcpserver.Options{Home: home, Roots: []string{demoDir}, MaxSessions: 1,
		Model: llm.Config{BaseURL: fake.URL(), APIKey: fakeKey, Models: []string{"fake-root"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := connect(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rlm_ask", Arguments: map[string]any{"question": demoQuestion, "files": []string{"app.log"}, "mode": "loop"}})
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); len(fake.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model got no request in 30 s")
		}
	}
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v; want the cancellation", err)
	}
	// The run winds down on the server; its slot comes back.
	var o openOut
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res := call(t, cs, "sandbox_open", map[string]any{"lang": "js"}, &o)
		if !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot is still held 20 s after the cancellation: %s", text(res))
		}
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run stopped %v after the cancellation", took)
	}
	tasks := allTasks(t, home)
	var run audit.Task
	for _, tk := range tasks {
		if tk.Question == demoQuestion {
			run = tk
		}
	}
	if run.Status != audit.Aborted || run.ErrorKind != fault.Canceled || !strings.Contains(run.ErrorMessage, "the MCP client cancelled the request") {
		t.Errorf("the run's record: %s %s %q; want ABORTED, canceled by the client", run.Status, run.ErrorKind, run.ErrorMessage)
	}
}

// TestAskRefusals: what rlm_ask refuses, each with a message that says what to do.
func TestAskRefusals(t *testing.T) {
	_, noModel := start(t, mcpserver.Options{})
	res := call(t, noModel, "rlm_ask", map[string]any{"question": "q", "files": []string{"app.log"}}, nil)
	if !res.IsError || !strings.Contains(text(res), "RLM_MODEL") || !strings.Contains(text(res), "sandbox_open") {
		t.Errorf("no model: %q", text(res))
	}
	_, model := fakeModel(t)
	_, cs := start(t, mcpserver.Options{Model: model, MaxIterations: 10})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": " "}, "question is empty"},
		{map[string]any{"question": "q", "files": []string{"/etc/passwd"}}, "outside the directories"},
		{map[string]any{"question": "q", "limits": map[string]any{"max_iterations": 11}}, "above this server's cap of 10"},
		{map[string]any{"question": "q", "limits": map[string]any{"max_calls": 81}}, "above this server's cap of 80"},
		{map[string]any{"question": "q", "limits": map[string]any{"timeout_seconds": 1e6}}, "above this server's cap"},
		{map[string]any{"question": "q", "mode": "fast"}, "[auto direct loop]"},
	}
	for _, tt := range tests {
		res := call(t, cs, "rlm_ask", tt.args, nil)
		if !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%v: %q; want an error with %q", tt.args, text(res), tt.want)
		}
	}
}

func allTasks(t *testing.T, home string) []audit.Task {
	t.Helper()
	db, err := audit.Open(filepath.Join(home, "audit.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tasks, err := db.Tasks(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

func taskByID(t *testing.T, home, id string) audit.Task {
	t.Helper()
	for _, tk := range allTasks(t, home) {
		if tk.ID == id {
			return tk
		}
	}
	t.Fatalf("no task %s", id)
	return audit.Task{}
}
