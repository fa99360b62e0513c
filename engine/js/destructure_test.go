package js

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
)

// TestDestructureAsNode: array patterns (destructure.go) bind what node v20 binds: by index
// from plain arrays, through the protocol from strings, Maps, Sets, generators (closed after the
// last value read), subclasses and replaced iterators; defaults, holes, rest, parameters,
// for…of heads, arguments, per-iteration bindings, the TDZ of a loop head. Each want is node's
// output, with print joining its arguments' String() by spaces.
func TestDestructureAsNode(t *testing.T) {
	cases := []struct{ src, want string }{
		{`function f(r) { const [, , , p, , q, , s] = r.split(","); return [p, q, s].join("|") } print(f("a,b,c,d,e,f,g,h"))`, "d|f|h\n"},
		{`{ const [a = 1, b = "x", c = null] = [undefined, 2]; print(a, b, c) }`, "1 2 null\n"},
		{`{ const [h, ...rest] = [1, 2, 3]; print(h, rest.length, rest.join()) }`, "1 2 2,3\n"},
		{`{ const [a, ...r] = [1, , 3]; print(r.length, 0 in r, r[0]) }`, "2 true undefined\n"},
		{`function* g() { try { yield 1; yield 2; yield 3 } finally { print("closed") } } { const [a, b] = g(); print(a, b) }`, "closed\n1 2\n"},
		{`{ const [c1, c2] = "héllo"; print(c1, c2) }`, "h \u00e9\n"},
		{`{ const m = new Map([["a", 1], ["b", 2]]); let s = ""; for (const [k, v] of m) s += k + v; print(s) }`, "a1b2\n"},
		{`print([["a", 3], ["b", 1], ["c", 2]].sort(([, x], [, y]) => x - y).map(([k]) => k).join(""))`, "bca\n"},
		{`function f() { const [a, b] = 5 } try { f() } catch (e) { print(e.constructor.name) }`, "TypeError\n"},
		{`{ const a = [1, 2]; Object.defineProperty(a, Symbol.iterator, { value: function* () { yield "x"; yield "y" } }); const [p, q] = a; print(p, q) }`, "x y\n"},
		{`{ const [a, b, c] = [1]; print(a, b, c) }`, "1 undefined undefined\n"},
		{`{ const fs = []; for (const [k] of new Set([[1], [2]])) fs.push(() => k); print(fs.map(f => f()).join(",")) }`, "1,2\n"},
		{`const g = ([a, b]) => { var a2 = a; return a2 + b }; print(g([1, 2]))`, "3\n"},
		{`function h([a], b) { { let a = 5 } return a + b } print(h([1], 2))`, "3\n"},
		{`function k([a, b]) { return arguments.length + a } print(k([1, 2]), k.length)`, "2 1\n"},
		{`{ let out = []; for (let i = 0; i < 3; i++) { let [x, y] = [i, i * 2]; x += y; out.push(x) } print(out.join()) }`, "0,3,6\n"},
		{`{ try { for (const [x] of [[x]]) {} } catch (e) { print(e.constructor.name) } }`, "ReferenceError\n"},
		{`print(JSON.stringify([[1, 2]].map(([a, b]) => ({ a, b }))))`, "[{\"a\":1,\"b\":2}]\n"},
		{`(async ([a, b]) => { print(a + b) })([1, 2])`, "3\n"},
		{`class A extends Array {} { const [p, q] = A.from([3, 4]); print(p, q) }`, "3 4\n"},
		{`{ const [a = -1] = []; print(a) }`, "-1\n"},
		{`{ const [a, b, ...r] = [1]; print(a, b, r.length) }`, "1 undefined 0\n"},
		{`print(Object.entries({x: 1, y: 2}).map(([k, v]) => k + v).join())`, "x1,y2\n"},
		{`{ const pairs = [[1, 2], [3, 4]]; let s = 0; for (const [a, b] of pairs) s += a * b; print(s) }`, "14\n"},
		{`{ function* nat() { let i = 0; while (true) yield i++ } const [a, b, c] = nat(); print(a, b, c) }`, "0 1 2\n"},
		{`{ const [x, y] = [1, 2], z = 3, [w] = [4]; print(x, y, z, w) }`, "1 2 3 4\n"},
		{`function m(a, [b, c], ...r) { return a + b + c + r.length } print(m(1, [2, 3], 4, 5), m.length)`, "8 2\n"},
	}
	for _, c := range cases {
		e, _ := newEngine(t, Config{})
		r := run(t, e, c.src)
		if r.Err != nil || r.Stdout != c.want {
			t.Errorf("%s\ngot %q (err %v), want %q", c.src, r.Stdout, r.Err, c.want)
		}
	}
}

// TestDestructureRewrite: which patterns are read by index.
func TestDestructureRewrite(t *testing.T) {
	cases := []struct {
		src  string
		want int // calls of __rlm_take
	}{
		{`function f(r) { const [a, , b] = r.split(",") }`, 1},
		{`const [a, b] = x`, 0}, // top level: runs once
		{`{ let [a = 0, ...r] = x }`, 1},
		{`{ const [a = f()] = x }`, 0},    // a default with effects
		{`{ const [[a], b] = x }`, 0},     // a nested pattern
		{`{ const {a, b} = x }`, 0},       // an object pattern
		{`for (const [k, v] of m) {}`, 2}, // the indexed loop and for…of (forof.go)
		{`for (const [k, v] of k) {}`, 0}, // the source names a bound name
		{`xs.map(([k, v]) => k + v)`, 1},
		{`xs.sort(([, a], [, b]) => a - b)`, 2},
		{`xs.map(([k, v] = []) => k)`, 0},                 // a parameter default
		{`function f([a]) { "use strict"; return a }`, 0}, // a directive
		{`function* g([a]) { yield a }`, 0},               // a generator
		{`function f([a]) { var a = 1; return a }`, 0},    // the body declares a
		{`function f(a, [a2], [b, c]) { return a }`, 2},
		{`{ const [a] = x; const __rlm_take = 1 }`, 0},
	}
	for _, c := range cases {
		u, err := source.ParseJS("cell.js", []byte(c.src), source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		p := rewriteCopy(u.Program)
		if got := countCallsOf(p.Body, takeName); got != c.want {
			t.Errorf("%s: %d patterns rewritten, want %d", c.src, got, c.want)
		}
	}
}

// TestDestructureErrorPosition: a value that cannot be destructured fails at the cell's line of
// the pattern, with goja's message.
func TestDestructureErrorPosition(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := run(t, e, "function f() {\n  const [a, b] = 5\n}\nf()")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "cell.js:2:") || !strings.Contains(r.Err.Error(), "TypeError: object is not iterable") {
		t.Errorf("got %v", r.Err)
	}
}

// TestDestructureIsFaster: destructuring eight fields of a split line takes at most half of
// what goja's protocol takes (measured: about a third).
func TestDestructureIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var rows = []; for (let i = 0; i < 100000; i++) rows.push(["a", "b", "c", "p" + (i % 50), "x", String(i % 7), "y", "done"]);`)
	timeIt := func(src string) time.Duration {
		start := time.Now()
		if r := mustRun(t, e, src); r.Stdout != "300000\n" {
			t.Fatalf("%s: %q", src, r.Stdout)
		}
		return time.Since(start)
	}
	var fast, slow time.Duration
	for range 3 {
		fast += timeIt(`{ let n = 0; for (let i = 0; i < rows.length; i++) { const [, , , p, , q, , s] = rows[i]; n += q.length * 0 + 3 } print(n) }`)
		slow += timeIt(`{ let n = 0; for (let i = 0; i < rows.length; i++) { const [, , , p, , q, , s] = rows[i].values(); n += q.length * 0 + 3 } print(n) }`)
	}
	t.Logf("array %v, iterator %v", fast/3, slow/3)
	if fast*2 > slow {
		t.Errorf("destructuring an array took %v, an iterator %v: want at most half", fast/3, slow/3)
	}
}

// TestDestructureHelpersRefuse: the helpers a cell could call itself stay bounded: __rlm_rest
// declines what is not a plain array, a pattern too long and an array too long (the rewritten
// code then reads through the protocol), and __rlm_take is a JS loop a deadline stops.
func TestDestructureHelpersRefuse(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := run(t, e, `const big = []; big.length = 2 ** 31; print(__rlm_rest({length: 5}, 1), __rlm_rest([1, 2], 1e9), __rlm_rest(big, 0), __rlm_rest([1, 2, 3], 1))`)
	if r.Err != nil || r.Stdout != "undefined undefined undefined [1,[2,3]]\n" {
		t.Errorf("got %q, %v", r.Stdout, r.Err)
	}
	start := time.Now()
	r = runFor(t, e, `function* nat() { let i = 0; while (true) yield i++ } __rlm_take(nat(), 1e15, false)`, 300*time.Millisecond)
	if r.Err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("an endless take: %v after %v", r.Err, time.Since(start))
	}
}
