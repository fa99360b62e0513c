package engine_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rlm-sandbox/rlm"

// TestEnginesDoNotImportTheValidator: no engine package (engine, engine/golang and its type
// checker, engine/js, engine/internal/...) depends on package validator, directly or through
// another package, on Linux or macOS. The engines run the units package source parsed; the
// validator is the layer above them, and each layer must hold on its own. Their tests may still
// use the validator: only what the engines link counts.
func TestEnginesDoNotImportTheValidator(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		graph := importGraph(t, goos, module+"/engine/...")
		for pkg := range graph {
			if !strings.HasPrefix(pkg, module+"/engine") {
				continue
			}
			if chain := importChain(graph, pkg, module+"/validator"); chain != nil {
				t.Errorf("GOOS=%s: %s imports the validator: %s", goos, pkg, strings.Join(chain, " -> "))
			}
		}
	}
}

// TestImportChain: the check above finds an arrow however far down it is, and only then.
func TestImportChain(t *testing.T) {
	graph := map[string][]string{
		"engine/js": {"source", "engine"}, "engine": {"fault", "x"}, "x": {"validator"},
		"source": {"fault"}, "fault": nil, "validator": {"source"},
	}
	if got := strings.Join(importChain(graph, "engine/js", "validator"), " -> "); got != "engine/js -> engine -> x -> validator" {
		t.Errorf("chain = %q", got)
	}
	if got := importChain(graph, "source", "validator"); got != nil {
		t.Errorf("source: chain = %q, want none", got)
	}
}

// importGraph lists the packages patterns depend on, with their imports (go list -deps).
func importGraph(t *testing.T, goos string, patterns ...string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=arm64")
	out, err := cmd.Output()
	if err != nil {
		if _, lookErr := exec.LookPath("go"); lookErr != nil {
			t.Skip("no go command to list the dependencies")
		}
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		graph[f[0]] = f[1:]
	}
	return graph
}

// importChain returns a shortest chain of imports from one package to another, or nil.
func importChain(graph map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range graph[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
