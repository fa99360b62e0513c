package record

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/redact"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// TestOpen: the records of a task exist once Open returns, the task is RUNNING, and what is
// written is redacted.
func TestOpen(t *testing.T) {
	home := t.TempDir()
	key := "sk-proj-TESTkey0123456789abcdefghijklmnopqrstuvwx"
	r, err := Open(Spec{Home: home, Started: time.Now(), Task: audit.Task{ID: "t1", Question: "why " + key, Lang: "js"},
		Meta: trace.Metadata{RootModel: "m"}}, redact.New(key))
	if err != nil {
		t.Fatal(err)
	}
	r.Tools.Add([]audit.ToolCall{{Task: "t1", Step: 1, Name: "peek", Result: key}})
	r.Close()
	db, err := audit.Open(filepath.Join(home, "audit.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	task, err := db.Task(context.Background(), "t1")
	if err != nil || task.Status != audit.Running || strings.Contains(task.Question, key) || task.PID != os.Getpid() {
		t.Errorf("task = %+v, %v; want RUNNING, redacted, this PID", task, err)
	}
	tools, _ := db.ToolCalls(context.Background(), "t1")
	if len(tools) != 1 || strings.Contains(tools[0].Result, key) {
		t.Errorf("tool rows = %+v; want the queued row, redacted", tools)
	}
	b, err := os.ReadFile(r.TracePath)
	if err != nil || strings.Contains(string(b), key) || !strings.Contains(string(b), `"root_model":"m"`) {
		t.Errorf("trace %s: %v\n%s", r.TracePath, err, b)
	}
}

// TestToolRows: the first calls one by one, then one row per tool for the calls not recorded
// one by one; sub-calls are left out.
func TestToolRows(t *testing.T) {
	res := repl.Result{
		Tools:      []repl.ToolCall{{Name: "peek", Result: "a"}, {Name: "llm_query"}, {Name: "search", Err: "bad regex"}},
		ToolCounts: map[string]int{"peek": 150, "search": 1, "llm_query": 3},
	}
	rows := ToolRows("t", 2, res)
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
	it := Iteration(controller.Iteration{Step: 1, Cells: []controller.Cell{{Code: "x", Result: res}}})
	got := it.CodeBlocks[0].Locals
	want := []trace.Var{{Name: "lines", Type: "[]string", Repr: `["a" "b"]`}, {Name: "n", Type: "int", Repr: "2"}, {Name: "rest"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("locals = %+v; want %+v", got, want)
	}
}
