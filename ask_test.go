package rlm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/subrun"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/trace"
)

// TestMain lets the test binary serve as the sessions' worker and as sub-runs, as an embedder's
// main does.
func TestMain(m *testing.M) {
	rlm.MaybeServeWorker()
	os.Exit(m.Run())
}

// The README demo: the model's side is a replay script, everything else is real.
const (
	demoQuestion = "Which user had the most payment errors, and what went wrong?"
	demoAnswer   = "13 payment errors; u0011 had the most (2). Card payments were declined by the processor (code 51)."
	demoLog      = "examples/demo/app.log"
	demoModel    = "examples/demo/model.json"
)

func demo(home string) rlm.Options {
	return rlm.Options{Question: demoQuestion, Files: []string{demoLog}, Lang: "js", Replay: demoModel, Home: home}
}

// TestAskRecords: a run answers, and leaves the records the CLI leaves: the task in the audit
// trail with its spent figures, its steps, calls and tools, the trace and its outcome.
func TestAskRecords(t *testing.T) {
	home := t.TempDir()
	res, err := rlm.Ask(context.Background(), demo(home))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != rlm.Answered || res.Answer != demoAnswer || res.Error != nil {
		t.Fatalf("got %s %q %v; want answered %q", res.Status, res.Answer, res.Error, demoAnswer)
	}
	if u := res.Usage; u.Calls != 3 || u.Tokens <= 0 || u.Iterations != 2 || u.SubCalls != 1 || u.Cost.Unknown != 3 {
		t.Errorf("usage = %+v; want 3 calls of unknown cost, tokens, 2 iterations, 1 sub-call", u)
	}
	if res.Isolation == "" || res.Duration <= 0 || res.Started.IsZero() {
		t.Errorf("isolation %q, duration %v, started %v: want them set", res.Isolation, res.Duration, res.Started)
	}
	task := auditTask(t, home, res.TaskID)
	if task.Status != audit.Answered || task.Answer != demoAnswer || task.Calls != 3 || task.Tokens != res.Usage.Tokens || task.Lang != "js" || task.Model != "replay" {
		t.Errorf("audit task = %+v; want ANSWERED with the run's figures", task)
	}
	db := openAudit(t, home)
	steps, _ := db.Steps(context.Background(), res.TaskID)
	calls, _ := db.Calls(context.Background(), res.TaskID)
	if len(steps) != 2 || len(calls) != 3 {
		t.Errorf("%d steps and %d calls recorded; want 2 and 3", len(steps), len(calls))
	}
	if filepath.Dir(res.Trace) != filepath.Join(home, "traces") {
		t.Errorf("trace %s is not under %s/traces", res.Trace, home)
	}
	s, err := trace.SummarizeFile(res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if s.Iterations != 2 || !s.HasFinal || s.FinalAnswer != demoAnswer || s.Status != "ANSWERED" || s.Calls != 3 {
		t.Errorf("trace summary = %+v; want 2 iterations, ANSWERED, the answer", s)
	}
	if _, err := os.Stat(filepath.Join(home, "logs")); err != nil {
		t.Errorf("no daily log: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(home, "run", "*.pid")); len(m) != 0 {
		t.Errorf("PID files left: %v", m)
	}
	if m, _ := filepath.Glob(filepath.Join(home, "work", "*")); len(m) != 0 {
		t.Errorf("an empty default workspace was left: %v", m)
	}
}

// TestAskEvents: the events come in order, each with the task and what was spent so far, and
// the kinds a progress display needs carry their data.
func TestAskEvents(t *testing.T) {
	var events []rlm.Event
	opts := demo(t.TempDir())
	opts.OnEvent = func(e rlm.Event) { events = append(events, e) }
	res, err := rlm.Ask(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []rlm.EventKind
	for i, e := range events {
		kinds = append(kinds, e.Kind)
		if e.Task != res.TaskID || e.Time.IsZero() {
			t.Errorf("event %d (%s): task %q, time %v; want %q and a time", i, e.Kind, e.Task, e.Time, res.TaskID)
		}
		if i > 0 && (e.Usage.Calls < events[i-1].Usage.Calls || e.Usage.Tokens < events[i-1].Usage.Tokens) {
			t.Errorf("event %d (%s): usage went down: %+v after %+v", i, e.Kind, e.Usage, events[i-1].Usage)
		}
	}
	want := []rlm.EventKind{rlm.EventStarted, rlm.EventModelCall, rlm.EventCell, rlm.EventIteration,
		rlm.EventModelCall, rlm.EventModelCall, rlm.EventSubCall, rlm.EventCell, rlm.EventIteration, rlm.EventFinished}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds = %v\nwant %v", kinds, want)
	}
	var steps []int
	for _, e := range events {
		steps = append(steps, e.Step)
	}
	if wantSteps := []int{0, 1, 1, 1, 2, 2, 2, 2, 2, 2}; !slices.Equal(steps, wantSteps) {
		t.Errorf("steps = %v; want %v", steps, wantSteps)
	}
	first, sub, last := events[1], events[6], events[len(events)-1]
	if first.Call == nil || first.Call.Agent != "root" || first.Call.Model != "replay" || first.Call.PromptTokens == 0 || first.Usage.Calls != 1 {
		t.Errorf("first model call = %+v, usage %+v", first.Call, first.Usage)
	}
	if c := events[2].Cell; c == nil || !strings.Contains(c.Code, "search(context") || c.Result.Output != "13 payment errors\nmost: u0011 2\n" {
		t.Errorf("first cell = %+v", c)
	}
	if sub.SubCall == nil || !strings.HasPrefix(sub.SubCall.Prompt, "In one sentence") || sub.SubCall.Answer == "" || sub.Usage.SubCalls != 1 {
		t.Errorf("sub-call = %+v, usage %+v", sub.SubCall, sub.Usage)
	}
	if !strings.HasPrefix(last.Message, "completed in ") || last.Usage.Calls != res.Usage.Calls || last.Usage.Tokens != res.Usage.Tokens ||
		last.Result == nil || last.Result.TaskID != res.TaskID || last.Result.Answer != demoAnswer {
		t.Errorf("finished: %q, usage %+v, result %+v; want completed with the result and its usage %+v", last.Message, last.Usage, last.Result, res.Usage)
	}
}

// TestAskProgress: the progress lines are the CLI's.
func TestAskProgress(t *testing.T) {
	var b lockedBuilder
	opts := demo(t.TempDir())
	opts.Progress, opts.Name = &b, "demo"
	if _, err := rlm.Ask(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "[agent:demo] starting (task ") ||
		!strings.HasPrefix(lines[1], "[agent:demo] iteration 1: 1 cell, 0 sub-calls; used so far: 1 API call, ") ||
		!strings.HasPrefix(lines[3], "[agent:demo] completed in ") || !strings.HasSuffix(lines[3], ", cost unknown") {
		t.Errorf("progress:\n%s", b.String())
	}
	b.Reset()
	opts.Quiet = true
	if _, err := rlm.Ask(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if b.String() != "" {
		t.Errorf("Quiet wrote %q", b.String())
	}
}

// TestAskCancel: cancelling the context stops a run that spins in a cell, as SIGINT does: it
// ends within seconds, the task is ABORTED with the cause (kind canceled unless the cause has
// one), the records are complete, and no worker or PID file is left.
func TestAskCancel(t *testing.T) {
	for _, tt := range []struct {
		name     string
		cause    error
		wantKind fault.Kind
		wantMsg  string
		status   audit.Status
	}{
		{"with a kind", fault.New(fault.Canceled, "the client cancelled the request"), fault.Canceled, "the client cancelled the request", audit.Aborted},
		{"plain", nil, fault.Canceled, "the run was stopped by its caller: context canceled", audit.Aborted},
		{"a limit", fault.New(fault.Limit, "the shared budget is spent"), fault.Limit, "the shared budget is spent", audit.Failed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			running := make(chan struct{}, 1)
			opts := rlm.Options{Question: "What is the magic number?", Files: []string{demoLog}, Lang: "js", Mode: controller.Loop,
				Replay: "testdata/slow.json", Home: home, OnEvent: func(e rlm.Event) {
					if e.Kind == rlm.EventModelCall {
						running <- struct{}{}
					}
				}}
			var res rlm.Result
			var err error
			done := make(chan struct{})
			go func() { defer close(done); res, err = rlm.Ask(ctx, opts) }()
			<-running
			time.Sleep(300 * time.Millisecond) // the cell spins
			start := time.Now()
			cancel(tt.cause)
			<-done
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v to stop; want at most 5 s", took)
			}
			if !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), tt.wantMsg) || res.Status != rlm.Failed ||
				res.Error == nil || res.Error.Kind != tt.wantKind || res.Error.Message != err.Error() {
				t.Fatalf("got %v, %+v; want a %s error %q", err, res.Error, tt.wantKind, tt.wantMsg)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("the error %v is not the cause", err)
			}
			task := auditTask(t, home, res.TaskID)
			if task.Status != tt.status || task.ErrorKind != tt.wantKind || !strings.Contains(task.ErrorMessage, tt.wantMsg) {
				t.Errorf("audit task = %s %s %q; want %s", task.Status, task.ErrorKind, task.ErrorMessage, tt.status)
			}
			if o, ok, err := trace.ReadOutcome(res.Trace); !ok || err != nil || o.Status != string(tt.status) || o.ErrKind != tt.wantKind {
				t.Errorf("trace outcome = %+v, %v, %v; want %s, %s", o, ok, err, tt.status, tt.wantKind)
			}
			if m, _ := filepath.Glob(filepath.Join(home, "run", "*.pid")); len(m) != 0 {
				t.Errorf("PID files left: %v", m)
			}
			if w := workers(t); len(w) > 0 {
				t.Errorf("workers left: %v", w)
			}
		})
	}
}

// TestAskSubRun: with MaxDepth 2, llm_query starts a child run in this executable (served by
// MaybeServeWorker), recorded as its own task, whose calls are charged to the parent.
func TestAskSubRun(t *testing.T) {
	home := t.TempDir()
	var subs []*rlm.SubCall
	opts := rlm.Options{Question: "Ask a child", Files: []string{demoLog}, Lang: "js", Mode: controller.Loop, MaxDepth: 2, Name: "root",
		Replay: "testdata/depth.json", Home: home, OnEvent: func(e rlm.Event) {
			if e.SubCall != nil {
				subs = append(subs, e.SubCall)
			}
		}}
	res, err := rlm.Ask(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "child said: forty-two" || res.Usage.Calls != 2 {
		t.Fatalf("got %q after %d calls; want the child's answer, its call charged here", res.Answer, res.Usage.Calls)
	}
	if u := res.Usage; u.CompletionTokens <= 0 || u.PromptTokens+u.CompletionTokens != u.Tokens || u.Cost.Unknown != 2 {
		t.Errorf("usage %+v; want the child's prompt and completion tokens charged too (they sum to Tokens), and its call's unknown cost", u)
	}
	if len(subs) != 1 || subs[0].Answer != "forty-two" || subs[0].Error != nil {
		t.Errorf("sub-call events = %+v", subs)
	}
	tasks, err := openAudit(t, home).Tasks(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].Question != subrun.Question && tasks[1].Question != subrun.Question {
		t.Errorf("tasks = %+v; want the run and its child", tasks)
	}
}

// TestAskScript: a script runs with no model; its output, its FINAL value and its failures.
func TestAskScript(t *testing.T) {
	home := t.TempDir()
	ctxFile := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(ctxFile, []byte("INFO a\nERROR b\nERROR c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src  string
		want       rlm.Status
		answer     string
		output     string
		kind       fault.Kind
		wantErrMsg string
	}{
		{"count.js", `print(count(context, "ERROR"))`, rlm.Completed, "", "2\n", "", ""},
		{"final.js", `print("counting"); FINAL(count(context, "ERROR"))`, rlm.Answered, "2", "counting\n", "", ""},
		{"final.go.txt", "n := count(context, \"ERROR\")\nFINAL(n * 10)", rlm.Answered, "20", "", "", ""},
		{"ask.js", `llm_query("hi")`, rlm.Failed, "", "", fault.Denied, "ask.js:1:10: Uncaught Error: llm_query needs a model"},
		{"bad.js", `eval("1")`, rlm.Failed, "", "", fault.Rejected, "bad.js:1:1: evaluator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang := ""
			if strings.HasSuffix(tt.name, ".txt") {
				lang = "go"
			}
			res, err := rlm.Ask(context.Background(), rlm.Options{Script: rlm.Script{Name: tt.name, Source: tt.src}, Lang: lang, Files: []string{ctxFile}, Home: home})
			if res.Status != tt.want || res.Answer != tt.answer || res.Output != tt.output {
				t.Fatalf("got %s %q %q (%v); want %s %q %q", res.Status, res.Answer, res.Output, err, tt.want, tt.answer, tt.output)
			}
			if tt.kind == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, tt.kind) || res.Error == nil || !strings.Contains(res.Error.Message, tt.wantErrMsg) {
				t.Fatalf("err = %v (%+v); want %s %q", err, res.Error, tt.kind, tt.wantErrMsg)
			}
			if q := auditTask(t, home, res.TaskID).Question; q != "--script "+tt.name {
				t.Errorf("recorded question %q", q)
			}
		})
	}
}

// TestAskOptionErrors: an Options value that cannot be used is an *OptionError naming the field,
// of kind schema, and nothing is recorded.
func TestAskOptionErrors(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "blob.bin")
	if err := os.WriteFile(bin, []byte("ab\x00cd"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	base := func() rlm.Options { return demo(home) }
	tests := []struct {
		name   string
		edit   func(*rlm.Options)
		option string
		msg    string
	}{
		{"nothing to run", func(o *rlm.Options) { o.Question = "" }, "Question", "a run needs a Question or a Script"},
		{"both", func(o *rlm.Options) { o.Script = rlm.Script{Name: "a.js", Source: "1"} }, "Question", "not both"},
		{"language", func(o *rlm.Options) { o.Lang = "py" }, "Lang", "py"},
		{"script language", func(o *rlm.Options) { o.Question, o.Lang, o.Script = "", "", rlm.Script{Name: "a.txt", Source: "1"} }, "Lang", "a.txt: cannot tell the language"},
		{"missing file", func(o *rlm.Options) { o.Files = []string{"nope.txt"} }, "Files", "nope.txt"},
		{"binary file", func(o *rlm.Options) { o.Files = []string{bin} }, "Files", "is a binary file (a NUL byte at offset 2)"},
		{"workspace", func(o *rlm.Options) { o.Workspace = filepath.Join(dir, "none") }, "Workspace", "create the directory first"},
		{"workspace file", func(o *rlm.Options) { o.Workspace = bin }, "Workspace", "is not a directory"},
		{"no model", func(o *rlm.Options) { o.Replay = "" }, "Model", "a question needs a model"},
		{"replay", func(o *rlm.Options) { o.Replay = filepath.Join(dir, "none.json") }, "Replay", "none.json"},
		{"name", func(o *rlm.Options) { o.Name = "a,b" }, "Name", `"a,b": want a name without commas`},
		{"depth", func(o *rlm.Options) { o.MaxDepth = 3; o.DepthCap = 2 }, "MaxDepth", "MaxDepth 3: want 1..2"},
		{"model setting", func(o *rlm.Options) {
			o.Replay, o.Model = "", llm.Config{BaseURL: "http://127.0.0.1:9/v1", Models: []string{"m"}, Catalog: map[string]llm.ModelConfig{"m": {Endpoint: "nowhere"}}}
		}, "Model", "nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			tt.edit(&o)
			res, err := rlm.Ask(context.Background(), o)
			var oe *rlm.OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option || !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v; want an OptionError for %s with %q", err, tt.option, tt.msg)
			}
			if tt.option == "Model" && tt.name == "model setting" {
				return // found when the client is built: the run is recorded, FAILED
			}
			if res.TaskID != "" {
				t.Errorf("a task was started: %+v", res)
			}
			if _, err := os.Stat(filepath.Join(home, "audit.db")); err == nil {
				t.Errorf("an audit trail was written")
			}
		})
	}
}

// TestAskGuards: the guards refuse a run before it is recorded.
func TestAskGuards(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "EMERGENCY_STOP"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := rlm.Ask(context.Background(), demo(home))
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "EMERGENCY_STOP exists") {
		t.Fatalf("got %v; want the emergency stop", err)
	}
	os.Remove(filepath.Join(home, "EMERGENCY_STOP"))
	o := demo(home)
	o.Chain, o.Name = []string{"planner", "rlm", "coder"}, "rlm"
	if _, err := rlm.Ask(context.Background(), o); !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "agent loop detected: rlm → coder → rlm") {
		t.Fatalf("got %v; want the loop", err)
	}
	o = demo(home)
	o.MinFreeMB = 1 << 30
	if _, err := rlm.Ask(context.Background(), o); !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "MB free in") {
		t.Fatalf("got %v; want the disk space guard", err)
	}
	// Another process's live run holds the home.
	if err := os.MkdirAll(filepath.Join(home, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "run", "other.pid"), []byte(strconv.Itoa(os.Getppid())), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rlm.Ask(context.Background(), demo(home)); !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "another model run is going") {
		t.Fatalf("got %v; want the model-run guard", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rlm.Ask(ctx, demo(t.TempDir())); !errors.Is(err, context.Canceled) || !errors.Is(err, fault.Canceled) {
		t.Fatalf("got %v; want a run cancelled before it started refused", err)
	}
	if _, err := os.Stat(filepath.Join(home, "audit.db")); err == nil {
		t.Errorf("a refused run was recorded")
	}
}

// TestAskSameHome: runs of one process share a home (a batch's tasks).
func TestAskSameHome(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	answers := make([]string, 3)
	for i := range errs {
		wg.Go(func() {
			res, err := rlm.Ask(context.Background(), demo(home))
			answers[i], errs[i] = res.Answer, err
		})
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || answers[i] != demoAnswer {
			t.Errorf("run %d: %q, %v", i, answers[i], errs[i])
		}
	}
	tasks, _ := openAudit(t, home).Tasks(context.Background(), 10)
	if len(tasks) != 3 {
		t.Errorf("%d tasks recorded; want 3", len(tasks))
	}
}

// TestBudget: a Budget shared by runs bounds them together: a run is refused once it is spent,
// and a run starts with its own budgets lowered to what is left.
func TestBudget(t *testing.T) {
	b := rlm.NewBudget(llm.Spent{Calls: 3})
	o := demo(t.TempDir())
	o.Budget = b
	if _, err := rlm.Ask(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if sp := b.Spent(); sp.Calls != 3 || sp.Tokens == 0 || sp.Cost.Unknown != 3 {
		t.Errorf("spent %+v; want the run's 3 calls", sp)
	}
	res, err := rlm.Ask(context.Background(), o)
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "shared budget spent: 3 of 3 API calls") || res.TaskID != "" {
		t.Fatalf("got %v (task %q); want a refusal before the run", err, res.TaskID)
	}
	// Two calls left: the run's third call is refused by its own, lowered, budget.
	b = rlm.NewBudget(llm.Spent{Calls: 4})
	b.Charge(llm.Spent{Calls: 2})
	o.Budget = b
	res, err = rlm.Ask(context.Background(), o)
	if !errors.Is(err, fault.Limit) || res.Usage.Calls != 2 || b.Spent().Calls != 4 {
		t.Fatalf("got %v after %d calls, budget %+v; want a budget limit after 2 calls", err, res.Usage.Calls, b.Spent())
	}
	if b.Check() == nil {
		t.Errorf("Check of a spent budget is nil")
	}
	// A zero field caps nothing.
	if err := rlm.NewBudget(llm.Spent{}).Check(); err != nil {
		t.Errorf("an empty budget refuses: %v", err)
	}
}

func openAudit(t *testing.T, home string) *audit.DB {
	t.Helper()
	db, err := audit.Open(filepath.Join(home, "audit.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func auditTask(t *testing.T, home, id string) audit.Task {
	t.Helper()
	task, err := openAudit(t, home).Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// workers lists the live worker processes this process started.
func workers(t *testing.T) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) || f[0] == "Z" {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if strings.Contains(string(cmd), "__worker") || strings.Contains(string(cmd), subrun.Arg) {
			out = append(out, strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuilder) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

// TestAskCachesTheIndex: a run indexes its input once and keeps the index under the home, so
// that the next run over the unchanged file need not read it whole (issue 14).
func TestAskCachesTheIndex(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	data, err := os.ReadFile(demoLog)
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "app.log")
	if err := os.WriteFile(input, data, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3100 * time.Millisecond) // files changed in the last 3 s are not cached on disk
	opts := demo(home)
	opts.Files = []string{input}
	if _, err := rlm.Ask(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(home, "index", "*"))
	if len(got) != 1 {
		t.Fatalf("index cache holds %v; want one index for the one input", got)
	}
}
