package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/wire"
)

// TestJournalKeepsOnlyWhatReplayCannotRecompute: a cell's journal entry is its code and its
// file-tool and sub-call results; context tools are recomputed by a replay.
func TestJournalKeepsOnlyWhatReplayCannotRecompute(t *testing.T) {
	o := realOptions(t, "js")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n.txt"), []byte("note"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Roots = []string{dir}
	s := open(t, o)
	code := fmt.Sprintf(`let t = 0; for (let i = 0; i < 20; i++) { t += peek(context, i * 100, 100).length + count(context, "ERROR") }; const note = read_file(%q); print(t, note)`, filepath.Join(dir, "n.txt"))
	r := run(t, s, code)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.ToolCounts["peek"] != 20 || r.ToolCounts["count"] != 20 || r.ToolCounts["read_file"] != 1 {
		t.Errorf("tool counts %v; want 20 peeks, 20 counts, 1 read_file", r.ToolCounts)
	}
	if len(s.journal.entries) != 1 {
		t.Fatalf("%d journal entries; want 1", len(s.journal.entries))
	}
	var kept []struct { // the worker's journal entries (worker/journal.go), as JSON
		Name   string          `json:"n"`
		Result json.RawMessage `json:"r"`
	}
	if err := json.Unmarshal(s.journal.entries[0].calls, &kept); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Name != "read_file" || string(kept[0].Result) != `"note"` {
		t.Errorf("journaled %+v; want only the read_file result", kept)
	}
	if want := int64(len(code) + len(s.journal.entries[0].calls)); s.journal.bytes != want {
		t.Errorf("journal bytes %d; want %d", s.journal.bytes, want)
	}
}

// TestSessionJournalIsBounded: past Options.JournalBytes, journaled calls fail with an error that
// names the session's bound; a replay of the cell that hit it serves the same error.
func TestSessionJournalIsBounded(t *testing.T) {
	o := realOptions(t, "js")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n.txt"), []byte(strings.Repeat("x", 40_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Roots, o.JournalBytes, o.CellJournalBytes = []string{dir}, 200<<10, 100<<10
	s := open(t, o)
	cell := fmt.Sprintf(`var got = []; for (let i = 0; i < 2; i++) { try { got.push(read_file(%q).length) } catch (e) { got.push(e.message) } }; print(JSON.stringify(got))`, filepath.Join(dir, "n.txt"))
	for i, want := range []string{`[40000,40000]`, `[40000,40000]`, `the session's file-tool and sub-call results passed 200 KiB`} {
		r := run(t, s, cell)
		if r.Err != nil || !strings.Contains(r.Stdout, want) {
			t.Fatalf("cell %d: %q %v; want %s", i+1, r.Stdout, r.Err, want)
		}
	}
	if s.journal.bytes > o.JournalBytes+journalSlack {
		t.Errorf("the journal holds %d bytes; the bound is %d", s.journal.bytes, o.JournalBytes)
	}
	killWorker(t, s)
	if r := run(t, s, `print(got.length)`); r.Lost != nil || r.Stdout != "2\n" {
		t.Fatalf("after a kill: %q %v lost %v", r.Stdout, r.Err, r.Lost)
	}
}

// TestRestartsLeftIsReported: every death tells how many more the session survives.
func TestRestartsLeftIsReported(t *testing.T) {
	o := testOptions("full")
	o.MaxRestarts = 3
	s := open(t, o)
	for i := 1; i <= 3; i++ {
		r := run(t, s, "crash")
		if r.Deaths != i || r.RestartsLeft != 3-i || !r.Rebuilt {
			t.Fatalf("crash %d: deaths %d, restarts left %d, rebuilt %v; want %d and %d", i, r.Deaths, r.RestartsLeft, r.Rebuilt, i, 3-i)
		}
	}
	if r := run(t, s, "set x 1"); r.Deaths != 0 || r.Err != nil {
		t.Errorf("a cell without a death: deaths %d, %v", r.Deaths, r.Err)
	}
	if r := run(t, s, "crash"); r.Deaths != 4 || r.RestartsLeft != 0 || !strings.Contains(fmt.Sprint(r.Lost), "degraded") {
		t.Errorf("the fourth death: deaths %d left %d lost %v; want the session degraded", r.Deaths, r.RestartsLeft, r.Lost)
	}
}

// TestHostCallEndsWithErrCellEnded: a host call's context ends with its cell, at the cell's hard
// deadline (the worker ignores its soft one) or when the cell returns at its soft deadline, with
// ErrCellEnded as its cause, so a Host tells it from the end of the run.
func TestHostCallEndsWithErrCellEnded(t *testing.T) {
	for _, cell := range []string{"askdeaf x", "ask x"} {
		o := testOptions("full")
		o.CellTimeout, o.KillGrace = 500*time.Millisecond, 100*time.Millisecond
		h := &deafHost{cause: make(chan error, 1)}
		o.Host = h
		s := open(t, o)
		if r := run(t, s, cell); r.Err == nil {
			t.Fatalf("%s: want the cell's deadline to end it", cell)
		}
		select {
		case cause := <-h.cause:
			if !errors.Is(cause, ErrCellEnded) {
				t.Errorf("%s: cause %v; want ErrCellEnded", cell, cause)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: the host call's context did not end", cell)
		}
	}
}

// TestBackgroundCellReplacesTheWorker: a cell that leaves goroutines running gets a new worker
// (which stops them) and says so; the earlier state is replayed. (Go with the validator off:
// the validator rejects go statements.)
func TestBackgroundCellReplacesTheWorker(t *testing.T) {
	o := realOptions(t, "go")
	o.NoValidate = true
	s := open(t, o)
	run(t, s, "x := 3")
	pid := s.w.cmd.Process.Pid
	r := run(t, s, `import "time"
go func() {
	start := time.Now()
	for time.Since(start) < 2*time.Second {
	}
	panic("late panic in a goroutine")
}()`)
	if !r.Unreplayable || !r.Rebuilt || r.Lost != nil || r.Deaths != 1 {
		t.Fatalf("bg: unreplayable %v rebuilt %v lost %v deaths %d", r.Unreplayable, r.Rebuilt, r.Lost, r.Deaths)
	}
	if s.w.cmd.Process.Pid == pid {
		t.Error("the worker that ran the goroutine is still the session's")
	}
	if r := run(t, s, "print(x)"); r.Stdout != "3\n" {
		t.Fatalf("after: %q %v", r.Stdout, r.Err)
	}
}

// TestToolCountsCountEveryCall: the tool log keeps 100 calls, the counts all of them.
func TestToolCountsCountEveryCall(t *testing.T) {
	s := open(t, realOptions(t, "js"))
	r := s.Exec(context.Background(), `let n = 0; for (let i = 0; i < 5000; i++) { n += length(context) }; print(n > 0)`)
	if r.Err != nil || len(r.Tools) != wire.MaxLoggedCalls || r.ToolCounts["length"] != 5000 {
		t.Fatalf("%d logged, counts %v, %v; want 100 and 5000", len(r.Tools), r.ToolCounts, r.Err)
	}
}
