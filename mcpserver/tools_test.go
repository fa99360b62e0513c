package mcpserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestSessionTools: the server's Tools are offered to a session's code, listed with the API the
// open call returns, and served by the server; a clash is refused when the server is built.
func TestSessionTools(t *testing.T) {
	tool := rlm.Tool{Name: "shout", Description: "the text in capitals", Params: []rlm.ToolParam{{Name: "s", Type: rlm.ToolString}}, Result: rlm.ToolString,
		Func: func(_ context.Context, a rlm.ToolArgs) (any, error) { return strings.ToUpper(a.String("s")), nil }}
	_, cs := start(t, mcpserver.Options{Tools: []rlm.Tool{tool}})
	o := open(t, cs, map[string]any{"lang": "js"})
	if !slices.ContainsFunc(o.API, func(l string) bool { return strings.HasPrefix(l, "shout(s) — the text in capitals") }) {
		t.Errorf("api = %q; want shout", o.API)
	}
	var r execOut
	res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `print(shout("hi"))`}, &r)
	if res.IsError || r.Output != "HI\n" {
		t.Errorf("shout: %q %+v", r.Output, r.Error)
	}
	tool.Name = "peek"
	if _, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Tools: []rlm.Tool{tool}}); err == nil || !strings.Contains(err.Error(), "clashes with rlm's API function peek") {
		t.Errorf("a clash: %v", err)
	}
}
