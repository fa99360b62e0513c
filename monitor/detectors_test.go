package monitor

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLoopNeed(t *testing.T) {
	// With the default LoopMinSpan of 24: 24 tokens at least, three copies
	// below 24 tokens (capped at 48), two copies from 24 on.
	tests := []struct{ p, want int }{
		{1, 24}, {3, 24}, {8, 24}, {9, 27}, {12, 36}, {16, 48}, {23, 48}, {24, 48}, {25, 50}, {60, 120}, {128, 256},
	}
	for _, tt := range tests {
		if got := loopNeed(tt.p, defaultLoopMinSpan); got != tt.want {
			t.Errorf("loopNeed(%d) = %d, want %d", tt.p, got, tt.want)
		}
		if got := LoopNeed(Config{}, tt.p); got != tt.want {
			t.Errorf("LoopNeed(Config{}, %d) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestTokenTailPeriod(t *testing.T) {
	seq := func(prefix string, body []string, copies int) []string {
		out := strings.Fields(prefix)
		for i := 0; i < copies; i++ {
			out = append(out, body...)
		}
		return out
	}
	body := func(n int) []string {
		var b []string
		for i := 0; i < n; i++ {
			b = append(b, "w"+string(rune('A'+i%26))+string(rune('a'+i/26)))
		}
		return b
	}
	tests := []struct {
		name       string
		tokens     []string
		wantPeriod int // Metrics.LoopPeriod: smallest period with two copies
		wantSpan   int
		wantLoop   int // detector's loop period, 0 = not a loop yet
	}{
		{"no repetition", body(40), 0, 0, 0},
		{"period 1, 23 copies: below 24", seq("x y", []string{"a"}, 23), 1, 23, 0},
		{"period 1, 24 copies", seq("x y", []string{"a"}, 24), 1, 24, 1},
		{"period 3, 8 copies", seq("x", body(3), 8), 3, 24, 3},
		{"period 8, two copies: not yet", seq("x", body(8), 2), 8, 16, 0},
		{"period 8, three copies", seq("x", body(8), 3), 8, 24, 8},
		{"period 16, two copies: not yet", seq("x", body(16), 2), 16, 32, 0},
		{"period 25, two copies", seq("x", body(25), 2), 25, 50, 25},
		{"period 60, two copies", seq("x", body(60), 2), 60, 120, 60},
		{"period 60 and a partial third copy", append(seq("x", body(60), 2), body(7)...), 60, 127, 60},
		{"period 130 is beyond MaxLoopPeriod", seq("x", body(130), 2), 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{MinTokensBeforeAbort: 1 << 20}, 0)
			for _, s := range tt.tokens {
				m.Observe(Token{Text: s})
			}
			mt := m.Metrics()
			p, _ := m.tokenLoop()
			if mt.LoopPeriod != tt.wantPeriod || mt.LoopSpan != tt.wantSpan || p != tt.wantLoop {
				t.Errorf("period %d span %d loop %d; want %d %d %d", mt.LoopPeriod, mt.LoopSpan, p,
					tt.wantPeriod, tt.wantSpan, tt.wantLoop)
			}
		})
	}
}

func TestSmallestBytePeriod(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		minSpan  int
		wantP    int
		wantSpan int
	}{
		{"abcd × 50 after a prefix", "prefix: " + strings.Repeat("abcd", 50), 160, 4, 200},
		{"smallest period wins over its multiples", "zz" + strings.Repeat("ab", 100), 160, 2, 200},
		{"too short", "prefix: " + strings.Repeat("abcd", 30), 160, 0, 0},
		{"two copies shorter than minSpan", "x" + strings.Repeat("a block of sixty bytes, more or less, that repeats once. ", 2), 160, 0, 0},
		{"no period", "the quick brown fox jumps over the lazy dog", 10, 0, 0},
		// The tail also matches the ". " that ends "Intro.": span 6·31 + 2.
		{"sentence loop", "Intro. " + strings.Repeat("I will check the ledger again. ", 6), 160, 31, 188},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev := []byte(tt.text)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			z := make([]int32, len(rev))
			p, span := smallestPeriod(rev, z, len(rev)/2, tt.minSpan)
			if p != tt.wantP || span != tt.wantSpan {
				t.Errorf("smallestPeriod = %d, %d; want %d, %d", p, span, tt.wantP, tt.wantSpan)
			}
		})
	}
}

func TestZFunction(t *testing.T) {
	s := []byte("aabxaabxcaabxaabxay")
	z := make([]int32, len(s))
	zFunction(s, z)
	for i := range s {
		want := 0
		for i+want < len(s) && s[want] == s[i+want] {
			want++
		}
		if int(z[i]) != want {
			t.Errorf("z[%d] = %d, want %d", i, z[i], want)
		}
	}
}

func TestCompressRatio(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 2048)
	for i := range random {
		random[i] = byte(r.IntN(256))
	}
	prose := []byte((&textGen{r: r}).prose(4096)[:2048])
	tests := []struct {
		name   string
		data   []byte
		lo, hi float64
	}{
		{"zeros", make([]byte, 2048), 0, 0.02},
		{"exact loop", []byte(strings.Repeat("I will check the ledger again. ", 70)[:2048]), 0, 0.05},
		{"prose", prose, 0.3, 0.7},
		{"random bytes", random, 0.98, 1.05},
	}
	var cw countWriter
	for _, tt := range tests {
		if got := compressRatio(tt.data, &cw); got < tt.lo || got > tt.hi {
			t.Errorf("%s: ratio %.3f, want in [%.2f, %.2f]", tt.name, got, tt.lo, tt.hi)
		}
	}
	if got := compressRatio(nil, &cw); got != 0 {
		t.Errorf("empty: ratio %v, want 0", got)
	}
}

func TestScriptSwitches(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"hello world", 0},
		{"hello мир", 0},   // alphabets change between words
		{"helloмир", 1},    // inside a word
		{"fooбарbaz", 2},   // Latin, Cyrillic, Latin
		{"使用Go语言", 0},      // CJK mixes with Latin
		{"Δt and maxλ", 0}, // Greek in maths
		{"5µs x×y café", 0},
		{"naïve résumé Việt", 0},
		{"ψαγενыкнвжшпсф", 0},         // Greek is exempt
		{"жхтос.sqlяш ضشبهي71494", 2}, // .sql between Cyrillic runs; digits keep the word
		{"runes🙈🙉 and ٩(-̮̮̃-̃)۶", 0}, // emoji, Arabic-Indic digits, combining marks
	}
	for _, tt := range tests {
		if got := scriptSwitches([]byte(tt.text)); got != tt.want {
			t.Errorf("scriptSwitches(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestSentenceRepeats(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"a sentence three times", strings.Repeat("Let me re-check the ledger total carefully. Hmm. ", 3), 3},
		{"four times with changing fillers",
			"Let me re-check the ledger total carefully. It is 4. Let me re-check the ledger total carefully. " +
				"It is 9. Let me re-check the ledger total carefully. So 12? Let me re-check the ledger total carefully. ", 4},
		{"short sentences are ignored", strings.Repeat("Yes, that is right. ", 6), 0},
		{"code lines are not sentences", strings.Repeat("\tresult = append(result, item.Value)\n", 6), 0},
		{"comment lines are skipped", strings.Repeat("// Let me re-check the ledger total carefully.\n", 6), 0},
		{"far apart repeats do not count",
			"Let me re-check the ledger total carefully. " + strings.Repeat("x", 600) + " Let me re-check the ledger total carefully. ", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s textState
			s.init()
			s.write(tt.text)
			if s.chunkRepeats != tt.want {
				t.Errorf("chunkRepeats = %d, want %d", s.chunkRepeats, tt.want)
			}
		})
	}
}
