package rlm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
)

// testTools are a lookup with typed parameters and result, a tool with a path parameter, and a
// tool that never answers; calls counts lookup's calls that reached its Func.
func testTools(calls *atomic.Int32) []rlm.Tool {
	return []rlm.Tool{
		{
			Name: "order_total", Description: "the total of an order, in cents, and whether it shipped",
			Params: []rlm.ToolParam{{Name: "id", Type: rlm.ToolString}, {Name: "times", Type: rlm.ToolInt}},
			Result: rlm.ToolAny, MaxCalls: 2,
			Func: func(_ context.Context, a rlm.ToolArgs) (any, error) {
				calls.Add(1)
				if a.String("id") == "missing" {
					return nil, errors.New("no order missing; pass an id that list_orders returns")
				}
				return map[string]any{"id": a.String("id"), "cents": 1250 * a.Int("times"), "shipped": true}, nil
			},
		},
		{
			Name: "first_line", Description: "the first line of a file",
			Params: []rlm.ToolParam{{Name: "path", Type: rlm.ToolString, Path: true}},
			Result: rlm.ToolString,
			Func: func(_ context.Context, a rlm.ToolArgs) (any, error) {
				b, err := os.ReadFile(a.String("path"))
				if err != nil {
					return nil, err
				}
				line, _, _ := strings.Cut(string(b), "\n")
				return line, nil
			},
		},
		{
			Name: "slow", Description: "never answers in time", Result: rlm.ToolInt, Timeout: 200 * time.Millisecond,
			Func: func(ctx context.Context, _ rlm.ToolArgs) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		},
	}
}

// TestToolsInCells: a model-style cell in each language calls a tool and gets its typed
// result; a path inside the roots reaches the function resolved, one outside is refused
// (denied); a tool that does not answer times out; the third call of a tool capped at two gets
// a limit error that says what to do; the system prompt's registry line is the declaration's.
// toolCell is a cell a tool test runs: its output, or the kind and a phrase of its error.
type toolCell struct {
	code, output string
	kind         fault.Kind
	msg          string
}

// runToolCells runs cells in order in one session opened with o (Home a new temporary
// directory) and checks each one's output or error.
func runToolCells(t *testing.T, o rlm.SessionOptions, cells []toolCell) {
	t.Helper()
	ctx := context.Background()
	o.Home = t.TempDir()
	s, err := rlm.OpenSession(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range cells {
		r := s.Exec(ctx, c.code)
		switch {
		case c.kind == "" && r.Error != nil:
			t.Errorf("%s: %+v", c.code, r.Error)
		case c.kind == "" && r.Output != c.output:
			t.Errorf("%s: output %q; want %q", c.code, r.Output, c.output)
		case c.kind != "" && (r.Error == nil || r.Error.Kind != c.kind || !strings.Contains(r.Error.Message, c.msg)):
			t.Errorf("%s: error %+v; want %s, %q", c.code, r.Error, c.kind, c.msg)
		}
	}
}

func TestToolsInCells(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("first\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := map[string][]toolCell{
		"go": {
			{code: `o := order_total("A-1", 2)
m := o.(map[string]any)
fmt.Println(m["cents"].(float64)+1, m["shipped"].(bool))`, output: "2501 true\n"},
			{code: `fmt.Println(first_line("` + filepath.Join(root, "notes.txt") + `"))`, output: "first\n"},
			{code: `fmt.Println(first_line("` + outside + `"))`, kind: fault.Denied, msg: "outside the allowed roots"},
			{code: `_, err := order_total("A-2", 1)`, kind: fault.Code, msg: "order_total returns 1 value"},
			{code: `fmt.Println(slow())`, kind: fault.Timeout, msg: "did not answer within 200ms"},
			{code: `fmt.Println(order_total("missing", 1))`, kind: fault.Code, msg: "order_total: no order missing; pass an id"},
			{code: `fmt.Println(order_total("A-3", 1))`, kind: fault.Limit, msg: "cap reached: 2 calls per run; work from the results you have"},
		},
		"js": {
			{code: `const o = order_total("A-1", 2); print(o.cents + 1, o.shipped)`, output: "2501 true\n"},
			{code: `print(first_line("` + filepath.Join(root, "notes.txt") + `"))`, output: "first\n"},
			{code: `print(first_line("` + outside + `"))`, kind: fault.Denied, msg: "outside the allowed roots"},
			{code: `order_total(12, "x")`, kind: fault.Code, msg: "times must be a number, got a string"},
			{code: `slow()`, kind: fault.Timeout, msg: "did not answer within 200ms"},
			{code: `try { order_total("missing", 1) } catch (e) { print(e.message) }`, output: "order_total: no order missing; pass an id that list_orders returns\n"},
			{code: `order_total("A-3", 1)`, kind: fault.Limit, msg: "cap reached: 2 calls per run"},
		},
	}
	for lang, cs := range cells {
		t.Run(lang, func(t *testing.T) {
			var calls atomic.Int32
			runToolCells(t, rlm.SessionOptions{Lang: lang, Roots: []string{root}, Tools: testTools(&calls)}, cs)
			if n := calls.Load(); n != 2 {
				t.Errorf("order_total ran %d times", n)
			}
		})
	}
}

// TestToolClashes: a tool whose name clashes with the API, a keyword, a built-in or prelude
// name of either language, or another tool, or whose declaration is not usable, is refused at
// Options time with an OptionError for Tools that says what to do.
func TestToolClashes(t *testing.T) {
	ok := func(_ context.Context, _ rlm.ToolArgs) (any, error) { return "", nil }
	tool := func(name string) rlm.Tool {
		return rlm.Tool{Name: name, Description: "d", Result: rlm.ToolString, Func: ok}
	}
	cases := []struct {
		tools []rlm.Tool
		msg   string
	}{
		{[]rlm.Tool{tool("read_file")}, "clashes with rlm's API function read_file"},
		{[]rlm.Tool{tool("peek")}, "clashes with rlm's API function peek"},
		{[]rlm.Tool{tool("func")}, "a Go keyword"},
		{[]rlm.Tool{tool("len")}, "a predeclared Go name"},
		{[]rlm.Tool{tool("strings")}, "a Go package a cell may import"},
		{[]rlm.Tool{tool("JSON")}, "a JavaScript global"},
		{[]rlm.Tool{tool("typeof")}, "a JavaScript reserved word"},
		{[]rlm.Tool{tool("ctx1")}, "prelude"},
		{[]rlm.Tool{tool("Context")}, "prelude"},
		{[]rlm.Tool{tool("lookup"), tool("lookup")}, "declared twice"},
		{[]rlm.Tool{tool("_hidden")}, "a letter then letters"},
		{[]rlm.Tool{{Name: "nofunc", Description: "d", Result: rlm.ToolString}}, "has no Func"},
		{[]rlm.Tool{{Name: "twolines", Description: "a\nb", Result: rlm.ToolString, Func: ok}}, "one line"},
		{[]rlm.Tool{{Name: "badtype", Description: "d", Result: "map[string]int", Func: ok}}, "result type"},
		{[]rlm.Tool{{Name: "badpath", Description: "d", Result: rlm.ToolString, Func: ok, Params: []rlm.ToolParam{{Name: "p", Type: rlm.ToolInt, Path: true}}}}, "is a path"},
	}
	for _, c := range cases {
		for _, open := range []func() error{
			func() error {
				_, err := rlm.Ask(context.Background(), rlm.Options{Script: rlm.Script{Name: "s.go", Source: "FINAL(1)"}, Home: t.TempDir(), Tools: c.tools})
				return err
			},
			func() error {
				s, err := rlm.OpenSession(context.Background(), rlm.SessionOptions{Home: t.TempDir(), Tools: c.tools})
				if err == nil {
					s.Close()
				}
				return err
			},
		} {
			err := open()
			var oe *rlm.OptionError
			if !errors.As(err, &oe) || oe.Option != "Tools" || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: %v; want an OptionError for Tools saying %q", c.tools[0].Name, err, c.msg)
			}
		}
	}
}

// TestToolCallsAreJournaled: a worker that dies (here out of memory) is replaced and the
// session's cells replayed; a tool call of a replayed cell is answered from the journal, without
// running the tool again. (Both engines pass calls through the same journal, in the worker: repl's TestToolReplayedFromJournal
// kills a JS session's worker.)
func TestToolCallsAreJournaled(t *testing.T) {
	for _, c := range []struct{ lang, first, crash, after string }{
		{"go", `o := order_total("A-1", 2).(map[string]any)`, "var a [][]int\nfor i := 0; i < 100000; i++ {\n\ta = append(a, make([]int, 1<<20))\n\ta[i][0] = i\n}", `fmt.Println(o["cents"])`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			var calls atomic.Int32
			ctx := context.Background()
			s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: c.lang, Home: t.TempDir(), Tools: testTools(&calls), WorkerMemory: 256 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := s.Exec(ctx, c.first); r.Error != nil {
				t.Fatal(r.Error)
			}
			crash := s.Exec(ctx, c.crash)
			if crash.Error == nil || crash.Error.Kind != fault.Crashed {
				t.Fatalf("the crash: %+v", crash.Error)
			}
			r := s.Exec(ctx, c.after)
			if r.Error != nil || r.Output != "2500\n" {
				t.Fatalf("after the crash: %q %+v", r.Output, r.Error)
			}
			if !crash.Rebuilt && !r.Rebuilt {
				t.Error("no cell reports a rebuilt session")
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("order_total ran %d times; the replay must serve the journaled result", n)
			}
		})
	}
}

// TestToolsInARun: a run's script calls a tool in each language, through the same dispatch as
// a question run's cells; the call is recorded in the audit trail as every host call is; the
// run's cap counts per run.
func TestToolsInARun(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"s.go", `o := order_total("A-1", 2).(map[string]any)
FINAL(o["cents"])`},
		{"s.js", `FINAL(order_total("A-1", 2).cents)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			home := t.TempDir()
			res, err := rlm.Ask(context.Background(), rlm.Options{Script: rlm.Script{Name: c.name, Source: c.src}, Home: home, Tools: testTools(&calls)})
			if err != nil || res.Answer != "2500" {
				t.Fatalf("answer %q, err %v (%+v)", res.Answer, err, res)
			}
			tcs, err := openAudit(t, home).ToolCalls(context.Background(), res.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, tc := range tcs {
				found = found || tc.Name == "order_total" && strings.Contains(tc.Result, "2500")
			}
			if !found {
				t.Errorf("the audit trail's tool calls %+v; want order_total's", tcs)
			}
		})
	}
}

// TestToolPanicsAndBadResults: a tool that panics, or returns other than its declared type, or
// more data than its cap, fails the call with a message that blames the tool; the session and
// the parent live on.
func TestToolPanicsAndBadResults(t *testing.T) {
	tools := []rlm.Tool{
		{Name: "boom", Description: "panics", Result: rlm.ToolString, Func: func(context.Context, rlm.ToolArgs) (any, error) { panic("nil map") }},
		{Name: "wrong", Description: "returns an int", Result: rlm.ToolString, Func: func(context.Context, rlm.ToolArgs) (any, error) { return 7, nil }},
		{Name: "huge", Description: "returns a long list", Result: rlm.ToolStrings, MaxOutput: 100,
			Func: func(context.Context, rlm.ToolArgs) (any, error) { return make([]string, 100), nil }},
		{Name: "long", Description: "returns a long string", Result: rlm.ToolString, MaxOutput: 10,
			Func: func(context.Context, rlm.ToolArgs) (any, error) { return strings.Repeat("é", 20), nil }},
	}
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Home: t.TempDir(), Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for code, want := range map[string]string{
		`boom()`:  "boom failed in the host: nil map (a bug of the tool",
		`wrong()`: "wrong returned int, but it is declared to return string",
		`huge()`:  "huge returned 301 characters (as JSON), more than its cap of 100",
	} {
		r := s.Exec(ctx, code)
		if r.Error == nil || !strings.Contains(r.Error.Message, want) {
			t.Errorf("%s: %+v; want %q", code, r.Error, want)
		}
	}
	r := s.Exec(ctx, `print(long())`)
	if want := strings.Repeat("é", 10) + "\n[long: result cut at 10 of 20 characters; ask for less]\n"; r.Error != nil || r.Output != want {
		t.Errorf("long: %q %+v; want %q", r.Output, r.Error, want)
	}
}
