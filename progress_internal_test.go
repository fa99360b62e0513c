package rlm

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm"
)

// lockedBuffer is a bytes.Buffer the test may read while the reporter's timer writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressWhileBusy holds the progress lines of long work: a line every interval while a
// piece of work runs, saying what and for how long and what the run has used; none once it
// ended; none under Quiet; on a terminal one status line redrawn in place and erased before the
// next line.
func TestProgressWhileBusy(t *testing.T) {
	const every = 40 * time.Millisecond
	used := Usage{Calls: 3, Tokens: 4100, Cost: llm.Cost{USD: 0.01}}
	for _, tc := range []struct {
		name      string
		quiet     bool
		tty       bool
		wantLines bool
	}{
		{"lines", false, false, true},
		{"quiet", true, false, false},
		{"terminal", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out lockedBuffer
			o := Options{Progress: &out, Name: "root", Quiet: tc.quiet}
			if tc.tty {
				o.Status = &out
			}
			p := newReporter(settings{Options: o})
			p.every, p.drawEvery = every, every
			p.usage = func() Usage { return used }
			p.Busy("iteration 2: running cell 1 of 3")
			line := "[agent:root] still running: iteration 2: running cell 1 of 3 ("
			if !tc.wantLines {
				time.Sleep(5 * every)
				p.Busy("")
				if got := out.String(); got != "" {
					t.Fatalf("Quiet wrote %q", got)
				}
				return
			}
			// At least two lines come, one per interval; a busy machine may delay them.
			waitFor(t, func() bool { return strings.Count(out.String(), line) >= 2 })
			p.Busy("")
			got := out.String()
			if !strings.Contains(got, "; used so far: 3 API calls, 4100 tokens, cost $0.01") {
				t.Errorf("the line does not say what the run used:\n%q", got)
			}
			if tc.tty != strings.Contains(got, "\r\x1b[K") || tc.tty == strings.Contains(got, "\n") {
				t.Errorf("tty=%v: want a status line redrawn in place only on a terminal:\n%q", tc.tty, got)
			}
			if tc.tty && !strings.HasSuffix(got, "\r\x1b[K") {
				t.Errorf("the status line was not erased when the work ended:\n%q", got)
			}
			time.Sleep(3 * every)
			if after := out.String(); after != got {
				t.Errorf("a line after the work ended: %q", strings.TrimPrefix(after, got))
			}
		})
	}
}

// TestProgressScriptWithoutModel: a script run's line has no usage part before an API call.
func TestProgressScriptWithoutModel(t *testing.T) {
	var out lockedBuffer
	p := newReporter(settings{Options: Options{Progress: &out, Name: "root"}})
	p.every = 20 * time.Millisecond
	p.Busy("running count\x1b[2J.go")
	waitFor(t, func() bool { return strings.Contains(out.String(), "\n") })
	p.Busy("")
	if got := out.String(); !strings.Contains(got, "[agent:root] still running: running count\x1b[2J.go (") || strings.Contains(got, "used so far") {
		t.Errorf("got %q; want the script's line with no usage", got)
	}
	// On a terminal, the status line's text is escaped: only rlm's own sequences redraw it. It is
	// drawn first after every, as a line would be, then redrawn every drawEvery.
	var term lockedBuffer
	p = newReporter(settings{Options: Options{Status: &term, Name: "root"}})
	p.every, p.drawEvery = 300*time.Millisecond, 20*time.Millisecond
	p.Busy("first")
	time.Sleep(100 * time.Millisecond)
	if got := term.String(); got != "" {
		t.Errorf("the status line was drawn before every passed: %q", got)
	}
	p.Busy("")
	p.Busy("running count\x1b[2J.go")
	waitFor(t, func() bool { return strings.Contains(term.String(), "still running") })
	p.Busy("")
	if got := term.String(); strings.Contains(got, "\x1b[2J") || !strings.Contains(got, "\r\x1b[K[agent:root] still running: running count") {
		t.Errorf("status line %q: want it drawn with the name's escape sequence made inert", got)
	}
}

// waitFor polls ok until it holds, for at most 10 s (the reporter's timers run late on a busy
// machine, never early).
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no progress line within 10 s")
		}
	}
}

// The progress lines state a cost only once something is known of it: "$0" while no call has
// reported tokens would read as free, and the "unknown" after it as a change.
func TestSpentSoFar(t *testing.T) {
	for _, tc := range []struct {
		u    Usage
		want string
	}{
		{Usage{}, ""},
		{Usage{Calls: 1}, "; used so far: 1 API call, 0 tokens"},
		{Usage{Calls: 2, Tokens: 900, Cost: llm.Cost{Unknown: 2}}, "; used so far: 2 API calls, 900 tokens, cost unknown"},
		{Usage{Calls: 3, Tokens: 4100, Cost: llm.Cost{USD: 0.01}}, "; used so far: 3 API calls, 4100 tokens, cost $0.01"},
	} {
		if got := spentSoFar(tc.u); got != tc.want {
			t.Errorf("spentSoFar(%+v) = %q, want %q", tc.u, got, tc.want)
		}
	}
}

// TestProgressLinesSpreadOut: without a terminal, each progress line comes after as long as the
// work has run so far (at most a minute apart): a long cell writes a few lines, not one every
// interval.
func TestProgressLinesSpreadOut(t *testing.T) {
	var out lockedBuffer
	p := newReporter(settings{Options: Options{Progress: &out, Name: "root"}})
	p.every = 20 * time.Millisecond
	p.Busy("running cell 1 of 1")
	time.Sleep(500 * time.Millisecond) // lines near 20, 40, 80, 160 and 320 ms; not 25 of them
	p.Busy("")
	if n := strings.Count(out.String(), "still running"); n < 2 || n > 7 {
		t.Errorf("%d progress lines in 500 ms at a first interval of 20 ms; want about 5:\n%s", n, out.String())
	}
}
