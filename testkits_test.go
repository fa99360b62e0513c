package rlm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// testKits are the packages that exist for tests: the escape and benign corpus, the task set,
// the trace rules and the fake model server. What ships must not link them.
var testKits = []string{"corpus", "taskset", "trace/tracetest", "llm/llmtest"}

// pendingKitImports are the production imports of a test kit that are known and still to go,
// each with why. The test fails when one is gone too, so that the list only shrinks.
var pendingKitImports = map[string]string{}

// TestProductionLinksNoTestKit: no package of the module imports a test kit outside its tests
// (go list without -test lists only what a build links), but the pending ones above and the
// measuring commands under scripts/.
func TestProductionLinksNoTestKit(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		if _, lookErr := exec.LookPath("go"); lookErr != nil {
			t.Skip("no go command to list the imports")
		}
		t.Fatalf("go list: %v", err)
	}
	kit := map[string]bool{}
	for _, k := range testKits {
		kit["github.com/rlm-sandbox/rlm/"+k] = true
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if kit[f[0]] || strings.HasPrefix(f[0], "github.com/rlm-sandbox/rlm/scripts/") {
			// A kit may build on another; scripts/ are measuring commands run from a checkout
			// (go run ./scripts/taskbench times the task set's cells), never shipped.
			continue
		}
		for _, imp := range f[1:] {
			if !kit[imp] {
				continue
			}
			arrow := f[0] + " -> " + imp
			seen[arrow] = true
			if _, ok := pendingKitImports[arrow]; !ok {
				t.Errorf("%s: production code links a test kit; move what it needs out of the kit", arrow)
			}
		}
	}
	for arrow, why := range pendingKitImports {
		if !seen[arrow] {
			t.Errorf("%s (%s) is gone: remove it from pendingKitImports", arrow, why)
		}
	}
}
