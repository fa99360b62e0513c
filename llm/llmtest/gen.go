package llmtest

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// Split splits text into the tokens the fake server streams (replay.Split): words and numbers
// with their leading spaces, single punctuation marks with theirs, line breaks, and other runs
// of white space. Joining the tokens gives the text back.
func Split(text string) []string { return replay.Split(text) }

// proseWords feeds generated healthy prose.
var proseWords = strings.Fields(`system model file input output search result line value error
	table number section report record field server client request answer question query index
	chunk slice window limit budget token stream parser engine worker sandbox policy check test
	data time first second third small large short long clear simple careful main final early
	read write count match find split merge sort filter print build run load store open close
	because while where when after before during under over between across within without`)

var saladWords = strings.Fields(`zq ørn blik ток xv qué ἀλ kw 木 ferr ndo ptx ял oeu hrm dax vlö ghu 쿠 tib
	wq zzt ploh ñak мир sra qoph yb ixx gra dū tkel ärs fnu`)

// flatLogprobs fills tok with a confused distribution: every candidate
// around 1%, most of the mass outside the top k.
func flatLogprobs(r *rand.Rand, tok *replay.Token, k int) {
	p0 := 0.006 + 0.008*r.Float64()
	tok.Logprob = math.Log(p0)
	tok.Top = append(tok.Top[:0], replay.Alt{Text: tok.Text, Logprob: tok.Logprob})
	for i := 1; i < k; i++ {
		p := 0.006 + 0.008*r.Float64()
		tok.Top = append(tok.Top, replay.Alt{Text: saladWords[r.IntN(len(saladWords))], Logprob: math.Log(p)})
	}
}

// generate returns the tokens of a streamed reply.
func generate(rep Reply, k int, seed string) []replay.Token {
	r := replay.NewRand(seed + "\x00" + string(rep.Kind) + rep.Text)
	n := rep.Tokens
	if n <= 0 {
		n = 300
	}
	var out []replay.Token
	switch rep.Kind {
	case Loop:
		unit := Split(defaultText(rep.Text, "I will check the file again to be sure that nothing is missing. "))
		for i := 0; len(out) < n; i++ {
			copyN := i / len(unit)
			t := replay.Token{Text: unit[i%len(unit)]}
			replay.Fluent(r, &t, k, min(1, 0.6*float64(copyN)))
			out = append(out, t)
		}
	case Confused:
		words := Split(rep.Text)
		for i := 0; i < n; i++ {
			t := replay.Token{Text: " " + saladWords[r.IntN(len(saladWords))]}
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
		out = replay.Tokens(r, text, k)
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
