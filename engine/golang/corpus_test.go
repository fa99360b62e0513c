package golang

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/corpus"
)

// TestBenignCorpus is the acceptance test: every benign Go program of the corpus runs through the
// validator and a fresh engine and must print its want: and record its final:.
func TestBenignCorpus(t *testing.T) {
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	total, pass := 0, 0
	for _, c := range cases {
		if c.Lang != "go" || c.Escape {
			continue
		}
		total++
		t.Run(strings.TrimSuffix(strings.TrimPrefix(c.Name, "go/benign/"), ".go.txt"), func(t *testing.T) {
			s := newTestSession(t, Config{}, c.Ctx)
			r := s.run(string(c.Source))
			got := strings.TrimSuffix(r.Stdout, "\n")
			ok := r.Err == nil && (c.Want == "" || got == c.Want)
			if c.Final != "" {
				ok = ok && r.Final != nil && r.Final.Value == c.Final
			}
			if !ok {
				t.Errorf("%s\n got: %s\nwant: stdout=%q final=%q", c.Name, describe(r), c.Want, c.Final)
				return
			}
			pass++
		})
	}
	t.Logf("benign Go corpus: %d of %d pass", pass, total)
}
