package js

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestServesWhatTheRegistryPlacesHere: a call of each API function reaches the host exactly
// when the registry does not place the function in the engine (engine.InEngine).
func TestServesWhatTheRegistryPlacesHere(t *testing.T) {
	jsArg := map[string]string{"Context": "context", "int": "0", "string": `"x"`, "[]string": `["x"]`, "Opts": "{}", "any": "1"}
	e, h := newEngine(t, Config{})
	for _, f := range engine.API {
		var args []string
		for _, p := range f.Params {
			if p.Arity != engine.Optional {
				args = append(args, jsArg[p.GoType])
			}
		}
		before := len(h.Calls())
		src := f.Name + "(" + strings.Join(args, ", ") + ")"
		res := run(t, e, src)
		got := false
		for _, c := range h.Calls()[before:] {
			got = got || c.Name == f.Name
		}
		if want := f.Place != engine.InEngine; got != want {
			t.Errorf("%s (%v): the host got it: %v, want %v (err %v)", src, f.Place, got, want, res.Err)
		}
	}
}
