package record

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRecordImportsNoPhase: the records package imports none of the phases whose events it
// records (the controller, the REPL, the worker, the engines): the arrow goes from them to it.
func TestRecordImportsNoPhase(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", "github.com/rlm-sandbox/rlm/internal/record").Output()
	if err != nil {
		if _, lookErr := exec.LookPath("go"); lookErr != nil {
			t.Skip("no go command to list the imports")
		}
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		for _, phase := range []string{"controller", "repl", "worker", "engine"} {
			if p := "github.com/rlm-sandbox/rlm/" + phase; imp == p || strings.HasPrefix(imp, p+"/") {
				t.Errorf("internal/record imports %s", imp)
			}
		}
	}
}
