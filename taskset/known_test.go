package taskset

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const knownHeader = `# Cells of the taskset corpus that do not pass today, one per line: LANG TASK: MESSAGE.
# A cell not listed here must pass; a listed cell must fail with exactly this message.
# TestModelCells checks this file; after a change that fixes or breaks a cell, rewrite it with
#   go test ./taskset -run TestModelCells -update
`

// readKnown parses the known-failures file into "LANG TASK" → message.
func readKnown(t *testing.T) map[string]string {
	b, err := os.ReadFile(knownFile)
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, msg, ok := strings.Cut(line, ": ")
		if !ok || len(strings.Fields(k)) != 2 {
			t.Fatalf("%s:%d: want \"LANG TASK: MESSAGE\", got %q", knownFile, i+1, line)
		}
		known[k] = msg
	}
	return known
}

// checkKnown compares the outcomes with the known failures, or rewrites the file with -update.
// A run of the quick subset checks, and rewrites, only the entries of the cells it ran.
func checkKnown(t *testing.T, cells []*cell, all bool) {
	known := readKnown(t)
	ran := map[string]bool{}
	for _, c := range cells {
		ran[c.key()] = true
	}
	if *update {
		for k := range known {
			if ran[k] || all {
				delete(known, k)
			}
		}
		for _, c := range cells {
			if c.msg != "" {
				known[c.key()] = c.msg
			}
		}
		writeKnown(t, known)
		return
	}
	for _, c := range cells {
		want, listed := known[c.key()]
		switch {
		case c.msg == "" && listed:
			t.Errorf("%s passes now; it is listed as failing with: %s (rewrite %s with -update)", c.key(), want, knownFile)
		case c.msg != "" && !listed:
			t.Errorf("%s fails: %s", c.key(), c.msg)
		case c.msg != want:
			t.Errorf("%s fails differently:\n  now:   %s\n  known: %s", c.key(), c.msg, want)
		}
	}
	if all {
		for k := range known {
			if !ran[k] {
				t.Errorf("%s: %s lists a cell that does not exist", k, knownFile)
			}
		}
	}
}

func writeKnown(t *testing.T, known map[string]string) {
	keys := make([]string, 0, len(known))
	for k := range known {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(knownHeader)
	for _, k := range keys {
		b.WriteString(k + ": " + known[k] + "\n")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(knownFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
