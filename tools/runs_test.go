package tools

import (
	"math/rand"
	"testing"
)

// TestRunEngineMatchesRegexp: the run patterns (runClass) find what regexp finds, over text
// with non-ASCII characters, invalid bytes, U+FFFD itself and word characters outside ASCII
// that (?i) adds to \w (ſ, K), at every part size of the engine tests.
func TestRunEngineMatchesRegexp(t *testing.T) {
	pats := []string{`\w+`, `(?i)\w+`, `\S+`, `(?i)\S+`, `[a-z]+`, `(?i)[a-z]+`, `(\w+)`, `.+`, `[^,]+`, `[^,\n]+`, `\d+`,
		`\b\w+\b`, `(?i)\b\w+\b`, `\b[\w-]+\b`, `\b[\w\x{e9}]+\b`, `(\b\w+\b)`, `[\x{fffd}a]+`, `[^a]+`}
	texts := []string{"", "a", "hello, world\n", "ab-cd -x- y-\n-", "caf\xc3\xa9 na\xefve \xff\xfe ok\n", "\xe2\x82", "a\xe2\x82\nb",
		"\xef\xbf\xbd\xefa", "ſKa -ſ- K\n", "x,y\n,z,,\n", "été é-e é\n"}
	for _, p := range pats {
		pt, err := compilePattern(p)
		if err != nil || pt.class == nil {
			t.Fatalf("%q is not a run pattern (%v)", p, err)
		}
		for _, text := range texts {
			checkPattern(t, p, []byte(text))
		}
		rng := rand.New(rand.NewSource(int64(len(p))))
		alphabet := []string{"a", "Z", "_", "-", " ", "\n", ",", "é", "ſ", "\xff", "\xe2\x82", "9", "K"}
		for range 200 {
			var b []byte
			for range rng.Intn(40) {
				b = append(b, alphabet[rng.Intn(len(alphabet))]...)
			}
			checkPattern(t, p, b)
		}
	}
}

// TestNotRunPatterns: patterns that look like runs but are not take the other engines.
func TestNotRunPatterns(t *testing.T) {
	for _, p := range []string{`\w+?`, `\w*`, `\b[a-z]+\b`, `a\w+`, `\w+\b`, `\w{2,}`, `(?i)a+`} {
		pt, err := compilePattern(p)
		if err != nil {
			t.Fatal(err)
		}
		if pt.class != nil {
			t.Errorf("%q is taken as a run of %q; it is not one", p, pt.class)
		}
	}
}
