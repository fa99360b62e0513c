package js

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja/ast"

	"github.com/rlm-sandbox/rlm/source"
)

// TestConcatAsNode: text appended with += or x = x + … (concat.go) is what node v20 makes of
// the same code: old values kept, two strings grown from one prefix, operands that are not
// strings, non-ASCII and lone surrogates, const, the assignment's value. Each want is node's
// output, with print joining its arguments' String() by spaces.
func TestConcatAsNode(t *testing.T) {
	cases := []struct{ src, want string }{
		{`let s = ""; for (let i = 0; i < 3000; i++) s += "ab" + i; print(s.length, s.slice(0, 10), s.slice(-10))`, "16890 ab0ab1ab2a 2998ab2999\n"},
		{`let n = 0; n += "a"; print(n)`, "0a\n"},
		{`let o = {valueOf() { return 1 }}; o += "x".repeat(3); print(o)`, "1xxx\n"},
		{`let s = "x".repeat(2000); const t = s; s += "y"; print(t.length, s.length, t.endsWith("y"), s.endsWith("y"))`, "2000 2001 false true\n"},
		{`let a = "x".repeat(2000); a += "1"; const b0 = a; a += "2"; let c = b0; c += "3"; print(a.slice(-3), c.slice(-3), b0.slice(-3))`, "x12 x13 xx1\n"},
		{`let s = ""; for (let i = 0; i < 500; i++) s += "é" + "x".repeat(10); print(s.length, s.charCodeAt(0), s.slice(-2), s.indexOf("é", 1))`, "5500 233 xx 11\n"},
		{`let s = "a".repeat(2000); s += "\ud800"; s += "\udc00"; print(s.length, s.codePointAt(2000))`, "2002 65536\n"},
		{`let s = "a".repeat(2000); s += "€".repeat(600); s += "b".repeat(600); print(s.length, s.charCodeAt(2000), s.charCodeAt(2600), s.at(-1))`, "3200 8364 98 b\n"},
		{`let n = 5; n += String(3); print(n, typeof n)`, "53 string\n"},
		{`let s; s += "abc"; print(s)`, "undefinedabc\n"},
		{`{ const k = "a".repeat(2000); try { k += "b" } catch (e) { print(e.constructor.name) } }`, "TypeError\n"},
		{`let s = "q".repeat(1500); const r = (s += "z"); print(r.length, r === s)`, "1501 true\n"},
		{`let s = "x".repeat(3000); s = s + "y".repeat(10); s = s + s; print(s.length, s.slice(2995, 3015))`, "6020 xxxxxyyyyyyyyyyxxxxx\n"},
		{"let s = \"\"; for (let i = 0; i < 2000; i++) { s += `${i},`; if (i % 500 === 0) print(s.length) } print(s.length)", "2\n1894\n3895\n6395\n8890\n"},
		{`let parts = ["α".repeat(700), "b".repeat(700)]; let s = ""; for (const p of parts) s += p.slice(0); print(s.length, s[699], s[700], s[1399])`, "1400 α b b\n"},
		{`let s = "z".repeat(1200); let t = s; t += ""; print(t === s, t.length)`, "true 1200\n"},
		{"let a = \"\", b = \"\", c = \"\"; for (let i = 0; i < 2000; i++) { a += \"x\" + i; b += \"y\" + i; if (i % 3 === 0) c += `${i};` } print(a.length, b.length, c.length, a.slice(-5), b.slice(-5), c.slice(-5))", "8890 8890 2963 x1999 y1999 1998;\n"},
	}
	for _, c := range cases {
		e, _ := newEngine(t, Config{})
		r := run(t, e, c.src)
		if r.Err != nil || r.Stdout != c.want {
			t.Errorf("%s\ngot %q (err %v), want %q", c.src, r.Stdout, r.Err, c.want)
		}
	}
}

// TestConcatPeekLoop: a context read in pieces with += is the context, ASCII or not.
func TestConcatPeekLoop(t *testing.T) {
	for _, text := range []string{strings.Repeat("line of ascii text\n", 4000), strings.Repeat("naïve café € 😀 line\n", 3000)} {
		h := newFakeHost(text)
		e, err := New(Config{}, h)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, e, `const n = length(context); let s = ""; for (let off = 0; off < n; off += 1000) s += peek(context, off, 1000); const parts = []; for (let off = 0; off < n; off += 1000) parts.push(peek(context, off, 1000)); print(s === parts.join(""), [...s].length === n)`)
		if r.Stdout != "true true\n" {
			t.Errorf("got %q", r.Stdout)
		}
		e.Close()
	}
}

// TestConcatRewrite: which assignments are rewritten.
func TestConcatRewrite(t *testing.T) {
	cases := []struct {
		src  string
		want int
	}{
		{`let s = ""; s += peek(context, 0, 10)`, 1},
		{`let s = ""; s = s + text(context)`, 1},
		{"let s = \"\"; s += `${1}`", 1},
		{`let s = ""; s += x + "\n"`, 1},
		{`let s = ""; s += a.join(",")`, 1},
		{`let s = ""; s += JSON.stringify(o)`, 1},
		{`let n = 0; n += 1`, 0},
		{`let n = 0; n += x.length`, 0},
		{`let n = 0; n = n + 1`, 0},
		{`let s = ""; s = t + "x"`, 0},
		{`o.s += "x"`, 0},
		{`let s = ""; s += "x"; const __rlm_cat = 1`, 0},
	}
	for _, c := range cases {
		u, err := source.ParseJS("cell.js", []byte(c.src), source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		p := rewriteCopy(u.Program)
		if got := countCallsOf(p.Body, catName); got != c.want {
			t.Errorf("%s: %d assignments rewritten, want %d", c.src, got, c.want)
		}
		if countCallsOf(u.Program.Body, catName) != 0 {
			t.Errorf("%s: the unit itself was changed", c.src)
		}
	}
}

// countCallsOf counts the calls of the global name below body.
func countCallsOf(body any, name string) int {
	n := 0
	each(reflect.ValueOf(body), func(x reflect.Value) bool {
		if c, ok := x.Interface().(ast.CallExpression); ok {
			if id, ok := c.Callee.(*ast.Identifier); ok && string(id.Name) == name {
				n++
			}
		}
		return true
	})
	return n
}

// TestConcatIsLinear: reading a context in 16,000-character pieces with += costs in proportion
// to its length, also when two strings grow at once: 8 times the text takes well under 24 times
// as long (goja's own concatenation takes about 64 times as long, copying the string built so
// far at every piece).
func TestConcatIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	one := `const n = length(context); let s = ""; for (let off = 0; off < n; off += 16000) s += peek(context, off, 16000); print(s.length === n)`
	// Two strings grown at once, each in its own buffer.
	two := `const n = length(context); let s = "", t = ""; for (let off = 0; off < n; off += 16000) { s += peek(context, off, 16000); t += peek(context, off, 16000) } print(s.length === n && t === s)`
	for _, cell := range []string{one, two} {
		linear(t, cell)
	}
}

// linear times cell over 2 and 16 MB and fails t if the larger took 24 times as long or more:
// linear work takes about 8 times as long, quadratic 64, and the gap leaves room for a loaded
// machine (4 and 16 MB, 4 against 16, did not).
func linear(t *testing.T, cell string) {
	timeIt := func(mb int) time.Duration {
		e, err := New(Config{}, newFakeHost(strings.Repeat("2026-11-29 INFO a line of a log\n", mb<<15)))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			if r := mustRun(t, e, cell); r.Stdout != "true\n" {
				t.Fatalf("got %q", r.Stdout)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	small, large := timeIt(2), timeIt(16)
	t.Logf("2 MB %v, 16 MB %v", small, large)
	if large > 24*small {
		t.Errorf("16 MB took %v, 2 MB %v: want well under 24 times as long", large, small)
	}
}

// TestRewriteHelpersHold: the globals the rewritten cells call cannot be replaced by a cell, so
// a later cell's rewritten code runs the engine's helpers, not a cell's.
func TestRewriteHelpersHold(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := run(t, e, `for (const name of ["__rlm_cat", "__rlm_take", "__rlm_rest", "__rlm_plainArray", "__rlm_splitWS", "__rlm_splitWSOf", "__rlm_matchOf", "__rlm_sortNum"]) {
  try { globalThis[name] = () => "pwned" } catch (e) { }
  try { this[name] = () => "pwned" } catch (e) { print(name, e.constructor.name, Object.isFrozen(this[name])) }
}
try { JSON.parse = () => "pwned" } catch (e) { print("JSON.parse", e.constructor.name) }`)
	want := "__rlm_cat TypeError true\n__rlm_take TypeError true\n__rlm_rest TypeError true\n__rlm_plainArray TypeError true\n__rlm_splitWS TypeError true\n__rlm_splitWSOf TypeError true\n__rlm_matchOf TypeError true\n__rlm_sortNum TypeError true\nJSON.parse TypeError\n"
	if r.Err != nil || r.Stdout != want {
		t.Errorf("got %q (%v), want %q", r.Stdout, r.Err, want)
	}
	if r := run(t, e, `var __rlm_cat = 1`); r.Err == nil {
		t.Errorf("a top-level declaration of a helper's name ran")
	}
	r = run(t, e, `function f(xs) { let s = "a".repeat(2000); s += "b"; let [x, , y] = xs; for (const [k, v] of [[1, 2]]) y += k + v; return [s.length, x + y, s.split(/\s+/).length, JSON.parse("[1]").length, "é a b".match(/[a-z]/g).length, [3, 1, 2].sort((a, b) => b - a)[0]].join() }
print(f([1, 0, 2]))`)
	if r.Err != nil || r.Stdout != "2001,6,1,1,2,3\n" {
		t.Errorf("after the attempts: %q (%v)", r.Stdout, r.Err)
	}
}
