package controller

import (
	"context"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestParentServesWhatTheRegistryPlacesThere: the parent's host serves exactly the functions
// the registry places in the parent (engine.InParent), and refuses every other name, whatever
// the arguments; each call it serves is counted against the sub-call cap exactly when the
// registry counts it there (engine.SubCallBudget).
func TestParentServesWhatTheRegistryPlacesThere(t *testing.T) {
	args := map[string][]any{"llm_query": {"q"}, "llm_query_batched": {[]any{"q"}}}
	type probe struct{ served, counted bool }
	names := []string{"exec", "llm", "LLM_QUERY"} // not in the registry
	for _, f := range engine.API {
		names = append(names, f.Name)
	}
	for _, name := range names {
		f, _ := engine.Lookup(name)
		cfg := Config{SubQuery: func(context.Context, string, string) (string, error) { return "a", nil }}.withDefaults()
		step := 1
		h := newSubHost(cfg, &step)
		a, ok := args[name]
		if !ok {
			a = []any{"q", "q"}
		}
		_, err := h.Call(context.Background(), name, a)
		got := probe{served: err == nil, counted: h.used() > 0}
		want := probe{served: f.Place == engine.InParent, counted: f.Budget == engine.SubCallBudget}
		if got != want {
			t.Errorf("%s (%v, %v): got %+v (%v), want %+v", name, f.Place, f.Budget, got, err, want)
		}
	}
}
