package engine_test

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

func tool(name string) engine.Func {
	return engine.Func{Name: name, Params: []engine.Param{{Name: "id", GoType: "string"}}, Result: "string", Doc: "d",
		Place: engine.InParent, Budget: engine.ToolBudget, Replay: engine.Journaled}
}

// TestWithTools: a session's registry is engine.API followed by its tools, which Lookup finds
// and Tools lists; engine.API itself is never changed; a bad declaration is refused.
func TestWithTools(t *testing.T) {
	n := len(engine.API)
	reg, err := engine.WithTools([]engine.Func{tool("lookup"), tool("fetch_row")})
	if err != nil {
		t.Fatal(err)
	}
	if len(engine.API) != n || len(reg.Funcs()) != n+2 || len(reg.Tools()) != 2 || reg.Tools()[1].Name != "fetch_row" {
		t.Errorf("API %d, registry %d, tools %v", len(engine.API), len(reg.Funcs()), reg.Tools())
	}
	if _, ok := reg.Lookup("lookup"); !ok {
		t.Error("the registry does not find its tool")
	}
	if _, ok := engine.Lookup("lookup"); ok {
		t.Error("engine.Lookup finds a session's tool")
	}
	var none engine.Registry
	if len(none.Funcs()) != n || len(none.Tools()) != 0 {
		t.Error("a nil registry is not engine.API")
	}
	bad := func(f func(*engine.Func)) engine.Func {
		x := tool("x")
		f(&x)
		return x
	}
	for _, c := range []struct {
		f    engine.Func
		want string
	}{
		{tool("grep"), "rlm's API function grep"},
		{tool("range"), "a Go keyword"},
		{tool("Math"), "a JavaScript global"},
		{bad(func(f *engine.Func) { f.Doc = "a\x00b" }), "one line"},
		{bad(func(f *engine.Func) { f.Doc = "a\u2028b" }), "one line"},
		{bad(func(f *engine.Func) { f.Result = "chan int" }), "result type"},
		{bad(func(f *engine.Func) { f.Params[0].GoType = "Context" }), "parameter id has type"},
		{bad(func(f *engine.Func) { f.Params[0].Name = "new" }), "not a usable identifier"},
		{bad(func(f *engine.Func) { f.Params[0].Name = "int" }), "not a usable identifier"},
		{bad(func(f *engine.Func) { f.Params[0].Name = "rlmhost" }), "not a usable identifier"},
		{bad(func(f *engine.Func) { f.Place = engine.InWorker }), "served by the parent"},
		{bad(func(f *engine.Func) { f.Replay = engine.Rerun }), "journaled"},
	} {
		if _, err := engine.WithTools([]engine.Func{c.f}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.f.Name, err, c.want)
		}
	}
}
