package replay

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
)

// Token is one streamed token with its logprob (a natural log) and its top alternatives, the
// token itself first.
type Token struct {
	Text    string
	Logprob float64
	Top     []Alt
}

// Alt is one alternative of a token's top list.
type Alt struct {
	Text    string
	Logprob float64
}

// tokenRE is compiled on first use: the package is linked into rlm, and a compile at init would
// cost every worker start.
var tokenRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[ \t]*[\p{L}\p{N}_]+|[ \t]*[^\s\p{L}\p{N}_]|\r?\n|[^\S\n]+`)
})

// Split splits text into the tokens a replay streams: words and numbers with their leading
// spaces, single punctuation marks with theirs, line breaks, and other runs of white space.
// Joining the tokens gives the text back.
func Split(text string) []string { return tokenRE().FindAllString(text, -1) }

// altWords fill the top lists.
var altWords = strings.Fields("the a of to and in is that it for on with as be by this are or from at an which not was but have were can has its also one more than")

// NewRand is a generator seeded by a string: the same seed draws the same logprobs.
func NewRand(seed string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// Tokens splits text into tokens with fluent logprobs and k alternatives each, drawn from r.
func Tokens(r *rand.Rand, text string, k int) []Token {
	words := Split(text)
	out := make([]Token, len(words))
	for i, w := range words {
		out[i].Text = w
		Fluent(r, &out[i], k, 0)
	}
	return out
}

// Fluent fills t's logprob and top list as a fluent model's: the token is likely (p 0.7–0.98,
// for one token in five 0.25–0.6), the rest of the mass decays geometrically over k-1
// alternatives and a tenth of it is left unlisted (about 1 bit per token). sharp, from 0 to 1,
// pushes the token towards certainty (a loop grows surer with every copy).
func Fluent(r *rand.Rand, t *Token, k int, sharp float64) {
	p0 := 0.7 + 0.28*r.Float64()
	if r.IntN(5) == 0 {
		p0 = 0.25 + 0.35*r.Float64()
	}
	p0 += (0.995 - p0) * sharp
	fillTop(r, t, k, p0, 0.9, 0.6)
}

// fillTop lists the token with probability p0, then k-1 alternatives sharing listed·(1−p0)
// with ratio decay.
func fillTop(r *rand.Rand, t *Token, k int, p0, listed, decay float64) {
	t.Logprob = math.Log(p0)
	t.Top = append(t.Top[:0], Alt{t.Text, t.Logprob})
	if k <= 1 {
		return
	}
	norm := (1 - math.Pow(decay, float64(k-1))) / (1 - decay)
	mass := (1 - p0) * listed / norm
	for i := 1; i < k; i++ {
		p := mass * math.Pow(decay, float64(i-1))
		w := altWords[(r.IntN(len(altWords))+i)%len(altWords)]
		t.Top = append(t.Top, Alt{" " + w, math.Log(p)})
	}
}
