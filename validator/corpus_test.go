package validator_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

func loadCorpus(t testing.TB) []corpus.Case {
	t.Helper()
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func validate(t testing.TB, c corpus.Case) *validator.Result {
	t.Helper()
	lang, err := source.ParseLang(c.Lang)
	if err != nil {
		t.Fatal(err)
	}
	res, err := validator.Validate(lang, c.Name, c.Source, validator.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorpusEscapesRejected: every escape is rejected by the validator alone, with a finding of
// its class (and of its rule, when the header names one).
func TestCorpusEscapesRejected(t *testing.T) {
	perClass := map[string]int{}
	for _, c := range loadCorpus(t) {
		if !c.Escape || c.Expect != "reject" {
			continue
		}
		res := validate(t, c)
		if !hasFinding(res.Findings, c.Class, c.Rule) {
			t.Errorf("%s: want a %s finding (rule %q), got %v", c.Name, c.Class, c.Rule, res.Findings)
			continue
		}
		perClass[c.Class]++
	}
	t.Logf("escapes rejected per class: %s", formatCounts(perClass))
}

// TestCorpusBenignAccepted: every benign program passes and yields a unit to execute.
func TestCorpusBenignAccepted(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		if c.Escape {
			continue
		}
		res := validate(t, c)
		if len(res.Findings) > 0 {
			t.Errorf("%s: benign program rejected: %v", c.Name, res.Findings)
			continue
		}
		if res.Go == nil && res.JS == nil {
			t.Errorf("%s: accepted but no parsed unit returned", c.Name)
		}
		n++
	}
	t.Logf("benign programs accepted: %d", n)
}

// TestCorpusCoverage holds the corpus to the minimums: 150 escapes (60+ per language), 80 benign
// programs, and every class of the taxonomy.
func TestCorpusCoverage(t *testing.T) {
	count := map[string]int{}
	classes := map[string]int{}
	for _, c := range loadCorpus(t) {
		kind := "benign"
		if c.Escape {
			kind = "escape"
			classes[c.Class]++
		}
		if c.Expect == "contain" {
			kind = "contain"
		}
		count[c.Lang+"/"+kind]++
	}
	for _, check := range []struct {
		what string
		got  int
		min  int
	}{
		{"Go escapes", count["go/escape"], 60},
		{"JS escapes", count["js/escape"], 60},
		{"escapes", count["go/escape"] + count["js/escape"], 150},
		{"benign programs", count["go/benign"] + count["js/benign"], 80},
	} {
		if check.got < check.min {
			t.Errorf("%s: %d, want at least %d", check.what, check.got, check.min)
		}
	}
	for i := 1; i <= 12; i++ {
		if classes[fmt.Sprintf("G%d", i)] == 0 {
			t.Errorf("class G%d has no escape case", i)
		}
	}
	for i := 1; i <= 15; i++ {
		if classes[fmt.Sprintf("J%d", i)] == 0 {
			t.Errorf("class J%d has no escape case", i)
		}
	}
	t.Logf("corpus: %v; per class: %s", count, formatCounts(classes))
}

func hasFinding(l source.List, class, rule string) bool {
	for _, f := range l {
		if f.Class == class && (rule == "" || string(f.Rule) == rule) {
			return true
		}
	}
	return false
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d ", k, m[k])
	}
	return strings.TrimSpace(b.String())
}
