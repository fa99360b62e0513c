package main

import (
	"bytes"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/termsafe"
)

// TestReplReportsTheResult: the shell prints each part of a cell's rlm.ExecResult on stdout, in
// order, so that piped output can be matched to its cell: the output on a line of its own, the
// FINAL value (the first time, with a note that the session goes on), the error with its kind,
// and what a worker's death cost the session. stderr is left to rlm's own errors.
func TestReplReportsTheResult(t *testing.T) {
	final := "42"
	tests := []struct {
		name     string
		r        rlm.ExecResult
		out, err string
	}{
		{"output and answer", rlm.ExecResult{Output: "partial", Final: &final}, "partial\n⟫ FINAL: 42\n⟫ (in rlm run, the run ends after this cell with that answer; the REPL goes on: :quit to leave)\n", ""},
		{"an error", rlm.ExecResult{Output: "1\n", Error: &rlm.Failure{Kind: fault.Code, Message: "solve.js:2:6: TypeError: boom", Pos: "solve.js:2:6"}},
			"1\n⟫ error (code): solve.js:2:6: TypeError: boom\n", ""},
		{"rebuilt", rlm.ExecResult{Rebuilt: true, Error: &rlm.Failure{Kind: fault.Crashed, Message: "the worker died"}},
			"⟫ error (crashed): the worker died\n⟫ the worker was restarted and earlier cells were replayed; state is rebuilt\n", ""},
		{"lost", rlm.ExecResult{Rebuilt: true, Lost: &rlm.Failure{Kind: fault.Crashed, Message: "x is gone"}},
			"⟫ the worker was restarted; state was partly lost: x is gone\n", ""},
		{"unreplayable", rlm.ExecResult{Output: "started\n", Unreplayable: true},
			"started\n⟫ note: this cell left work running in the background; a restart will not rebuild it\n", ""},
	}
	for _, tt := range tests {
		var ob, eb bytes.Buffer
		out, errw := termsafe.NewWriter(&ob), termsafe.NewMessageWriter(&eb)
		sh := &shell{out: out, err: errw}
		sh.report(tt.r)
		out.Flush()
		errw.Flush()
		if ob.String() != tt.out || eb.String() != tt.err {
			t.Errorf("%s: stdout %q, stderr %q; want %q, %q", tt.name, ob.String(), eb.String(), tt.out, tt.err)
		}
	}
}
