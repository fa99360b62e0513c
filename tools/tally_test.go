package tools

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/limits"
)

func TestTally(t *testing.T) {
	const logs = "user=ann GET /a\nuser=bob POST /b\nuser=Ann GET /c\nuser=ann GET /a\nuser=cy PUT /d\n"
	tests := []struct {
		name, text, re string
		lim            Limits
		want           string // "text=count ..." in order
		distinct       int64
		total          int64
	}{
		{"counts, most frequent first", "b a c b a b\n", `\w+`, Limits{}, "b=3 a=2 c=1", 3, 6},
		{"ties by text ascending", "z y x y z x w\n", `\w`, Limits{}, "x=2 y=2 z=2 w=1", 4, 7},
		{"the first capture group is counted", logs, `user=(\w+)`, Limits{}, "ann=2 Ann=1 bob=1 cy=1", 4, 5},
		{"a group that is the whole pattern", logs, `(GET|POST|PUT)`, Limits{}, "GET=3 POST=1 PUT=1", 3, 5},
		{"the second group is not counted", logs, `(GET|POST) (/\w)`, Limits{}, "GET=3 POST=1", 2, 4},
		{"a group in context: \\b and (?m)^ see the character before", "xab ab\nab\n", `(?m)(?:^|\b)a(b)`, Limits{}, "b=2", 1, 2},
		{"(?i) folds case, in lower case", logs, `(?i)user=(\w+)`, Limits{}, "ann=3 bob=1 cy=1", 3, 5},
		{"(?i) folds the whole match", "The the THE cat\n", `(?i)\b\w+\b`, Limits{}, "the=3 cat=1", 2, 4},
		{"(?i) folds beyond ASCII", "Éte éte ÉTE\n", `(?i)\S+`, Limits{}, "éte=3", 1, 3},
		{"without (?i) case counts", "The the\n", `\w+`, Limits{}, "The=1 the=1", 2, 2},
		{"cut at the cap, distinct says how many", "a b c d e a b a\n", `\w`, Limits{TallyResults: 2}, "a=3 b=2", 5, 8},
		{"long matches are cut at LineChars", "abcdefgh abcdefxx\n", `\w+`, Limits{LineChars: 6}, "abcdef…=2", 1, 2},
		{"no match: empty", "abc\n", `\d+`, Limits{}, "", 0, 0},
		{"matches across lines", "a\nb a\nb\n", `(?s)a.b`, Limits{}, "a\nb=2", 1, 2},
		{"a group across lines", "k=1\n2 k=1\n2\n", `(?s)k=(\d.\d)`, Limits{}, "1\n2=2", 1, 2},
		{"a group that takes no part counts as empty", "ab a\n", `a(b)?`, Limits{}, "=1 b=1", 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, d := openText(t, tc.text, tc.lim)
			r, err := d.Tally(tc.re)
			if err != nil {
				t.Fatal(err)
			}
			if got := tallyString(r.Tallies); got != tc.want || r.Distinct != tc.distinct || r.Total != tc.total {
				t.Errorf("Tally(%q) = %q, distinct %d, total %d; want %q, %d, %d", tc.re, got, r.Distinct, r.Total, tc.want, tc.distinct, tc.total)
			}
		})
	}
}

func tallyString(ts []Tally) string {
	var out []string
	for _, x := range ts {
		out = append(out, fmt.Sprintf("%s=%d", x.Text, x.Count))
	}
	return strings.Join(out, " ")
}

func TestTallyInvalidRegex(t *testing.T) {
	_, d := openText(t, "abc\n", Limits{})
	_, err := d.Tally(`(?<=a)b`)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no backreferences or lookaround") {
		t.Fatalf("got %v, want an ErrInvalid error that says what RE2 lacks", err)
	}
}

// TestTallyTooManyDistinct: past limits.TallyDistinct distinct matches, Tally fails with a limit
// error that says how to narrow the regex, and holds no more than the bound plus one task's map.
func TestTallyTooManyDistinct(t *testing.T) {
	var b strings.Builder
	for i := range limits.TallyDistinct + 1 {
		fmt.Fprintf(&b, "%x\n", i)
	}
	_, d := openText(t, b.String(), Limits{})
	_, err := d.Tally(`\w+`)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "distinct matches; narrow the regex") {
		t.Fatalf("got %v, want the distinct-matches limit", err)
	}
	if r, err := d.Tally(`\w+\n\w+`); err != nil || r.Distinct == 0 { // the same input, fewer distinct: fine
		t.Fatalf("a narrower tally failed: %v", err)
	}
}

// TestTallyMatchesReference: over part sizes that put borders everywhere, Tally counts what
// regexp finds over the whole text.
func TestTallyMatchesReference(t *testing.T) {
	text := strings.Repeat("user=Ann id=7 GET /a\nuser=bob id=12 POST /b é\n\nuser=ann x\n", 7)
	pats := []string{`\w+`, `(?i)\w+`, `user=(\w+)`, `(?i)USER=(\w+)`, `id=(\d)(\d)?`, `\b(\w)\w*\b`, `(?m)^(\w+)`, `(?m)(\w+)$`, `(?s)(b.).`, `x*`, `(?i)(é|a)`}
	for _, re := range pats {
		want := referenceTally(t, re, text, 100)
		for _, cfg := range testConfigs {
			got, err := tallyData(re, []byte(text), cfg, 100, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := tallyString(got.Tallies), tallyString(want); g != w {
				t.Errorf("%q with parts of %d: got %q, want %q", re, cfg.partSize, g, w)
			}
		}
	}
}

// referenceTally counts with package regexp over the whole text.
func referenceTally(t *testing.T, re, text string, max int) []Tally {
	rx := regexp.MustCompile(re)
	fold := strings.Contains(re, "(?i)")
	counts := map[string]int64{}
	for _, m := range rx.FindAllStringSubmatchIndex(text, -1) {
		k := text[m[0]:m[1]]
		if len(m) > 2 {
			k = ""
			if m[2] >= 0 {
				k = text[m[2]:m[3]]
			}
		}
		if fold {
			k = strings.ToLower(k)
		}
		counts[matchText([]byte(k), max)]++
	}
	var out []Tally
	for k, n := range counts {
		out = append(out, Tally{k, n})
	}
	slices.SortFunc(out, func(a, b Tally) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Text, b.Text)) })
	return out
}
