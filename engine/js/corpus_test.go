package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

func jsCases(t *testing.T, escape bool) []corpus.Case {
	t.Helper()
	all, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []corpus.Case
	for _, c := range all {
		if c.Lang == "js" && c.Escape == escape {
			out = append(out, c)
		}
	}
	return out
}

// checkBenign runs a benign case through the validator and e, and compares with its header.
func checkBenign(t *testing.T, e *Engine, c corpus.Case) bool {
	t.Helper()
	res, err := validator.Validate(source.JS, c.Name, c.Source, validator.Policy{})
	if err != nil || res.Err() != nil || res.JS == nil {
		t.Errorf("%s: validator: %v %v", c.Name, err, res.Err())
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := e.Exec(ctx, res.JS)
	ok := true
	if r.Err != nil {
		t.Errorf("%s: %v\nstdout: %s", c.Name, r.Err, r.Stdout)
		ok = false
	}
	if got := strings.TrimSuffix(r.Stdout, "\n"); c.Want != "" && got != c.Want {
		t.Errorf("%s: printed\n%s\nwant\n%s", c.Name, got, c.Want)
		ok = false
	}
	if c.Final != "" {
		if r.Final == nil || r.Final.Value != c.Final {
			t.Errorf("%s: final %v, want %q", c.Name, r.Final, c.Final)
			ok = false
		}
	}
	return ok
}

// TestBenignCorpus is the acceptance test: every benign JS case, validated and run in a fresh
// engine over the sample context, prints its want and answers its final.
func TestBenignCorpus(t *testing.T) {
	cases := jsCases(t, false)
	pass := 0
	for _, c := range cases {
		e, _ := newEngine(t, Config{})
		if checkBenign(t, e, c) {
			pass++
		}
	}
	t.Logf("benign JS corpus: %d/%d pass", pass, len(cases))
}

// TestBenignCorpusOneSession runs every benign case, in order, in one session: cells that
// declare the same top-level names must not disturb each other.
func TestBenignCorpusOneSession(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, c := range jsCases(t, false) {
		checkBenign(t, e, c)
	}
	if len(e.Vars()) == 0 {
		t.Error("Vars() is empty after the whole corpus")
	}
}
