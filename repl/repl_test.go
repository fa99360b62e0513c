package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/worker"
)

// The test binary doubles as the worker: with RLM_REPL_TEST_WORKER set it serves the protocol
// with a fake engine whose one-line commands exercise the session machinery; as "confined", or
// started with the default WorkerCommand's argument __worker, with the real ones.
func TestMain(m *testing.M) {
	if os.Getenv("RLM_REPL_TEST_WORKER") == "confined" || (len(os.Args) == 2 && os.Args[1] == "__worker") {
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv("RLM_REPL_TEST_WORKER"); v != "" {
		err := worker.ServeWith(os.Stdin, os.Stdout, func(cfg worker.Config, host engine.Host) (worker.Runner, worker.Isolation, error) {
			if real, ok := strings.CutPrefix(v, "real:"); ok {
				r, err := worker.NewRunner(cfg, host)
				return r, worker.Isolation{Verdict: real}, err
			}
			return &fakeRunner{host: host, vars: map[string]string{}}, worker.Isolation{Verdict: v}, nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type fakeRunner struct {
	host engine.Host
	vars map[string]string
}

func (f *fakeRunner) Locals() []engine.Var {
	var out []engine.Var
	for _, k := range f.Vars() {
		out = append(out, engine.Var{Name: k, Type: "string", Repr: strconv.Quote(f.vars[k]), Len: len(f.vars[k])})
	}
	return out
}

func (f *fakeRunner) Vars() []string {
	var out []string
	for k := range f.vars {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Run understands: set K V · print K · ask PROMPT · askdeaf PROMPT · fail · final V · crash · bg ·
// hang · spin · sleep MS.
func (f *fakeRunner) Run(ctx context.Context, src []byte, _ bool) engine.Result {
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(src)), "\n") {
		w := strings.Fields(line)
		switch w[0] {
		case "set":
			f.vars[w[1]] = w[2]
		case "print":
			out.WriteString(f.vars[w[1]] + "\n")
		case "ask":
			v, err := f.host.Call(ctx, "llm_query", []any{w[1]})
			if err != nil {
				return engine.Result{Stdout: out.String(), Err: err}
			}
			f.vars["answer"] = v.(string)
			out.WriteString(v.(string) + "\n")
		case "fail":
			return engine.Result{Stdout: out.String(), Err: fault.New(fault.Code, "boom")}
		case "final":
			return engine.Result{Stdout: out.String(), Final: &engine.Final{Value: w[1]}}
		case "crash": // a Go fatal error no recover can catch
			go func() { panic("boom in a goroutine") }()
			time.Sleep(time.Second)
		case "hang": // a native call that ignores the soft deadline
			select {}
		case "sleep": // sleep MS: a slow cell (in its replay too)
			ms, _ := strconv.Atoi(w[1])
			time.Sleep(time.Duration(ms) * time.Millisecond)
		case "askdeaf": // a host call that ignores the cell's deadline, as a stuck native call would
			if _, err := f.host.Call(context.Background(), "llm_query", []any{w[1]}); err != nil {
				return engine.Result{Stdout: out.String(), Err: err}
			}
		case "spin":
			<-ctx.Done()
			return engine.Result{Err: fault.Wrap(fault.Timeout, ctx.Err(), "cell interrupted")}
		}
	}
	return engine.Result{Stdout: out.String()}
}

// countingHost answers llm_query with "echo:<prompt>" and counts the calls.
type countingHost struct{ n atomic.Int32 }

func (h *countingHost) Call(_ context.Context, name string, args []any) (any, error) {
	h.n.Add(1)
	if name != "llm_query" {
		return nil, fmt.Errorf("unknown call %s", name)
	}
	return "echo:" + args[0].(string), nil
}

func testOptions(verdict string) Options {
	return Options{
		Unconfined:  true,
		Worker:      WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_REPL_TEST_WORKER=" + verdict}},
		CellTimeout: 2 * time.Second, KillGrace: 50 * time.Millisecond, MaxBackoff: 10 * time.Millisecond,
	}
}

func open(t testing.TB, o Options) *Session {
	t.Helper()
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t testing.TB, s *Session, code string) Result {
	t.Helper()
	return s.Exec(context.Background(), code)
}

func TestStatePersistsAndSurvivesAFailingCell(t *testing.T) {
	s := open(t, testOptions("full"))
	if r := run(t, s, "set x 42"); r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := run(t, s, "set y 1\nfail"); !errors.Is(r.Err, fault.Code) {
		t.Fatalf("want a code error, got %v", r.Err)
	}
	if r := run(t, s, "print x"); r.Stdout != "42\n" || r.Err != nil {
		t.Fatalf("after a failing cell: stdout %q err %v, want 42", r.Stdout, r.Err)
	}
	if r := run(t, s, "final done"); r.Final == nil || *r.Final != "done" {
		t.Fatalf("final: %v", r.Final)
	}
}

func TestCrashRebuildsStateWithoutRepeatingHostCalls(t *testing.T) {
	o := testOptions("full")
	host := &countingHost{}
	o.Host = host
	s := open(t, o)
	run(t, s, "set x 7")
	if r := run(t, s, "ask hello"); r.Stdout != "echo:hello\n" {
		t.Fatalf("ask: %q %v", r.Stdout, r.Err)
	}
	r := run(t, s, "crash")
	if !errors.Is(r.Err, fault.Crashed) || !r.Rebuilt || r.Lost != nil {
		t.Fatalf("crash: err %v rebuilt %v lost %v; want crashed, rebuilt, nothing lost", r.Err, r.Rebuilt, r.Lost)
	}
	if !strings.Contains(r.Err.Error(), "panic: boom in a goroutine") {
		t.Errorf("the crash message should carry the worker's fatal error; got %q", r.Err)
	}
	if r := run(t, s, "print x\nprint answer"); r.Stdout != "7\necho:hello\n" {
		t.Fatalf("after rebuild: %q %v", r.Stdout, r.Err)
	}
	if got := host.n.Load(); got != 1 {
		t.Errorf("llm_query called %d times; the replay must serve it from the journal", got)
	}
}

func TestHardDeadlineKillsWithin100ms(t *testing.T) {
	o := testOptions("full")
	o.CellTimeout, o.KillGrace = 200*time.Millisecond, 50*time.Millisecond
	s := open(t, o)
	run(t, s, "set x 1")
	start := time.Now()
	r := run(t, s, "hang")
	late := time.Since(start) - (o.CellTimeout + o.KillGrace)
	if !errors.Is(r.Err, fault.Timeout) || !r.Rebuilt {
		t.Fatalf("hang: err %v rebuilt %v; want timeout and rebuilt", r.Err, r.Rebuilt)
	}
	if late > 100*time.Millisecond+restartAllowance {
		t.Errorf("returned %v after the hard deadline (kill, restart and replay included)", late)
	}
	if r := run(t, s, "print x"); r.Stdout != "1\n" {
		t.Fatalf("after the kill: %q %v", r.Stdout, r.Err)
	}
}

// restartAllowance is the time a restart and a one-cell replay may add to a hard kill.
const restartAllowance = 400 * time.Millisecond

func TestSoftDeadlineNeedsNoRestart(t *testing.T) {
	o := testOptions("full")
	o.CellTimeout = 100 * time.Millisecond
	o.KillGrace = 2 * time.Second
	s := open(t, o)
	r := run(t, s, "spin")
	if !errors.Is(r.Err, fault.Timeout) || r.Rebuilt {
		t.Fatalf("spin: err %v rebuilt %v; want a timeout without a restart", r.Err, r.Rebuilt)
	}
}

func TestKillMinus9BetweenCells(t *testing.T) {
	s := open(t, testOptions("full"))
	run(t, s, "set x 5")
	if err := syscall.Kill(s.w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.w.exited
	r := run(t, s, "print x")
	if r.Stdout != "5\n" || r.Err != nil || !r.Rebuilt {
		t.Fatalf("after kill -9: stdout %q err %v rebuilt %v", r.Stdout, r.Err, r.Rebuilt)
	}
}

func TestDegradedAfterTooManyDeaths(t *testing.T) {
	o := testOptions("full")
	o.MaxRestarts = 2
	s := open(t, o)
	for i := 0; i < 2; i++ {
		if r := run(t, s, "crash"); !r.Rebuilt {
			t.Fatalf("death %d: not rebuilt: %v %v", i+1, r.Err, r.Lost)
		}
	}
	r := run(t, s, "crash")
	if !errors.Is(r.Err, fault.Crashed) || !strings.Contains(fmt.Sprint(r.Lost, r.Err), "degraded") {
		t.Fatalf("third death: err %v lost %v; want the session degraded", r.Err, r.Lost)
	}
	if r := run(t, s, "set x 1"); r.Err == nil || !strings.Contains(r.Err.Error(), "degraded") {
		t.Fatalf("a degraded session must refuse cells; got %v", r.Err)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		deaths int
		want   time.Duration
	}{{1, 0}, {2, time.Second}, {3, 2 * time.Second}, {6, 16 * time.Second}, {12, 300 * time.Second}} {
		if got := backoff(tc.deaths, limits.RestartMaxBackoff); got != tc.want {
			t.Errorf("backoff(%d) = %v, want %v", tc.deaths, got, tc.want)
		}
	}
}

func TestUnconfinedWorkerIsRefusedUnlessAllowed(t *testing.T) {
	o := testOptions("none")
	if _, err := Open(context.Background(), o); !errors.Is(err, fault.Denied) || !strings.Contains(err.Error(), "--allow-degraded") {
		t.Fatalf("want a denied error naming --allow-degraded, got %v", err)
	}
	o.AllowDegraded = true
	s := open(t, o)
	if got := s.Isolation().Verdict; got != "none" {
		t.Errorf("Isolation() = %q", got)
	}
}

func TestHostCallsRefusedWithoutHost(t *testing.T) {
	s := open(t, testOptions("full"))
	r := run(t, s, "ask x")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "llm_query is not available") {
		t.Fatalf("want a clear refusal, got %v", r.Err)
	}
}

// TestNoBackgroundNoteWithoutBackgroundWork: only model code left running counts. Before, a JS
// cell whose regex needed regexp2 (a lookahead) was marked as leaving work in the background
// (regexp2's timeout clock runs for a second after a match), so it was kept out of the journal.
func TestNoBackgroundNoteWithoutBackgroundWork(t *testing.T) {
	cells := map[string][]string{
		"js": {`print("ab".replace(/a(?=b)/, "x"))`, `const m = /(?<=\[)\w+(?=\])/.exec("[svc] up"); print(m[0])`, `Promise.resolve(1).then(print)`,
			`async function f() { return 2 } f().then(print)`},
		"go": {`import "regexp"
print(regexp.MustCompile("a+").FindString("caab"))`, `import "sort"
xs := []int{3, 1}
sort.Ints(xs)
print(xs)`},
	}
	for lang, srcs := range cells {
		s := open(t, realOptions(t, lang))
		for _, src := range srcs {
			if r := run(t, s, src); r.Err != nil || r.Unreplayable {
				t.Errorf("%s: %s: unreplayable %v, err %v", lang, src, r.Unreplayable, r.Err)
			}
		}
	}
}

// TestCancelledCellRebuildsState: cancelling a runaway cell (Ctrl-C in the REPL) kills the worker
// and returns; the next cell, under its own context, rebuilds the state first.
func TestCancelledCellRebuildsState(t *testing.T) {
	s := open(t, testOptions("full"))
	run(t, s, "set x 9")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	r := s.Exec(ctx, "hang")
	if fault.KindOf(r.Err) != fault.Canceled || r.Rebuilt || r.Lost != nil || r.Deaths != 0 {
		t.Fatalf("cancelled cell: err %v rebuilt %v lost %v deaths %d; want canceled, no rebuild yet, no death counted", r.Err, r.Rebuilt, r.Lost, r.Deaths)
	}
	if r := run(t, s, "print x"); r.Stdout != "9\n" || !r.Rebuilt {
		t.Fatalf("after the cancel: %q %v rebuilt %v", r.Stdout, r.Err, r.Rebuilt)
	}
}

// TestSessionLimits: the limits a session states are the ones it was given, with the defaults
// for the fields left zero.
func TestSessionLimits(t *testing.T) {
	o := testOptions("full")
	o.Limits = engine.Limits{PeekChars: 777}
	got := open(t, o).Limits()
	if got.PeekChars != 777 || got.OutputChars != limits.OutputChars {
		t.Errorf("Limits() = %+v, want PeekChars 777 and the default OutputChars", got)
	}
}
