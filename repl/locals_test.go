package repl

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestLocalsCrossTheProtocol: a cell's result, and the session, carry the variables' types,
// short renderings and lengths from the real engines, in the order of Vars.
func TestLocalsCrossTheProtocol(t *testing.T) {
	for _, tc := range []struct {
		lang, code string
		want       Var
	}{
		{"go", "lines := strings.Split(text(context), \"\\n\")\nn := 1", Var{Name: "lines", Type: "[]string", Repr: `["a b" "c" ""]`, Len: 3}},
		{"js", `const lines = text(context).split("\n"); let n = 1`, Var{Name: "lines", Type: "Array", Repr: `["a b", "c", ""]`, Len: 3}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			s := open(t, apiOptions(t, tc.lang, "a b\nc\n"))
			res := run(t, s, tc.code)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(res.Locals) == 0 || res.Locals[0] != tc.want {
				t.Errorf("Result.Locals = %+v, want [%+v …]", res.Locals, tc.want)
			}
			if got := s.Locals(); len(got) != 2 || len(res.Vars) != 2 || got[1].Name != "n" {
				t.Errorf("Session.Locals() = %+v, want the last result's %+v, one per variable %v", got, res.Locals, res.Vars)
			}
		})
	}
}

// TestLocalsOfBoundsTheWorker: the parent keeps a worker's descriptions only while they name
// the variables in order, at most engine.MaxLocals of them, each cut to its caps.
func TestLocalsOfBoundsTheWorker(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	var vars []string
	var locals []Var
	for i := range engine.MaxLocals + 10 {
		name := string(rune('a'+i/26)) + string(rune('a'+i%26))
		vars = append(vars, name)
		locals = append(locals, Var{Name: name, Type: long, Repr: long})
	}
	got := localsOf(vars, locals)
	if len(got) != engine.MaxLocals {
		t.Errorf("%d kept, want %d", len(got), engine.MaxLocals)
	}
	if r := []rune(got[0].Repr); len(r) != engine.MaxReprChars || len([]rune(got[0].Type)) != engine.MaxTypeChars {
		t.Errorf("not cut: repr %d characters, type %d", len(r), len([]rune(got[0].Type)))
	}
	locals[3].Name = "zz"
	if got := localsOf(vars, locals); len(got) != 3 {
		t.Errorf("a description out of order: %d kept, want the 3 before it", len(got))
	}
	if got := localsOf(vars[:2], locals); len(got) != 2 {
		t.Errorf("more descriptions than variables: %d kept, want 2", len(got))
	}
}
