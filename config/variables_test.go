package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestUnknownVariables: a variable named like rlm's that rlm does not read draws one warning,
// with the nearest variable rlm reads when one is near; the variables rlm reads, the test
// suite's and everything else draw none, and no value is quoted.
func TestUnknownVariables(t *testing.T) {
	environ := []string{
		"RLM_TIMEOUT=10m", "RLM_MAX_CALL=5", "SFA_MODEL=big", "RLM_MAX_DEPTH=3", "rlm_home=/x",
		"RLM_CELLTIMEOUT=1s", "RLM_KEY=sk-secret", "RLM_FROBNICATE=1",
		"RLM_MODEL=m", "SFA_DEFAULTS_TIMEOUT=1h", "RLM_HOME=/h", "RLM_MCP_TOKEN=t", "SFA_DEPTH=2",
		"RLM_TEST_CACHE=/c", "HOME=/root", "PATH=/bin", "RLMX=1", "RLM_EMPTY=", "RLM_BLANK= ", "RLM_MODLE=m",
	}
	want := []string{
		"RLM_CELLTIMEOUT is not a variable rlm reads, and is ignored: did you mean RLM_CELL_TIMEOUT (limits.cell_timeout: ",
		"RLM_FROBNICATE is not a variable rlm reads, and is ignored (rlm config --keys lists the variables rlm reads)",
		"RLM_KEY is not a variable rlm reads, and is ignored: did you mean RLM_API_KEY (the default backend's API key",
		"RLM_MAX_CALL is not a variable rlm reads, and is ignored: did you mean RLM_MAX_CALLS (limits.max_calls: ",
		"RLM_MAX_DEPTH is not a variable rlm reads, and is ignored: did you mean SFA_MAX_DEPTH (the deepest --max-depth",
		"RLM_MODLE is not a variable rlm reads, and is ignored: did you mean RLM_MODEL (defaults.model: ",
		"RLM_TIMEOUT is not a variable rlm reads, and is ignored: did you mean SFA_DEFAULTS_TIMEOUT (defaults.timeout: wall clock of a whole run)?",
		"SFA_MODEL is not a variable rlm reads, and is ignored: did you mean RLM_MODEL (defaults.model: ",
		"rlm_home is not a variable rlm reads, and is ignored: did you mean RLM_HOME (the directory of rlm's",
	}
	got := UnknownVariables(environ)
	if len(got) != len(want) {
		t.Fatalf("got %d warnings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d:\n got  %s\n want %s…", i, got[i], want[i])
		}
		if strings.Contains(got[i], "sk-secret") || strings.Contains(got[i], "10m") {
			t.Errorf("warning %d quotes a value: %s", i, got[i])
		}
	}
}

// TestVariablesAreListed: every name of the form RLM_X or SFA_X the code spells (outside tests
// and the lists themselves) is a variable Variables lists, so that UnknownVariables never warns
// about one rlm reads; and every variable of envVars is spelled by the code that reads it, so
// the list holds none rlm no longer reads.
func TestVariablesAreListed(t *testing.T) {
	notVariables := []string{"RLM_JOBS", "RLM_RESULTS"} // batch's JetStream stream names
	listed := map[string]bool{}
	for _, v := range Variables() {
		listed[v.Name] = true
	}
	spelled := map[string]string{}
	name := regexp.MustCompile(`^(RLM|SFA)_[A-Z0-9_]*[A-Z0-9]$`)
	lists := []string{filepath.Join("..", "config", "keys.go"), filepath.Join("..", "config", "variables.go")}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || slices.Contains(lists, path):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && name.MatchString(s) {
					spelled[s] = path
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for s, path := range spelled {
		if !listed[s] && !slices.Contains(notVariables, s) {
			t.Errorf("%s (spelled in %s) is not in config's list of variables (envVars in variables.go)", s, path)
		}
	}
	for _, v := range envVars {
		if _, ok := spelled[v.name]; !ok {
			t.Errorf("%s is listed, but no code spells it: does rlm still read it?", v.name)
		}
	}
}
