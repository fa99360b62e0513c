package rlm

import (
	"errors"
	"testing"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/repl"
)

// TestCellsLabel: the progress line of an iteration says how many of its cells failed, each way
// they failed, and whether the REPL restarted.
func TestCellsLabel(t *testing.T) {
	ok := controller.Cell{}
	code := controller.Cell{Result: repl.Result{Err: fault.New(fault.Code, "undefined: x")}}
	plain := controller.Cell{Result: repl.Result{Err: errors.New("no kind")}}
	rejected := controller.Cell{Result: repl.Result{Err: fault.New(fault.Rejected, "eval")}}
	crashed := controller.Cell{Result: repl.Result{Err: fault.New(fault.Crashed, "out of memory"), Rebuilt: true}}
	rebuiltOK := controller.Cell{Result: repl.Result{Rebuilt: true}}
	for _, c := range []struct {
		cells []controller.Cell
		want  string
	}{
		{nil, "0 cells"},
		{[]controller.Cell{ok}, "1 cell"},
		{[]controller.Cell{ok, ok}, "2 cells"},
		{[]controller.Cell{ok, code, code}, "3 cells (2 failed: code)"},
		{[]controller.Cell{plain}, "1 cell (1 failed)"},
		{[]controller.Cell{rejected, ok, crashed}, "3 cells (2 failed: rejected, crashed; the REPL restarted)"},
		{[]controller.Cell{code, plain, rejected}, "3 cells (3 failed: code, rejected)"},
		{[]controller.Cell{rebuiltOK}, "1 cell (the REPL restarted)"},
	} {
		if got := cellsLabel(c.cells); got != c.want {
			t.Errorf("cellsLabel(%d cells) = %q; want %q", len(c.cells), got, c.want)
		}
	}
}
