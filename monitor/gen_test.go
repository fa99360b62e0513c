package monitor

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
)

var update = flag.Bool("update", false, "rewrite the fixtures under testdata/")

const (
	fixtureLogprobs = "testdata/streams_logprobs.jsonl"
	fixtureText     = "testdata/streams_text.jsonl"
)

// TestGenerateFixtures regenerates the labelled streams. With -update it
// writes them; without, it checks that the committed files are exactly what
// the generator produces (the generator is deterministic: PCG seeds).
func TestGenerateFixtures(t *testing.T) {
	for _, f := range []struct {
		path     string
		seed     uint64
		logprobs bool
	}{{fixtureLogprobs, 1, true}, {fixtureText, 2, false}} {
		got := encodeFixtures(generateStreams(f.seed, f.logprobs))
		if *update {
			if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", f.path, len(got))
			continue
		}
		want, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatalf("%v (run: go test ./monitor -run TestGenerateFixtures -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale or the generator is not deterministic; rerun with -update", f.path)
		}
	}
}

// genTok is a generated token with the entropy (bits) of the distribution it
// is pretended to be sampled from.
type genTok struct {
	text string
	h    float64
}

// lpModel turns a target entropy into Zipf-shaped top-k logprobs: the next
// token distribution is q_i ∝ i^-a over a 2000-token vocabulary, with a
// chosen from a precomputed grid so that the entropy matches.
type lpModel struct {
	rows []zipfRow
}

type zipfRow struct {
	a, lnZ, ent float64 // exponent, log normaliser, entropy in bits
	cdf         []float64
}

const zipfVocab = 2000

func newLPModel() *lpModel {
	m := &lpModel{}
	const n = 300
	for j := 0; j < n; j++ {
		a := 0.4 * math.Pow(16/0.4, float64(j)/(n-1))
		z := 0.0
		for i := 1; i <= zipfVocab; i++ {
			z += math.Pow(float64(i), -a)
		}
		row := zipfRow{a: a, lnZ: math.Log(z), cdf: make([]float64, zipfVocab)}
		acc, h := 0.0, 0.0
		for i := 1; i <= zipfVocab; i++ {
			lq := -a*math.Log(float64(i)) - row.lnZ
			acc += math.Exp(lq)
			h -= math.Exp(lq) * lq
			row.cdf[i-1] = acc
		}
		row.ent = h / math.Ln2
		m.rows = append(m.rows, row)
	}
	return m
}

// row returns the grid row whose entropy is closest to h (bits).
func (m *lpModel) row(h float64) *zipfRow {
	i := sort.Search(len(m.rows), func(i int) bool { return m.rows[i].ent <= h })
	if i == len(m.rows) {
		i--
	}
	if i > 0 && math.Abs(m.rows[i-1].ent-h) < math.Abs(m.rows[i].ent-h) {
		i--
	}
	return &m.rows[i]
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// sample fills a Token's logprobs for a token drawn from the distribution of
// entropy h, reporting the top k (k = 0: only the chosen logprob). openai
// pads some positions with -9999, as that API does outside its top 20.
func (m *lpModel) sample(r *rand.Rand, h float64, k int, openai bool) (lp float64, top []float64) {
	row := m.row(h)
	rank := sort.SearchFloat64s(row.cdf, r.Float64()*row.cdf[zipfVocab-1]) + 1
	lp = round2(-row.a*math.Log(float64(rank)) - row.lnZ)
	for i := 1; i <= k; i++ {
		v := round2(-row.a*math.Log(float64(i)) - row.lnZ)
		if openai && i > k-3 && r.Float64() < 0.1 {
			v = -9999
		}
		top = append(top, v)
	}
	if openai && rank > k && r.Float64() < 0.2 {
		lp = -9999 // the API lost the chosen token's logprob too
	}
	return lp, top
}

// classify assigns a target entropy to a healthy token: whitespace and
// punctuation are predictable, continuations of a word nearly certain,
// known words moderate, new content words higher, numbers and names high.
func classify(r *rand.Rand, tok, prev string, seen map[string]bool) float64 {
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	word := strings.TrimLeft(tok, " ")
	switch {
	case strings.TrimFunc(tok, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsPunct(c) || unicode.IsSymbol(c) }) == "":
		return u(0, 0.6)
	case !strings.HasPrefix(tok, " ") && prev != "" && isLetterByte(prev[len(prev)-1]) && isLetterByte(tok[0]):
		return u(0, 0.4)
	case word != "" && word[0] >= '0' && word[0] <= '9':
		return u(2, 5)
	case seen[word]:
		return u(0.2, 1.6)
	case word != "" && word[0] >= 'A' && word[0] <= 'Z':
		seen[word] = true
		return u(2.5, 5.5)
	default:
		seen[word] = true
		return u(0.8, 3.5)
	}
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }

// healthy returns n tokens of one kind of healthy text.
func healthy(r *rand.Rand, kind string, n int) []genTok {
	g := &textGen{r: r}
	var text string
	switch kind {
	case "prose":
		text = g.prose(8 * n)
	case "code":
		text = g.code(6 * n)
	case "json":
		text = g.json(6 * n)
	default:
		text = g.markdown(8 * n)
	}
	seen := map[string]bool{}
	var out []genTok
	prev := ""
	for _, s := range pretokenize(text) {
		out = append(out, genTok{s, classify(r, s, prev, seen)})
		prev = s
	}
	return out[:min(n, len(out))]
}

var healthyKinds = []string{"prose", "code", "json", "markdown"}

// loop returns onset healthy tokens followed by a loop of period p whose
// body is the healthy continuation. The first copy keeps its entropy; later
// copies decay toward zero (loops reinforce themselves), except the token
// where the model first decides to repeat.
func loop(r *rand.Rand, kind string, onset, p, n int) []genTok {
	base := healthy(r, kind, onset+p)
	out := base[:onset+p]
	decay := 0.35 + 0.25*r.Float64()
	for c := 1; len(out) < n; c++ {
		for i := 0; i < p && len(out) < n; i++ {
			t := base[onset+i]
			if c > 2 || (c == 2 && i > 0) {
				t.h = max(t.h*math.Pow(decay, float64(c-1)), 0.01+0.05*r.Float64())
			}
			out = append(out, t)
		}
	}
	return out
}

// confused returns onset healthy tokens then gibberish: "flat" at once,
// "drift" over 120 tokens, "erratic" as frequent spikes in healthy text.
func confused(r *rand.Rand, kind string, onset, n int) []genTok {
	g := &textGen{r: r}
	base := healthy(r, healthyKinds[r.IntN(len(healthyKinds))], n)
	out := base[:onset]
	for i := onset; i < n; i++ {
		junk := genTok{g.junk(), 4.5 + 3.5*r.Float64()}
		switch kind {
		case "flat":
			out = append(out, junk)
		case "drift":
			if f := float64(i-onset) / 120; r.Float64() < f {
				out = append(out, junk)
			} else {
				t := base[i%len(base)]
				t.h += 3 * min(f, 1)
				out = append(out, t)
			}
		default: // erratic
			if r.Float64() < 0.45 {
				junk.h = 6 + 2*r.Float64()
				out = append(out, junk)
			} else {
				out = append(out, base[i%len(base)])
			}
		}
	}
	return out
}

// nearLoop returns onset healthy prose then a reasoning loop that is not
// exact: one sentence keeps coming back between short fillers that change
// (different numbers), as in "Let me re-check X. The total is 41. Let me
// re-check X. Hmm, 17." The repeated sentence's entropy decays; fillers
// keep a new number each time.
func nearLoop(r *rand.Rand, onset, n int) []genTok {
	g := &textGen{r: r}
	out := healthy(r, "prose", onset)
	var again []genTok
	for _, s := range pretokenize(" Let me re-check " + g.sentence()) {
		again = append(again, genTok{s, 0.5 + r.Float64()})
	}
	for c := 1; len(out) < n; c++ {
		for _, t := range again {
			t.h = max(t.h*math.Pow(0.5, float64(c-1)), 0.02)
			out = append(out, t)
		}
		filler := []string{" The total is %d.", " Hmm, %d.", " So %d again?", " Wait, that gives %d."}[r.IntN(4)]
		for _, s := range pretokenize(fmt.Sprintf(filler, r.IntN(1000))) {
			h := 0.3 * r.Float64()
			if s[0] >= '0' && s[0] <= '9' || len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
				h = 2 + 2*r.Float64()
			}
			out = append(out, genTok{s, h})
		}
	}
	return out[:n]
}
