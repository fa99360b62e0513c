package tools

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// engineMatches runs the engine chosen for pattern over data.
func engineMatches(pattern string, data []byte, cfg engineConfig) ([][2]int, int64, error) {
	pt, err := compilePattern(pattern)
	if err != nil {
		return nil, 0, err
	}
	e, err := newEngine(pt, data, cfg, parallel)
	if err != nil {
		return nil, 0, err
	}
	ms, total, err := firstMatches(e, data, len(data)+2)
	if err != nil {
		return nil, 0, err
	}
	n, err := countMatches(e, data)
	if err != nil {
		return nil, 0, err
	}
	if n != total {
		return nil, 0, fmt.Errorf("count %d != search total %d", n, total)
	}
	return ms, total, nil
}

func stdlibMatches(re *regexp.Regexp, data []byte) [][2]int {
	var out [][2]int
	for _, m := range re.FindAllIndex(data, -1) {
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

var testConfigs = []engineConfig{
	{partSize: 8 << 20, maxStates: maxDFAStates},
	{partSize: 1, maxStates: maxDFAStates},
	{partSize: 5, maxStates: 2},
	{partSize: 13, maxStates: 5},
}

// checkPattern compares the engines with regexp.FindAllIndex.
func checkPattern(t *testing.T, pattern string, data []byte) {
	t.Helper()
	re, err := regexp.Compile(pattern)
	if err != nil {
		return
	}
	want := stdlibMatches(re, data)
	for _, cfg := range testConfigs {
		got, total, err := engineMatches(pattern, data, cfg)
		if err != nil {
			t.Fatalf("pattern %q data %q cfg %+v: %v", pattern, data, cfg, err)
		}
		if total != int64(len(want)) || !slices.Equal(got, want) {
			t.Fatalf("pattern %q data %q cfg %+v:\n got %v (total %d)\nwant %v", pattern, data, cfg, got, total, want)
		}
		checkPages(t, pattern, data, cfg, want)
	}
}

// checkPages walks the pages of a search (up to 12 of them, of 1 and 3
// matches) and compares each with its part of want.
func checkPages(t *testing.T, pattern string, data []byte, cfg engineConfig, want [][2]int) {
	t.Helper()
	pt, _ := compilePattern(pattern)
	e, err := newEngine(pt, data, cfg, parallel)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 3} {
		for from := 0; from <= len(want)+1 && from < 12*size; from += size {
			got, total, err := pageMatches(e, data, int64(from), size)
			w := want[min(from, len(want)):min(from+size, len(want))]
			if err != nil || total != int64(len(want)) || !slices.Equal(got, w) {
				t.Fatalf("pattern %q data %q cfg %+v page from %d size %d:\n got %v (total %d, %v)\nwant %v",
					pattern, data, cfg, from, size, got, total, err, w)
			}
		}
	}
}

var trickyPatterns = []string{
	``, `^`, `$`, `(?m)^`, `(?m)$`, `(?m)^x`, `(?m)x$`, `\A`, `\z`, `^a`, `a$`, `\b`, `\B`, `\bx\b`,
	`a*`, `a*?`, `a+`, `(a|b)*`, `(?i)A`, `(?i)é`, `\pL+`, `\p{Greek}`, `[^a]`, `[^a]+`, `\n`, `a\nb`,
	`(?s).`, `(?s)a.*b`, `.*`, `.+`, `\s+`, `\s*`, `a\s*b`, `\w+`, `\W`, `\d+-\d+`, `[0-9]{3}-[0-9]{4}`,
	`x*|b`, `|a`, `a|`, `(?m)^$`, `^$`, `(?m)^\s*$`, `\x{FFFD}`, `é+`, `世`, `.`, `(?U)a+`, `ab|a`,
	`abc`, `ab`, `\r\n`, `\r?$`, `(?m)\r?$`, `[a-c]+\b`, `\bé`, `\Ba`, `(?i)abc|b`, `aa`, `a{2,3}`,
	`(?m)^a|b$`, `a\z|^b`, `\Qa.b\E`, `\Qa)(`, `(?s)a.b`, `[ab]c[ab]`, `-`, `é\b`, `(?i)ß`,
}

var fuzzData = []string{
	"", "a", "\n", "abc", "a\nb\nc", "aaa\n\naaa\n", "x\nx\n", "aba\r\nbab\r\n", "é\xffé\n\xe2\x82a",
	"abc abc\nab ba\n", "a\n\nb", "\n\n\n", "世界\nab世\n", "123-4567 555-1234\n12-34", "\xff\xfe\n\xff",
	"x y\tz\n\tq", "AbC aBc\nABC", "a.b a)(\n", "ßSS\n", "-a-b-\n--",
}

func TestEngineTricky(t *testing.T) {
	for _, p := range trickyPatterns {
		for _, d := range fuzzData {
			checkPattern(t, p, []byte(d))
		}
	}
}

// Random patterns over a small alphabet that includes newlines.
var (
	atoms = []string{`a`, `b`, `c`, `é`, `\n`, ` `, `-`, `0`, `ab`, `abc`, `.`, `(?s:.)`, `[ab]`, `[^a]`,
		`[^\n]`, `\s`, `\w`, `\d`, `\b`, `\B`, `^`, `$`, `(?m:^)`, `(?m:$)`, `\A`, `\z`, `\pL`,
		`\x{FFFD}`, `(?i:a)`, `(?i:ab)`, `(?:)`, `\r`, `世`}
	textAtoms = []string{"a", "b", "c", "\n", " ", "é", "\xff", "A", "0", "-", "\r", "\xe2\x82", "世", "ab", "abc"}
)

func randPattern(r *rand.Rand, depth int) string {
	if depth <= 0 || r.IntN(3) == 0 {
		return atoms[r.IntN(len(atoms))]
	}
	a := randPattern(r, depth-1)
	switch r.IntN(11) {
	case 0, 1, 2:
		return a + randPattern(r, depth-1)
	case 3:
		return "(?:" + a + "|" + randPattern(r, depth-1) + ")"
	case 4:
		return "(?:" + a + ")*"
	case 5:
		return "(?:" + a + ")+"
	case 6:
		return "(?:" + a + ")?"
	case 7:
		return "(?:" + a + ")*?"
	case 8:
		return "(?:" + a + "){1,3}"
	case 9:
		return "(" + a + ")"
	default:
		return "(?:" + a + ")+?"
	}
}

func randText(r *rand.Rand, n int) []byte {
	var sb strings.Builder
	for range n {
		sb.WriteString(textAtoms[r.IntN(len(textAtoms))])
	}
	return []byte(sb.String())
}

func TestEngineDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	iters := 3000
	if testing.Short() {
		iters = 500
	}
	for range iters {
		p := randPattern(r, 4)
		for range 3 {
			checkPattern(t, p, randText(r, r.IntN(60)))
		}
	}
}

// Small batches make findAll resume mid-line, through pattern.resume.
func TestEngineResume(t *testing.T) {
	old := findBatch
	findBatch = 2
	defer func() { findBatch = old }()
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range trickyPatterns {
		for _, d := range fuzzData {
			checkPattern(t, p, []byte(d))
		}
	}
	for range 1000 {
		p := randPattern(r, 3)
		checkPattern(t, p, randText(r, r.IntN(40)))
	}
}

func FuzzSearch(f *testing.F) {
	for i, p := range trickyPatterns {
		f.Add(p, []byte(fuzzData[i%len(fuzzData)]))
	}
	f.Fuzz(func(t *testing.T, pattern string, data []byte) {
		if len(pattern) > 64 || len(data) > 512 {
			return
		}
		checkPattern(t, pattern, data)
	})
}

// Longer texts with many lines exercise the literal prefilter's switch to
// the DFA (dense candidates), four-lane scans and part borders.
func TestEngineLongerTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"ab", "abc", "abd", "x", "yy", "é", "\xff", "0", "12-3456", "  ", "\t", "ABC", "\r"}
	text := func(n int) []byte {
		var sb strings.Builder
		for sb.Len() < n {
			sb.WriteString(words[r.IntN(len(words))])
			if r.IntN(6) == 0 {
				sb.WriteByte('\n')
			} else {
				sb.WriteByte(' ')
			}
		}
		return []byte(sb.String())
	}
	patterns := []string{`abc`, `ab[cd]`, `abd\b`, `(?i)abc`, `\d+-\d{4}`, `ab\s+x`, `^ab`, `yy$`, `\bab\w*`, `x\s*\n\s*yy`}
	for range 40 {
		patterns = append(patterns, randPattern(r, 3))
	}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			continue
		}
		data := text(20000)
		want := stdlibMatches(re, data)
		for _, cfg := range []engineConfig{{partSize: 0, maxStates: maxDFAStates}, {partSize: 700, maxStates: maxDFAStates}, {partSize: 300, maxStates: 3}} {
			got, total, err := engineMatches(p, data, cfg)
			if err != nil || total != int64(len(want)) || !slices.Equal(got, want) {
				t.Fatalf("pattern %q cfg %+v: got %d matches (total %d, err %v), want %d", p, cfg, len(got), total, err, len(want))
			}
		}
	}
}

func TestNeedle(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 2000 {
		data := randText(r, r.IntN(80))
		lit := randText(r, 1+r.IntN(3))
		if r.IntN(3) == 0 && len(data) > 4 {
			a := r.IntN(len(data) - 2)
			lit = data[a : a+1+r.IntN(2)]
		}
		for _, freq := range []*[256]uint32{byteFreq(data), byteFreq(lit), new([256]uint32)} {
			n := newNeedle(lit, freq)
			if got, want := n.index(data), bytes.Index(data, lit); got != want {
				t.Fatalf("index(%q, %q) k=%d = %d, want %d", data, lit, n.k, got, want)
			}
			if got, want := n.count(data), bytes.Count(data, lit); got != want {
				t.Fatalf("count(%q, %q) = %d, want %d", data, lit, got, want)
			}
		}
	}
	// Many false candidates hand over to bytes.Index.
	data := []byte(strings.Repeat("xa", 5000) + "ab")
	if got := newNeedle([]byte("ab"), new([256]uint32)).index(data); got != 10000 {
		t.Fatalf("index = %d", got)
	}
}
