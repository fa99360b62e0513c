package golang

import (
	"path"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestToolNamesCannotClashWithPackages: the name of every package a cell may import is refused
// for a tool (engine.ReservedName), so that `import "strings"` never meets a tool of that name.
func TestToolNamesCannotClashWithPackages(t *testing.T) {
	if len(allowedImports()) < 10 {
		t.Fatalf("allowed imports: %v", allowedImports())
	}
	for _, p := range allowedImports() {
		if name := path.Base(p); engine.ReservedName(name) == "" {
			t.Errorf("package %s (%s) is not reserved from tools: add it to engine.GoPackages", name, p)
		}
	}
}
