//go:build linux && !rlm_portable

package repl

import (
	"context"
	"strings"
	"testing"
)

// TestConfinedWorker runs the real engine in a fully confined worker: the layers are applied,
// the context is readable, and a cell reads it through the tools.
func TestConfinedWorker(t *testing.T) {
	s := open(t, confinedOptions(t, "js"))
	iso := s.Isolation()
	t.Logf("isolation: %s\n%s", iso.Verdict, strings.Join(iso.Layers, "\n"))
	if !strings.HasPrefix(iso.Verdict, "full") && !strings.HasPrefix(iso.Verdict, "degraded") {
		t.Fatalf("verdict %q: the sandbox layers were not applied", iso.Verdict)
	}
	r := s.Exec(context.Background(), `print(length(context), count(context, "ERROR"))`)
	if r.Err != nil || strings.TrimSpace(r.Stdout) != "7362 9" {
		t.Fatalf("cell in a confined worker: %q %v", r.Stdout, r.Err)
	}
}
