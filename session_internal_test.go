package rlm

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/repl"
)

// TestExecResultKeepsWhatTheShellPrints: a session's result reaches ExecResult whole: output and
// its truncation, the FINAL value, the error's kind and message (no kind reads as code), the
// variables, and what a worker's death cost (rebuilt, lost, unreplayable).
func TestExecResultKeepsWhatTheShellPrints(t *testing.T) {
	final := "42"
	got := execResult(repl.Result{
		Stdout: "out… [1000 characters in total]", Truncated: true, Final: &final,
		Err:  fault.New(fault.Limit, "peek: length 20,000 is more than 16,000"),
		Vars: []string{"a", "b"}, Locals: []repl.Var{{Name: "a", Type: "string", Repr: `"hi"`, Len: 2}}, Rebuilt: true, Lost: errors.New("x could not be restored"), Unreplayable: true,
	})
	want := ExecResult{
		Output: "out… [1000 characters in total]", Truncated: true, Final: &final,
		Error: &Failure{Kind: fault.Limit, Message: "peek: length 20,000 is more than 16,000"},
		Vars:  []Var{{Name: "a", Type: "string", Repr: `"hi"`, Len: 2}, {Name: "b", Len: -1}}, Rebuilt: true, Lost: &Failure{Kind: fault.Code, Message: "x could not be restored"}, Unreplayable: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("execResult:\n got %+v\nwant %+v", got, want)
	}
	if empty := execResult(repl.Result{}); empty.Vars == nil || empty.Error != nil || empty.Lost != nil || empty.Final != nil {
		t.Errorf("an empty result: %+v; want no error and an empty (not nil) list of variables", empty)
	}
}
