package replay_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world.", []string{"Hello", ",", " world", "."}},
		{"```go\nprint(1)\n```", []string{"`", "`", "`", "go", "\n", "print", "(", "1", ")", "\n", "`", "`", "`"}},
		{"  two  spaces", []string{"  two", "  spaces"}},
		{"a\r\nb", []string{"a", "\r\n", "b"}},
		{"", nil},
	}
	for _, tc := range tests {
		got := replay.Split(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || strings.Join(got, "") != tc.in {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTokens: the tokens give the text back, each with k alternatives, itself first and the
// likeliest, probabilities that sum to at most 1; the same seed draws the same logprobs.
func TestTokens(t *testing.T) {
	tests := []struct {
		text string
		k    int
	}{
		{"The parser reads each line once, then it stops.", 20},
		{"FINAL(42)", 5},
		{"x", 1},
	}
	for _, tc := range tests {
		toks := replay.Tokens(replay.NewRand("seed"), tc.text, tc.k)
		var text strings.Builder
		for _, tok := range toks {
			text.WriteString(tok.Text)
			sum := 0.0
			for _, a := range tok.Top {
				sum += math.Exp(a.Logprob)
			}
			if len(tok.Top) != tc.k || tok.Top[0] != (replay.Alt{Text: tok.Text, Logprob: tok.Logprob}) ||
				tok.Logprob > 0 || sum > 1.000001 || tok.Top[len(tok.Top)-1].Logprob > tok.Logprob {
				t.Errorf("%q: token %+v: want %d alternatives, itself first and likeliest, summing to at most 1 (%.3f)", tc.text, tok, tc.k, sum)
			}
		}
		if text.String() != tc.text {
			t.Errorf("tokens give %q, want %q", text.String(), tc.text)
		}
		if again := replay.Tokens(replay.NewRand("seed"), tc.text, tc.k); !reflect.DeepEqual(again, toks) {
			t.Errorf("%q: a second draw with the same seed differs", tc.text)
		}
	}
}
