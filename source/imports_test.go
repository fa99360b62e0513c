package source_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyBelowIt: package source, the first phase, depends on no package of rlm but
// fault and limits (both leaves): not on the validator, the engines or anything that runs code (go list -deps ./source).
func TestImportsOnlyBelowIt(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/rlm-sandbox/rlm/source").Output()
	if err != nil {
		if _, lookErr := exec.LookPath("go"); lookErr != nil {
			t.Skip("no go command to list the dependencies")
		}
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{"github.com/rlm-sandbox/rlm/source": true, "github.com/rlm-sandbox/rlm/fault": true, "github.com/rlm-sandbox/rlm/limits": true}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/rlm-sandbox/rlm/") && !allowed[d] {
			t.Errorf("source depends on %s", d)
		}
	}
}
