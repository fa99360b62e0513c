package js

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

func TestRecursionLimit(t *testing.T) {
	e, _ := newEngine(t, Config{MaxCallStack: 500})
	for _, src := range []string{
		`function f(n) { return f(n + 1) + 1; } f(0)`,
		`const g = (n) => [n].map(g); g(0)`, // through a native built-in
		`function h() { try { return h(); } catch (e) { return h(); } } h()`,
	} {
		r := run(t, e, src)
		if !errors.Is(r.Err, fault.Code) || !strings.Contains(r.Err.Error(), "Maximum call stack size exceeded") {
			t.Errorf("%s: %v, want a RangeError-like code error", src, r.Err)
		}
	}
	r := mustRun(t, e, `function fact(n) { return n <= 1 ? 1 : n * fact(n - 1); } print(fact(100) > 1e150)`)
	if r.Stdout != "true\n" {
		t.Errorf("after the overflow: %q", r.Stdout)
	}
}

func TestTimeoutAndReuse(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, src := range []string{
		`while (true) {}`,
		`for (;;) { try { while (true) {} } catch (e) { print("caught"); } finally { print("finally"); } }`,
		`async function spin() { for (;;) await 0; } spin();`, // promise jobs
		`let s = 0; while (true) { s += peek(context, 0, 1).length; }`,
	} {
		start := time.Now()
		r := runFor(t, e, src, 100*time.Millisecond)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: stopped after %v", src, d)
		}
		if !errors.Is(r.Err, fault.Timeout) {
			t.Errorf("%s: %v, want a timeout", src, r.Err)
		}
		if strings.Contains(r.Stdout, "caught") {
			t.Errorf("%s: model code caught the interrupt: %q", src, r.Stdout)
		}
		if r := mustRun(t, e, `print(count(context, "ERROR"))`); r.Stdout != "9\n" {
			t.Errorf("after %s: %q", src, r.Stdout)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := e.Exec(ctx, parse(t, `print(1)`, false)); !errors.Is(r.Err, fault.Timeout) || r.Stdout != "" {
		t.Errorf("cancelled before the start: %v %q", r.Err, r.Stdout)
	}
}

// TestRegexpBacktrackingBounded: goja runs lookarounds, backreferences and sticky matches from a
// nonzero lastIndex on the backtracking regexp2, which Interrupt cannot stop; the match timeout
// does, and the timed-out match reads as no match.
func TestRegexpBacktrackingBounded(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, src := range []string{
		`print(/^(a+)+\1$/.test("a".repeat(40) + "b"))`,
		`const re = /(a+)+$/y; re.lastIndex = 1; print(re.test("!" + "a".repeat(40) + "!"))`,
	} {
		start := time.Now()
		r := runFor(t, e, src, 30*time.Second)
		d := time.Since(start)
		if r.Err != nil || r.Stdout != "false\n" {
			t.Errorf("%s: %q %v", src, r.Stdout, r.Err)
		}
		if d > limits.JSRegexpTimeout+3*time.Second {
			t.Errorf("%s: took %v", src, d)
		}
		t.Logf("%s: %v", src, d.Round(time.Millisecond))
	}
}

func TestHeapWatchdog(t *testing.T) {
	runtime.GC()
	e, _ := newEngine(t, Config{HeapLimit: 96 << 20})
	start := time.Now()
	r := runFor(t, e, `const a = []; while (true) a.push("x".repeat(1000) + a.length);`, 30*time.Second)
	if !errors.Is(r.Err, fault.Limit) || !strings.Contains(r.Err.Error(), "heap") {
		t.Fatalf("%v, want a limit error", r.Err)
	}
	t.Logf("stopped after %v: %v", time.Since(start).Round(time.Millisecond), r.Err)
	mustRun(t, e, `a.length = 0`)
	runtime.GC()
	if r := mustRun(t, e, `print(a.length, length(context))`); r.Stdout != "0 7362\n" {
		t.Errorf("after the limit: %q", r.Stdout)
	}
}

func TestClosedEngine(t *testing.T) {
	e, _ := newEngine(t, Config{})
	unit := parse(t, `while (true) {}`, false)
	done := make(chan error)
	go func() { done <- e.Exec(context.Background(), unit).Err }()
	time.Sleep(50 * time.Millisecond)
	e.Close()
	select {
	case err := <-done:
		if !errors.Is(err, fault.Crashed) {
			t.Errorf("a cell stopped by Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the running cell")
	}
	if r := e.Exec(context.Background(), parse(t, `print(1)`, false)); r.Err == nil {
		t.Error("Exec after Close succeeded")
	}
	if v := e.Vars(); v != nil {
		t.Errorf("Vars after Close: %v", v)
	}
	e.Close()
}
