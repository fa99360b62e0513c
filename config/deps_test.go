package config

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/limits"
)

// TestDependencies: reading the configuration links neither interpreter nor the packages that
// run code. config takes its defaults and their descriptions from package limits; before, it
// imported the controller, the REPL, the tools, the sandbox and the engine for them, and so
// linked yaegi and goja into everything that reads a configuration.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	denied := []string{
		"github.com/traefik/yaegi", "github.com/dop251/goja",
		"github.com/rlm-sandbox/rlm/controller", "github.com/rlm-sandbox/rlm/repl", "github.com/rlm-sandbox/rlm/tools",
		"github.com/rlm-sandbox/rlm/sandbox", "github.com/rlm-sandbox/rlm/engine",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, d := range denied {
			if dep == d || strings.HasPrefix(dep, d+"/") {
				t.Errorf("config depends on %s", dep)
			}
		}
	}
}

// TestLimitsAreKeys: every limit package limits describes is a key here, and every key of
// [limits] (and defaults.timeout) is a limit there, with its default and its description.
func TestLimitsAreKeys(t *testing.T) {
	d := Defaults()
	for _, l := range limits.Table {
		s, ok := lookup(l.Key)
		if !ok {
			t.Errorf("limits.Table has %s, which is not a key", l.Key)
			continue
		}
		if s.doc != l.Doc {
			t.Errorf("%s: the key says %q, limits.Table %q", l.Key, s.doc, l.Doc)
		}
		got := reflect.ValueOf(s.field(&d)).Elem()
		if want := reflect.ValueOf(l.Default).Convert(got.Type()); !got.Equal(want) {
			t.Errorf("%s: Defaults has %v, limits.Table %v", l.Key, got, l.Default)
		}
	}
	for _, s := range specs {
		if _, ok := limits.Lookup(s.key); !ok && s.dir != needsTrust {
			t.Errorf("%s is a limit (its direction is %d) but not in limits.Table", s.key, s.dir)
		}
		if s.doc == "" {
			t.Errorf("%s has no description", s.key)
		}
	}
}
