package engine_test

import (
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

func TestAPINamesAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range engine.API {
		if seen[f.Name] {
			t.Errorf("%s listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Doc == "" {
			t.Errorf("%s has no doc line", f.Name)
		}
		if f.Name[0] == '_' {
			t.Errorf("%s: model-facing names never start with _", f.Name)
		}
	}
	for _, name := range []string{"length", "peek", "search", "count", "chunk", "llm_query", "FINAL", "print"} {
		if _, ok := engine.Lookup(name); !ok {
			t.Errorf("Lookup(%q) failed", name)
		}
	}
}
