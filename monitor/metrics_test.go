package monitor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func ln(p float64) float64 { return math.Log(p) }

// bits of -Σ p log2 p.
func bits(ps ...float64) float64 {
	h := 0.0
	for _, p := range ps {
		h -= p * math.Log2(p)
	}
	return h
}

func TestEntropyBits(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		chosen     float64
		top        []float64
		want       float64
		wantListed int
		wantOK     bool
	}{
		{"complete two-way", ln(.5), []float64{ln(.5), ln(.5)}, 1, 2, true},
		{"complete uniform four", ln(.25), []float64{ln(.25), ln(.25), ln(.25), ln(.25)}, 2, 4, true},
		// m = .5, p_k = .5: .5 bit listed + .5·log2(1/.5) missing.
		{"missing mass bounded by p_k", ln(.5), []float64{ln(.5)}, 1, 1, true},
		// m = .5, p_k = .1: the missing mass is at least .5·log2(1/.1).
		{"missing mass large", ln(.4), []float64{ln(.4), ln(.1)}, bits(.4, .1) + .5*math.Log2(10), 2, true},
		// m = .05 < p_k = .3: the missing mass is at least .05·log2(1/.05).
		{"missing mass bounded by m", ln(.65), []float64{ln(.65), ln(.3)}, bits(.65, .3) + .05*math.Log2(20), 2, true},
		{"OpenAI -9999 padding ignored", ln(.5), []float64{ln(.5), -9999, -9999}, 1, 1, true},
		{"NaN and Inf ignored", ln(.5), []float64{nan, ln(.5), math.Inf(1), math.Inf(-1)}, 1, 1, true},
		{"chosen token outside top-k is added", ln(.05), []float64{ln(.6), ln(.3)},
			bits(.6, .3, .05) + .05*math.Log2(20), 2, true},
		{"order does not matter", ln(.1), []float64{ln(.1), ln(.4)}, bits(.4, .1) + .5*math.Log2(10), 2, true},
		{"positive rounding noise is probability 1", 1e-7, []float64{1e-7}, 0, 1, true},
		{"no top-k: surprisal of the chosen token", ln(.25), nil, 2, 0, true},
		{"no top-k, chosen -9999", -9999, nil, 0, 0, false},
		{"nothing usable", nan, []float64{-9999}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, listed, ok := entropyBits(tt.chosen, tt.top)
			if ok != tt.wantOK || listed != tt.wantListed || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("entropyBits(%v, %v) = %v, %d, %v; want %v, %d, %v",
					tt.chosen, tt.top, got, listed, ok, tt.want, tt.wantListed, tt.wantOK)
			}
		})
	}
}

// TestEntropyBitsIsALowerBound checks the bound against the true entropy of
// random Zipf-like distributions, and that it beats renormalising the top-k.
func TestEntropyBitsIsALowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 200; i++ {
		a := 0.6 + 3*r.Float64()
		ps := make([]float64, 500)
		z := 0.0
		for j := range ps {
			ps[j] = math.Pow(float64(j+1), -a) * (0.5 + r.Float64())
			z += ps[j]
		}
		var top []float64
		trueH := 0.0
		for j := range ps {
			ps[j] /= z
			trueH -= ps[j] * math.Log2(ps[j])
		}
		sorted := append([]float64(nil), ps...)
		sortDesc(sorted)
		k := []int{1, 5, 10, 20}[i%4]
		renorm, sum := 0.0, 0.0
		for _, p := range sorted[:k] {
			top = append(top, ln(p))
			sum += p
		}
		for _, p := range sorted[:k] {
			renorm -= p / sum * math.Log2(p/sum)
		}
		got, _, _ := entropyBits(top[0], top)
		if got > trueH+1e-9 {
			t.Fatalf("a=%.2f k=%d: bound %.4f exceeds the true entropy %.4f", a, k, got, trueH)
		}
		if got < renorm-1e-9 {
			t.Fatalf("a=%.2f k=%d: bound %.4f below the renormalised estimate %.4f", a, k, got, renorm)
		}
	}
}

func sortDesc(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] > xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func TestNgramRatio(t *testing.T) {
	words := func(s string) []string { return strings.Fields(s) }
	distinct := make([]string, 100)
	for i := range distinct {
		distinct[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	tests := []struct {
		name   string
		n      int
		tokens []string
		want   float64
	}{
		{"all distinct", 3, distinct, 0},
		{"period 2 over 66 tokens: 2 distinct of 64 trigrams", 3, words(strings.Repeat("a b ", 33)), 1 - 2.0/64},
		{"period 3 trigrams", 3, words(strings.Repeat("a b c ", 30)), 1 - 3.0/64},
		{"window not full: 4 tokens, 2 trigrams, 1 distinct", 3, words("x x x x"), 0.5},
		{"bigrams of a b a b a", 2, words("a b a b a"), 1 - 2.0/4},
		{"4-grams never repeat in 'a b c a b d'", 4, words("a b c a b d"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c ngramCounter
			c.init(tt.n)
			for _, w := range tt.tokens {
				c.push(hashString(w))
			}
			if got := c.ratio(); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ratio = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNgramCounterMatchesMap drives the open-addressing table with many
// insertions and deletions and compares it with a map.
func TestNgramCounterMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c ngramCounter
	c.init(2)
	var hist []uint64
	for i := 0; i < 20000; i++ {
		h := uint64(r.IntN(40)) // few symbols: many collisions and deletions
		c.push(h)
		hist = append(hist, h)
		if len(hist) < 2 {
			continue
		}
		grams := map[[2]uint64]bool{}
		lo := max(1, len(hist)-ngramWindow)
		for j := lo; j < len(hist); j++ {
			grams[[2]uint64{hist[j-1], hist[j]}] = true
		}
		if want := len(grams); c.distinct != want {
			t.Fatalf("step %d: distinct = %d, want %d", i, c.distinct, want)
		}
	}
}

// surprisalToken is a token with only its own logprob: s bits of surprisal.
func surprisalToken(text string, s float64) Token {
	return Token{Text: text, Logprob: -s * math.Ln2, HasLogprobs: true}
}

func TestPerplexityTrend(t *testing.T) {
	tests := []struct {
		name           string
		before, recent float64 // surprisal bits of 40 tokens, then of 20
		wantPPL        float64
		wantTrend      float64
	}{
		{"flat", 2, 2, 4, 0},
		{"rising: ppl 2 -> 8", 1, 3, 8, 2},
		{"falling: ppl 8 -> 2 (a loop settling)", 3, 1, 2, -2},
		{"clipped at twice the entropy threshold", 1, 12, 256, 7}, // 12 bits clipped to 8
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{MinTokensBeforeAbort: 1000}, 0)
			for i := 0; i < 60; i++ {
				s := tt.before
				if i >= 40 {
					s = tt.recent
				}
				m.Observe(surprisalToken(string(rune('a'+i%26))+string(rune('a'+i/26)), s))
			}
			got := m.Metrics()
			if math.Abs(got.Perplexity-tt.wantPPL) > 1e-9 || math.Abs(got.PerplexityTrendBits-tt.wantTrend) > 1e-9 {
				t.Errorf("perplexity %v trend %v, want %v and %v", got.Perplexity, got.PerplexityTrendBits,
					tt.wantPPL, tt.wantTrend)
			}
		})
	}
}
