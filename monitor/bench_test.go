package monitor

import (
	"testing"
)

// benchStream returns a long healthy stream (with or without logprobs) that
// never aborts, so every Observe runs every detector.
func benchStream(b *testing.B, logprobs bool) []Token {
	b.Helper()
	streams, err := loadFixtures(fixtureLogprobs)
	if err != nil {
		b.Fatal(err)
	}
	var out []Token
	for _, s := range streams {
		if s.Degenerate || len(s.Tokens[0].TopLogprobs) != 20 {
			continue
		}
		for _, t := range s.Tokens {
			if !logprobs {
				t = Token{Text: t.Text}
			}
			out = append(out, t)
		}
	}
	return out
}

func benchmarkObserve(b *testing.B, logprobs bool) {
	toks := benchStream(b, logprobs)
	b.ReportAllocs()
	m := New(Config{}, 0)
	i := 0
	for b.Loop() {
		if i == len(toks) {
			m, i = New(Config{}, 0), 0
		}
		if v := m.Observe(toks[i]); v.Abort {
			b.Fatalf("benchmark stream aborted: %+v", v)
		}
		i++
	}
}

// BenchmarkObserve/logprobs uses top-20 logprobs; /text has none.
func BenchmarkObserve(b *testing.B) {
	b.Run("logprobs", func(b *testing.B) { benchmarkObserve(b, true) })
	b.Run("text", func(b *testing.B) { benchmarkObserve(b, false) })
}
