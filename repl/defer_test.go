package repl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// TestStoppedCellDefersRebuild: a cell stopped through its context returns at once, without
// replaying a slow journal first; the next cell rebuilds the worker, state intact.
func TestStoppedCellDefersRebuild(t *testing.T) {
	s, err := Open(context.Background(), Options{Lang: "js", Worker: exampleWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A journaled cell that takes about a second: a rebuild inside the stopped Exec would wait
	// for its replay.
	slow := `let x = 0; const t0 = Date.now(); while (Date.now() - t0 < 1000) { x++ }; const kept = 41;`
	if r := s.Exec(context.Background(), slow); r.Err != nil {
		t.Fatal(r.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Exec(ctx, `while (Date.now() > 0) {}`)
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Errorf("the cancelled cell returned after %v; the journal replay must wait for the next cell", took)
	}
	if !errors.Is(r.Err, fault.Timeout) || r.Rebuilt {
		t.Fatalf("got %v (rebuilt %v); want a timeout and no rebuild yet", r.Err, r.Rebuilt)
	}
	r = s.Exec(context.Background(), `print(kept + 1)`)
	if r.Err != nil || r.Stdout != "42\n" || !r.Rebuilt {
		t.Fatalf("next cell: %q, %v, rebuilt %v; want 42 from a rebuilt worker", r.Stdout, r.Err, r.Rebuilt)
	}
}
