package runepred

import (
	"strings"
	"testing"
	"unicode"
)

// TestFuncMatchesGo: each predicate's native function gives, for every rune, what the Go
// expression it stands for gives.
func TestFuncMatchesGo(t *testing.T) {
	cases := []struct {
		src  string
		want func(r rune) bool
	}{
		{`(or (lt r 97) (gt r 122))`, func(r rune) bool { return r < 'a' || r > 'z' }},
		{`(or (not (unicode.IsLower r)) (gt r 122))`, func(r rune) bool { return !unicode.IsLower(r) || r > 'z' }},
		{`(and (not (unicode.IsLetter r)) (not (unicode.IsNumber r)))`, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }},
		{`(contains ",;\t" r)`, func(r rune) bool { return strings.ContainsRune(",;\t", r) }},
		{`(or (eq r 44) (unicode.IsSpace r))`, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }},
		{`(ge 57 r)`, func(r rune) bool { return '9' >= r }},
		{`(ne r 10)`, func(r rune) bool { return r != '\n' }},
		{`(le r 32)`, func(r rune) bool { return r <= ' ' }},
		{`true`, func(rune) bool { return true }},
		{`(and false (unicode.IsPunct r))`, func(rune) bool { return false }},
	}
	for _, c := range cases {
		n, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := n.String(); got != c.src {
			t.Errorf("%s: String gives %s", c.src, got)
		}
		f := n.Func()
		for r := rune(-1); r <= unicode.MaxRune+1; r++ {
			if f(r) != c.want(r) {
				t.Errorf("%s: %U gives %v", c.src, r, f(r))
				break
			}
		}
	}
}

// TestParseRefuses: malformed text is an error, never a panic.
func TestParseRefuses(t *testing.T) {
	for _, src := range []string{``, `(`, `(or r)`, `(lt r)`, `(lt x 1)`, `(frob r)`, `(not true) x`, `(contains abc r)`,
		`(unicode.IsLetter)`, `r`, `42`, strings.Repeat("(not ", 1000) + "true" + strings.Repeat(")", 1000), `(lt r 99999999999999999999)`} {
		if n, err := Parse(src); err == nil {
			t.Errorf("%q parsed as %v", src, n)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`(or (lt r 97) (gt r 122))`)
	f.Add(`(contains "a\"b" r)`)
	f.Fuzz(func(t *testing.T, src string) {
		n, err := Parse(src)
		if err != nil {
			return
		}
		back, err := Parse(n.String())
		if err != nil || back.String() != n.String() {
			t.Fatalf("%q: %v does not read back (%v)", src, n, err)
		}
		n.Func()('x')
	})
}
