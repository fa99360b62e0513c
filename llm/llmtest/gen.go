package llmtest

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
)

// token is one streamed token with its logprobs (natural logs). Top holds
// the alternatives, the emitted token first.
type token struct {
	Text    string
	Logprob float64
	Top     []alt
}

type alt struct {
	Text    string
	Logprob float64
}

// tokenRE is compiled on first use: the package is linked into rlm (for --replay), and a
// compile at init would cost every worker start.
var tokenRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[ \t]*[\p{L}\p{N}_]+|[ \t]*[^\s\p{L}\p{N}_]|\r?\n|[^\S\n]+`)
})

// Split splits text into the tokens the fake server streams: words and
// numbers with their leading spaces, single punctuation marks with theirs,
// line breaks, and other runs of white space. Joining the tokens gives the
// text back.
func Split(text string) []string { return tokenRE().FindAllString(text, -1) }

// alternatives used to fill top-k lists.
var altWords = strings.Fields("the a of to and in is that it for on with as be by this are or from at an which not was but have were can has its also one more than")

// proseWords feeds generated healthy prose.
var proseWords = strings.Fields(`system model file input output search result line value error
	table number section report record field server client request answer question query index
	chunk slice window limit budget token stream parser engine worker sandbox policy check test
	data time first second third small large short long clear simple careful main final early
	read write count match find split merge sort filter print build run load store open close
	because while where when after before during under over between across within without`)

var saladWords = strings.Fields(`zq ørn blik ток xv qué ἀλ kw 木 ferr ndo ptx ял oeu hrm dax vlö ghu 쿠 tib
	wq zzt ploh ñak мир sra qoph yb ixx gra dū tkel ärs fnu`)

func newRand(seed string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// fluentLogprobs fills tok with a fluent, Zipf-like top-k list: the emitted
// token is likely (p 0.7–0.98 mostly, 0.25–0.6 for one token in five), the
// rest of the mass decays geometrically and 10% of it is left unlisted.
// sharp > 0 pushes the emitted token towards certainty (loops reinforce
// themselves).
func fluentLogprobs(r *rand.Rand, tok *token, k int, sharp float64) {
	p0 := 0.7 + 0.28*r.Float64()
	if r.IntN(5) == 0 {
		p0 = 0.25 + 0.35*r.Float64()
	}
	p0 += (0.995 - p0) * sharp
	fillTop(r, tok, k, p0, 0.9, 0.6)
}

// flatLogprobs fills tok with a confused distribution: every candidate
// around 1%, most of the mass outside the top k.
func flatLogprobs(r *rand.Rand, tok *token, k int) {
	p0 := 0.006 + 0.008*r.Float64()
	tok.Logprob = math.Log(p0)
	tok.Top = append(tok.Top[:0], alt{tok.Text, tok.Logprob})
	for i := 1; i < k; i++ {
		p := 0.006 + 0.008*r.Float64()
		tok.Top = append(tok.Top, alt{saladWords[r.IntN(len(saladWords))], math.Log(p)})
	}
}

// fillTop lists the emitted token with probability p0, then k-1 alternatives
// sharing listed·(1−p0) with ratio decay.
func fillTop(r *rand.Rand, tok *token, k int, p0, listed, decay float64) {
	tok.Logprob = math.Log(p0)
	tok.Top = append(tok.Top[:0], alt{tok.Text, tok.Logprob})
	if k <= 1 {
		return
	}
	norm := (1 - math.Pow(decay, float64(k-1))) / (1 - decay)
	mass := (1 - p0) * listed / norm
	for i := 1; i < k; i++ {
		p := mass * math.Pow(decay, float64(i-1))
		w := altWords[(r.IntN(len(altWords))+i)%len(altWords)]
		tok.Top = append(tok.Top, alt{" " + w, math.Log(p)})
	}
}

// generate returns the tokens of a streamed reply.
func generate(rep Reply, k int, seed string) []token {
	r := newRand(seed + "\x00" + string(rep.Kind) + rep.Text)
	n := rep.Tokens
	if n <= 0 {
		n = 300
	}
	var out []token
	switch rep.Kind {
	case Loop:
		unit := Split(defaultText(rep.Text, "I will check the file again to be sure that nothing is missing. "))
		for i := 0; len(out) < n; i++ {
			copyN := i / len(unit)
			t := token{Text: unit[i%len(unit)]}
			fluentLogprobs(r, &t, k, min(1, 0.6*float64(copyN)))
			out = append(out, t)
		}
	case Confused:
		words := Split(rep.Text)
		for i := 0; i < n; i++ {
			t := token{Text: " " + saladWords[r.IntN(len(saladWords))]}
			if i < len(words) {
				t.Text = words[i]
			}
			flatLogprobs(r, &t, k)
			out = append(out, t)
		}
	default:
		text := rep.Text
		if text == "" {
			text = "OK."
			if rep.Tokens > 0 {
				text = prose(r, rep.Tokens)
			}
		}
		for _, s := range Split(text) {
			t := token{Text: s}
			fluentLogprobs(r, &t, k, 0)
			out = append(out, t)
		}
	}
	return out
}

func defaultText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// prose generates n tokens of varied sentences (no exact repetition).
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	count := 0
	for count < n {
		words := 6 + r.IntN(10)
		for i := 0; i < words; i++ {
			w := proseWords[r.IntN(len(proseWords))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			count++
			if i > 0 && i < words-1 && r.IntN(9) == 0 {
				b.WriteByte(',')
				count++
			}
		}
		b.WriteByte('.')
		count++
	}
	return b.String()
}
