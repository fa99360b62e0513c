package js

import (
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestToolNamesCannotClashWithGlobals: every global of a fresh engine is either an API function,
// a prelude name or a name engine.ReservedName refuses for a tool, so a session's tool can never
// replace a global a cell relies on.
func TestToolNamesCannotClashWithGlobals(t *testing.T) {
	e, _ := newEngine(t, Config{})
	names := e.vm.GlobalObject().GetOwnPropertyNames()
	if len(names) < 20 {
		t.Fatalf("globals: %v", names)
	}
	for _, name := range names {
		if _, api := engine.Lookup(name); api || name[0] == '_' {
			continue
		}
		if engine.ReservedName(name) == "" {
			t.Errorf("global %q is not reserved from tools: add it to engine.JSGlobals", name)
		}
	}
}
