package monitor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
)

var lpModelOnce = sync.OnceValue(newLPModel)

// generateStreams builds the labelled set: healthy prose, code, JSON lists
// and markdown; loops of periods 1, 3, 8, 25 and 60 starting right after the
// minimum and after 400+ healthy tokens; three kinds of confusion; runaway
// length; and backend-reported repetition.
func generateStreams(seed uint64, logprobs bool) []Stream {
	r := rand.New(rand.NewPCG(seed, 0x6d6f6e69746f72))
	var out []Stream
	add := func(s Stream, toks []genTok) {
		s.Name = fmt.Sprintf("%s-%02d", s.Category, len(out))
		if s.FinishReason == "" {
			s.FinishReason = "stop"
		}
		s.Tokens = attachLogprobs(r, toks, logprobs)
		out = append(out, s)
	}
	healthyPer, per := 4, 1
	if !logprobs {
		healthyPer, per = 8, 2 // text-only streams are small: more of them
	}
	for _, kind := range healthyKinds {
		for i := 0; i < healthyPer; i++ {
			n := 350 + r.IntN(450)
			if kind == "json" {
				n += 500 // a long list: repetitive structure, new values each item
			}
			exp := 0
			if r.IntN(2) == 0 {
				exp = int(float64(n) * (0.7 + 0.8*r.Float64()))
			}
			add(Stream{Category: "healthy/" + kind, ExpectedTokens: exp}, healthy(r, kind, n))
		}
	}
	addLoops(r, add, 2*per)
	addConfused(r, add, 3*per)
	for i := 0; i < 2; i++ {
		exp := 100 + r.IntN(80)
		add(Stream{Category: "runaway", Degenerate: true, Onset: 2 * exp, ExpectedTokens: exp},
			healthy(r, healthyKinds[i], 2*exp+40))
		add(Stream{Category: "backend/repetition", Degenerate: true, FinishReason: "repetition"},
			healthy(r, healthyKinds[i+2], 60+r.IntN(140)))
	}
	return out
}

// addLoops adds exact loops of several periods starting right after the
// minimum ("early") and after 400+ healthy tokens ("late"), and near-loops.
func addLoops(r *rand.Rand, add func(Stream, []genTok), per int) {
	for _, p := range []int{1, 3, 8, 25, 60} {
		for _, late := range []bool{false, true} {
			for i := 0; i < per; i++ {
				onset, when := defaultMinTokensBeforeAbort+r.IntN(10), "early"
				if late {
					onset, when = 400+r.IntN(100), "late"
				}
				cat := fmt.Sprintf("loop/p%d/%s", p, when)
				toks := loop(r, healthyKinds[(i+p)%4], onset, p, onset+max(6*p, 150))
				add(Stream{Category: cat, Degenerate: true, Onset: onset, Period: p}, toks)
			}
		}
	}
	for i := 0; i < 3; i++ {
		onset := defaultMinTokensBeforeAbort + r.IntN(300)
		add(Stream{Category: "loop/near", Degenerate: true, Onset: onset}, nearLoop(r, onset, onset+250))
	}
}

// addConfused adds flat confusion (often starting before the minimum),
// drifting confusion and erratic spikes.
func addConfused(r *rand.Rand, add func(Stream, []genTok), per int) {
	for _, kind := range []string{"flat", "drift", "erratic"} {
		for i := 0; i < per; i++ {
			onset := r.IntN(60)
			switch kind {
			case "drift":
				onset = 150 + r.IntN(200)
			case "erratic":
				onset = 100 + r.IntN(200)
			}
			add(Stream{Category: "confused/" + kind, Degenerate: true, Onset: onset}, confused(r, kind, onset, onset+250))
		}
	}
}

// attachLogprobs turns generated tokens into Tokens. Each stream reports a
// fixed top-k of 0 (chosen logprob only), 5, 10 or 20; half of the top-20
// streams behave like OpenAI and pad with -9999.
func attachLogprobs(r *rand.Rand, toks []genTok, logprobs bool) []Token {
	out := make([]Token, len(toks))
	if !logprobs {
		for i, t := range toks {
			out[i] = Token{Text: t.text}
		}
		return out
	}
	k := []int{0, 5, 5, 10, 10, 20}[r.IntN(6)]
	openai := k == 20 && r.IntN(2) == 0
	lpm := lpModelOnce()
	for i, t := range toks {
		lp, top := lpm.sample(r, t.h, k, openai)
		out[i] = Token{Text: t.text, Logprob: lp, TopLogprobs: top, HasLogprobs: true}
	}
	return out
}

type fixtureStream struct {
	Name       string         `json:"name"`
	Category   string         `json:"category"`
	Degenerate bool           `json:"degenerate"`
	Onset      int            `json:"onset"`
	Period     int            `json:"period"`
	Expected   int            `json:"expected_tokens"`
	Finish     string         `json:"finish_reason"`
	Tokens     []fixtureToken `json:"tokens"`
}

type fixtureToken struct {
	T   string    `json:"t"`
	LP  *float64  `json:"lp,omitempty"`
	Top []float64 `json:"top,omitempty"`
}

func encodeFixtures(streams []Stream) []byte {
	var b bytes.Buffer
	for _, s := range streams {
		f := fixtureStream{s.Name, s.Category, s.Degenerate, s.Onset, s.Period, s.ExpectedTokens, s.FinishReason, nil}
		for _, t := range s.Tokens {
			ft := fixtureToken{T: t.Text, Top: t.TopLogprobs}
			if t.HasLogprobs {
				lp := t.Logprob
				ft.LP = &lp
			}
			f.Tokens = append(f.Tokens, ft)
		}
		line, err := json.Marshal(f)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func loadFixtures(path string) ([]Stream, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Stream
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var f fixtureStream
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s := Stream{Name: f.Name, Category: f.Category, Degenerate: f.Degenerate, Onset: f.Onset,
			Period: f.Period, ExpectedTokens: f.Expected, FinishReason: f.Finish}
		for _, t := range f.Tokens {
			tok := Token{Text: t.T, TopLogprobs: t.Top}
			if t.LP != nil {
				tok.Logprob, tok.HasLogprobs = *t.LP, true
			}
			s.Tokens = append(s.Tokens, tok)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}
