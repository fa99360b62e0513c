package golang

import (
	"strings"
	"testing"
	"time"
)

// TestRunePredAsInterpreted: a func literal handed to strings' …Func functions, which the
// desugaring pass turns into a native predicate (desugar/runepred.go), gives what the same
// literal gives when it is called by the interpreter (held in a variable first, which the pass
// leaves alone), over text with non-ASCII letters, digits, marks and spaces.
func TestRunePredAsInterpreted(t *testing.T) {
	preds := []string{
		`func(r rune) bool { return r < 'a' || r > 'z' }`,
		`func(r rune) bool { return !unicode.IsLower(r) || r > 'z' }`,
		`func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }`,
		`func(c rune) bool { return strings.ContainsRune(",;: \t", c) }`,
		`func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }`,
		`func(r rune) bool { return (r >= '0' && r <= '9') == false }`,
		`func(r rune) bool { return r == '\n' }`,
	}
	calls := []string{
		`fmt.Printf("%q\n", strings.FieldsFunc(text, PRED))`,
		`fmt.Println(strings.IndexFunc(text, PRED), strings.LastIndexFunc(text, PRED), strings.ContainsFunc(text, PRED))`,
		`fmt.Printf("%q %q %q\n", strings.TrimFunc(text, PRED), strings.TrimLeftFunc(text, PRED), strings.TrimRightFunc(text, PRED))`,
		`fmt.Println(len(bytes.FieldsFunc([]byte(text), PRED)))`,
	}
	s := newTestSession(t, Config{}, "")
	if r := s.run(`import ("bytes"; "fmt"; "strings"; "unicode")
var text = "  Naïve café, 42 ÉCOLE;\tzone–9 x́\n« déjà-vu » end. "`); r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, p := range preds {
		for _, c := range calls {
			direct := s.run(strings.ReplaceAll(c, "PRED", p))
			viaVar := s.run("{ pred := " + p + "\n" + strings.ReplaceAll(c, "PRED", "pred") + " }")
			if direct.Err != nil || viaVar.Err != nil || direct.Stdout != viaVar.Stdout || direct.Stdout == "" {
				t.Errorf("%s in %s:\nrewritten %q (%v)\ninterpreted %q (%v)", p, c, direct.Stdout, direct.Err, viaVar.Stdout, viaVar.Err)
			}
		}
	}
}

// TestRunePredIsNative: strings.FieldsFunc over 400,000 characters with a predicate literal takes
// at most a fifth of what the same predicate called by the interpreter takes (measured: about a
// fortieth).
func TestRunePredIsNative(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	s := newTestSession(t, Config{}, "")
	if r := s.run(`import ("strings"; "unicode")
var text = strings.Repeat("the quick, brown fox; jumps over 12 lazy dogs. ", 8500)`); r.Err != nil {
		t.Fatal(r.Err)
	}
	timeIt := func(src string) time.Duration {
		start := time.Now()
		if r := s.run(src); r.Err != nil || r.Stdout != "68000\n" {
			t.Fatalf("%s: %q %v", src, r.Stdout, r.Err)
		}
		return time.Since(start)
	}
	var native, interp time.Duration
	for range 3 {
		native += timeIt(`print(len(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })))`)
		interp += timeIt(`{ f := func(r rune) bool { return !unicode.IsLetter(r) }; print(len(strings.FieldsFunc(text, f))) }`)
	}
	t.Logf("native %v, interpreted %v", native/3, interp/3)
	if native*5 > interp {
		t.Errorf("the rewritten predicate took %v, the interpreted one %v: want at most a fifth", native/3, interp/3)
	}
}
