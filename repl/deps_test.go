package repl

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// engines are the packages the parent must never link (a path, or a prefix ending in /): the
// engines, the interpreters and the worker's side of the protocol. Model code runs only in the
// worker; the parent's Session speaks to it through package wire.
var engines = []string{
	"github.com/rlm-sandbox/rlm/engine/golang",
	"github.com/rlm-sandbox/rlm/engine/golang/",
	"github.com/rlm-sandbox/rlm/engine/js",
	"github.com/rlm-sandbox/rlm/engine/internal/",
	"github.com/rlm-sandbox/rlm/worker",
	"github.com/traefik/yaegi/",
	"github.com/dop251/goja", // the runtime; its parser (goja/parser, /ast) comes with validator's findings type
	"github.com/dlclark/regexp2/",
}

// TestImportsNoEngine: package repl, the parent's Session, depends on no engine, for Linux and
// macOS (go list -deps ./repl).
func TestImportsNoEngine(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/rlm-sandbox/rlm/repl")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			if _, lookErr := exec.LookPath("go"); lookErr != nil {
				t.Skip("no go command to list the dependencies")
			}
			t.Fatalf("go list: %v", err)
		}
		for _, d := range strings.Fields(string(out)) {
			for _, e := range engines {
				if d == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(d, e)) {
					t.Errorf("GOOS=%s: repl depends on %s; the parent must not link an engine", goos, d)
				}
			}
		}
	}
}
