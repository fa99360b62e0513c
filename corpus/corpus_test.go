package corpus_test

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/corpus"
)

func TestLoadParsesEveryHeader(t *testing.T) {
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases loaded")
	}
	for _, c := range cases {
		if c.Escape && c.Class == "" || !c.Escape && !c.HasWant() {
			t.Errorf("%s: header not parsed: %+v", c.Name, c)
		}
	}
}

func TestContextSample(t *testing.T) {
	b, err := corpus.Context("sample")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(b), "\n"), 121; got != want {
		t.Errorf("sample.txt has %d lines, want %d", got, want)
	}
}

func TestRender(t *testing.T) {
	c := corpus.Case{Source: []byte(`read("@@CANARY@@"); dial("@@ADDR@@")`)}
	got := string(c.Render(map[string]string{"CANARY": "/tmp/s", "ADDR": "127.0.0.1:9"}))
	if want := `read("/tmp/s"); dial("127.0.0.1:9")`; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}
