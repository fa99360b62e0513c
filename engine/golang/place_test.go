package golang

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestServesWhatTheRegistryPlacesHere: a call of each API function reaches the host exactly
// when the registry does not place the function in the engine (engine.InEngine).
func TestServesWhatTheRegistryPlacesHere(t *testing.T) {
	goArg := map[string]string{"Context": "context", "int": "0", "string": `"x"`, "[]string": `[]string{"x"}`, "Opts": "Opts{}", "any": "1"}
	s := newTestSession(t, Config{}, "")
	for _, f := range engine.API {
		var args []string
		for _, p := range f.Params {
			if p.Arity != engine.Optional {
				args = append(args, goArg[p.GoType])
			}
		}
		s.host.calls = nil
		src := f.Name + "(" + strings.Join(args, ", ") + ")"
		res := s.run(src)
		if got, want := slices.Contains(s.host.calls, f.Name), f.Place != engine.InEngine; got != want {
			t.Errorf("%s (%v): the host got it: %v, want %v (%s)", src, f.Place, got, want, describe(res))
		}
	}
}
