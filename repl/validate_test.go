package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// validateOptions start a confined worker for Validate.
func validateOptions(lang string) Options {
	return Options{Lang: lang, AllowDegraded: true,
		Worker: WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_REPL_TEST_WORKER=confined"}}}
}

// TestValidate: the validator in a confined worker answers as it does in process: the
// findings, with positions named after the name given.
func TestValidate(t *testing.T) {
	tests := []struct {
		lang, code string
		rule       string // "" = no findings
		pos        string
	}{
		{"js", "const x = [1, 2].map(v => v * 2); print(x)", "", ""},
		{"js", "print(1)\neval('1')", "evaluator", "a.js:2:1"},
		{"go", "import \"os\"\nos.Exit(1)", "import", "a.go:1:8"},
		{"go", "x := 1\n_ = x", "", ""},
		{"go", "x := (", "syntax", "a.go:1:"},
	}
	for _, tt := range tests {
		got, err := Validate(context.Background(), validateOptions(tt.lang), "a."+tt.lang, []byte(tt.code))
		switch {
		case err != nil:
			t.Errorf("%q: %v", tt.code, err)
		case tt.rule == "" && len(got) > 0:
			t.Errorf("%q: %v; want no findings", tt.code, got)
		case tt.rule != "" && (len(got) == 0 || !strings.Contains(string(got[0].Rule), tt.rule) || !strings.HasPrefix(got[0].Pos.String(), tt.pos) || got[0].Message == ""):
			t.Errorf("%q: %v; want a finding of rule %s at %s", tt.code, got, tt.rule, tt.pos)
		}
	}
}

// TestValidateBounded: a source that costs the parser much time or memory is bounded by the
// worker: Validate returns by its deadline, with the findings (the pre-scan refused it) or an
// error of kind timeout (killed at the deadline) or limit (the worker ran out of memory).
func TestValidateBounded(t *testing.T) {
	for name, code := range map[string]string{
		"brackets": "x.in / " + strings.Repeat("(", 130000) + "1 / g",
		"arrows":   "x.in / " + strings.Repeat("a=>", 42000) + "1 / g",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		start := time.Now()
		got, err := Validate(ctx, validateOptions("js"), "cell.js", []byte(code))
		took := time.Since(start)
		cancel()
		switch {
		case took > 7*time.Second:
			t.Errorf("%s: returned after %v; want by the 4 s deadline", name, took)
		case err != nil && !errors.Is(err, fault.Timeout) && !errors.Is(err, fault.Limit):
			t.Errorf("%s: %v; want findings, or a timeout or limit error", name, err)
		case err == nil && len(got) == 0:
			t.Errorf("%s: accepted", name)
		}
		t.Logf("%s after %v: %d findings, error %v", name, took.Round(100*time.Millisecond), len(got), err)
	}
}
