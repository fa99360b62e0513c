package rlm

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// TestToolRows: the first calls one by one, then one row per tool for the calls not recorded
// one by one; sub-calls are left out.
func TestToolRows(t *testing.T) {
	res := repl.Result{
		Tools:      []repl.ToolCall{{Name: "peek", Result: "a"}, {Name: "llm_query"}, {Name: "search", Err: "bad regex"}, {Name: "llm_query_batched"}},
		ToolCounts: map[string]int{"peek": 150, "search": 1, "llm_query": 3, "llm_query_batched": 2},
	}
	rows := toolRows("t", 2, res)
	var got []string
	for _, r := range rows {
		got = append(got, r.Name+":"+r.Result+r.Error)
	}
	want := []string{"peek:a", "search:bad regex", "peek:149 more peek calls in this cell, counted but not recorded one by one"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows = %q; want %q", got, want)
	}
}

// TestIterationLocals: a block's variables reach the trace with the engine's type and short
// rendering where the worker described them, and by name alone past that.
func TestIterationLocals(t *testing.T) {
	res := repl.Result{Vars: []string{"lines", "n", "rest"},
		Locals: []repl.Var{{Name: "lines", Type: "[]string", Repr: `["a" "b"]`, Len: 2}, {Name: "n", Type: "int", Repr: "2", Len: -1}}}
	it := iterationRecord(controller.Iteration{Step: 1, Cells: []controller.Cell{{Code: "x", Result: res}}})
	got := it.CodeBlocks[0].Locals
	want := []trace.Var{{Name: "lines", Type: "[]string", Repr: `["a" "b"]`}, {Name: "n", Type: "int", Repr: "2"}, {Name: "rest"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("locals = %+v; want %+v", got, want)
	}
}
