package js

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/source"
)

// matchPatterns are patterns the rewrite takes (asciiMatcherOf), as models write them and
// at the subset's edges: runs of one class, alternations that backtracking and Go choose
// between alike, anchors, lazy and counted quantifiers, groups.
var matchPatterns = []string{
	`[a-z]+`, `\w+`, `\d+`, `[A-Za-z']+`, `[a-z0-9_]+`, `[a-z]+ing`, `(?:ab|a)c`, `a|ab`, `^[a-z]+`, `[a-z]+$`, `[0-9]{2,4}?`, `([a-z])([0-9])`,
	`[-a]+`, `[a-]+`, `[.*+?(){}|$]+`, `\d{4}-\d{2}-\d{2}`, `ERROR|WARN`, `x+`, `\t|\n`,
	`user=\w+`, `[a-z]`, `a+?`, `\$\d+\.\d\d`, `[a-z\d]+`, `(a|b)*c`, `(?:a{0}b)+`, `^a|b$`,
}

// matchTexts are receivers of match: the context as the host gives it (UTF-8, not ASCII),
// text goja holds in UTF-16 (lower-cased), surrogate pairs and lone surrogates, ASCII, empty.
var matchTexts = []string{
	`peek(context, 0, 1000)`, `peek(context, 0, 1000).toLowerCase()`,
	`"naïve café 😀 x1 ab12 — résumé"`, `"\ud800abc\udc00def 😀😀 a😀b"`, `"plain ascii words 2026-11-29 $3.50"`,
	`""`, `"é"`, `"abc ac aac abac"`, `"x\txx\nxxx é"`, `"user=ann user=bob\u00e9 user=é"`,
}

// TestMatchASCIIAsGoja: X.match(/P/g), which the rewrite matches in Go (matchascii.go), gives
// what goja's own match gives with the same RegExp built at run time (which the rewrite leaves
// alone), for every pattern over every text, on a name and on any other expression; and a
// receiver that is not a string goes to its own match.
func TestMatchASCIIAsGoja(t *testing.T) {
	e, err := New(Config{}, newFakeHost("Ünïcode “book” text — it's chapter 12; Word, words, WORDS, user=bob_9 2026-11-29 $3.50 naïve\ttabs\nlines 😀 end"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, p := range matchPatterns {
		if _, ok := asciiMatcherOf(p); !ok {
			t.Errorf("%s: not taken by the rewrite", p)
			continue
		}
		for _, x := range matchTexts {
			src := `{ const x = ` + x + `; const want = JSON.stringify(x.match(new RegExp(` + jsQuote(p) + `, "g")));
print(JSON.stringify(x.match(/` + p + `/g)) === want, JSON.stringify([x][0].match(/` + p + `/g)) === want, want) }`
			r := mustRun(t, e, src)
			if !strings.HasPrefix(r.Stdout, "true true ") {
				t.Errorf("/%s/g on %s: %s", p, x, r.Stdout)
			}
		}
	}
	for _, x := range []string{`new String("boxed ab")`, `({ match: (re) => "custom " + re.source })`} {
		r := mustRun(t, e, `{ const x = `+x+`; print(JSON.stringify(x.match(/[a-z]+/g))) }`)
		want := mustRun(t, e, `{ const x = `+x+`; print(JSON.stringify(x.match(new RegExp("[a-z]+", "g")))) }`)
		if r.Stdout != want.Stdout {
			t.Errorf("%s: %q, goja %q", x, r.Stdout, want.Stdout)
		}
	}
	r := run(t, e, `(5).match(/[a-z]+/g)`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "TypeError") {
		t.Errorf("a number's match: %v", r.Err)
	}
}

// TestMatchASCIIRewrite: which calls are rewritten.
func TestMatchASCIIRewrite(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`s.match(/[a-z]+/g)`, true},
		{`peek(context, 0, 10).toLowerCase().match(/\w+/g)`, true},
		{`s.match(/[a-z]+/)`, false},     // not global: the result has an index in UTF-16
		{`s.match(/[a-z]+/gi)`, false},   // case folding differs
		{`s.match(/[a-z]+/gu)`, false},   // unicode mode
		{`s.match(/[a-z]+/gm)`, false},   // ^ and $ at U+2028
		{`s.match(/\s+/g)`, false},       // \s matches outside ASCII
		{`s.match(/\b\w+\b/g)`, false},   // goja reads \b over UTF-16 with Unicode's word characters
		{`s.match(/[^a-z]+/g)`, false},   // so does a negated class
		{`s.match(/[a-z]*/g)`, false},    // matches the empty string
		{`s.match(/a?|b/g)`, false},      // so does this
		{`s.match(/./g)`, false},         // and .
		{`s.match(re)`, false},           // not a literal
		{`s.match(/[a-z]+/g, 1)`, false}, // not match's shape
		{`s.search(/[a-z]+/g)`, false},
		{`s?.match(/[a-z]+/g)`, false}, // the optional chain's short circuit stays
		{`class T extends S { m() { return super.match(/[a-z]+/g) } }`, false},
	} {
		u, err := source.ParseJS("cell.js", []byte(c.src), source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := countCallsOf(rewriteCopy(u.Program).Body, matchOfName) == 1; got != c.want {
			t.Errorf("%s: rewritten %v, want %v", c.src, got, c.want)
		}
	}
}

// TestASCIISubset: the syntax the rewrite reads alike in JS and Go, and what it leaves to goja.
func TestASCIISubset(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`[a-z]+`, true}, {`\w+\d*`, true}, {`(?:a|b){2,3}?`, true}, {`[-a]`, true}, {`[a-]`, true},
		{`[-a-z]`, true}, {`\/\.\-`, true}, {`^a$`, true}, {`()`, true}, {`a|`, true},
		{`[a-z-0]`, false},     // JS: a-z, - and 0; Go would read a range
		{`[--a]`, false},       // a range from -
		{`[\d-z]`, false},      // a class escape then -
		{`[]`, false},          // empty: JS matches nothing, Go reads ] as a member
		{`[^a]`, false},        // negated
		{`[[:alpha:]]`, false}, // Go's named classes
		{`.`, false}, {`\s`, false}, {`\S`, false}, {`\W`, false}, {`\D`, false},
		{`(?=a)`, false}, {`(?!a)`, false}, {`(?<n>a)`, false}, {`(?i)a`, false}, {`(a)\1`, false},
		{`\u0041`, false}, {`\x41`, false}, {`\cA`, false}, {`\0`, false}, {`é`, false},
		{`a{00}`, false}, {`a{01,2}`, false}, {`a{0}`, true}, {`a{1001}`, false}, {`a{2,1}`, false}, {`a{,3}`, false}, {`a{`, false}, {`}`, false}, {`]`, false},
		{`a**`, false}, {`^*`, false}, {`\b+`, false}, {`*a`, false}, {`(a`, false}, {`a)`, false},
		{`\b`, false}, {`\B`, false}, {`[\b]`, false}, {`[a-\d]`, false}, {`[z-a]`, false}, {`\`, false}, {`[a`, false},
	} {
		if got := asciiSubset(c.src); got != c.want {
			t.Errorf("asciiSubset(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}

// FuzzMatchASCII: for any pattern the rewrite takes and any text, the native match gives what
// goja's own match with the same pattern gives, the text held in UTF-8 and in UTF-16.
func FuzzMatchASCII(f *testing.F) {
	for i, p := range matchPatterns {
		f.Add(p, []string{"abc ac aac abac", "naïve café 😀 x1 ab12", "a\xed\xa0\x80b\xff"}[i%3])
	}
	vm := goja.New()
	f.Fuzz(func(t *testing.T, pattern, text string) {
		m, ok := asciiMatcherOf(pattern)
		if !ok {
			return
		}
		re, err := vm.RunString(`(p) => new RegExp(p, "g")`)
		if err != nil {
			t.Fatal(err)
		}
		mk, _ := goja.AssertFunction(re)
		rx, err := mk(goja.Undefined(), vm.ToValue(pattern))
		if err != nil {
			return // not a JS regexp: the literal would not have compiled
		}
		matchFn, _ := goja.AssertFunction(vm.Get("String").ToObject(vm).Get("prototype").ToObject(vm).Get("match"))
		utf8 := vm.ToValue(text).(goja.String)
		for _, s := range []goja.Value{utf8, utf8.Concat(vm.ToValue("é").(goja.String))} {
			want, err := matchFn(s, rx)
			if err != nil {
				t.Fatal(err)
			}
			got := m.match(vm, s.(goja.String))
			if goja.IsUndefined(got) {
				continue // an empty match: declined
			}
			if g, w := jsonOf(t, vm, got), jsonOf(t, vm, want); g != w {
				t.Errorf("/%s/g on %q: got %s, goja %s", pattern, s.String(), g, w)
			}
		}
	})
}

// TestMatchASCIIIsFaster: matching /[a-z]+/g over 2 MB of text goja holds in UTF-16 takes at
// most half of what goja's own match takes (measured: a third to a quarter).
func TestMatchASCIIIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var book = "“It’s a truth,” said the naïve café owner — twice. ".repeat(40000).toLowerCase();`)
	fast, slow := fastestOfThree(t, e, "440000\n", `print(book.match(/[a-z]+/g).length)`, `{ const re = /[a-z]+/g; print(book.match(re).length) }`)
	if fast*2 > slow {
		t.Errorf("match(/[a-z]+/g) took %v, goja's %v: want at most half", fast, slow)
	}
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonOf(t *testing.T, vm *goja.Runtime, v goja.Value) string {
	b, err := json.Marshal(v.Export())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMatchASCIIBounded: a pattern whose matching in Go could outlast the cell's deadline over a
// long text is left to goja, which bounds it; over a short text it is matched in Go.
func TestMatchASCIIBounded(t *testing.T) {
	m, ok := asciiMatcherOf(`\w{1000}\w{1000}\w{1000}B`)
	if !ok {
		t.Fatal("not taken")
	}
	vm := goja.New()
	long := vm.ToValue("é" + strings.Repeat("a", 200000)).(goja.String)
	if got := m.match(vm, long); !goja.IsUndefined(got) {
		t.Errorf("over 200,000 characters: %v, want undefined (declined)", got)
	}
	short := vm.ToValue("é" + strings.Repeat("a", 20)).(goja.String)
	if got := m.match(vm, short); !goja.IsNull(got) {
		t.Errorf("over 21 characters: %v, want null", got)
	}
}
