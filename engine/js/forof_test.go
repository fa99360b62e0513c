package js

import (
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
)

// TestForOfAsNode: for…of behaves as node runs it, over arrays (which take the indexed loop of
// forof.go) and everything else (which keeps for…of): per-iteration bindings, destructuring,
// labels, an array that grows during the loop, holes, a replaced iterator, an array subclass,
// generators closed by break, return from inside, assignment heads. Each want is node v20's
// output for the same code, with print joining its arguments' String() by spaces.
func TestForOfAsNode(t *testing.T) {
	cases := []struct{ src, want string }{
		{`let n = 0; for (const w of ["a", "bb", "ccc"]) { n += w.length } print(n)`, "6\n"},
		{`const out = []; for (const [k, v] of [[1, "x"], [2, "y"]]) out.push(k + v); print(out.join(","))`, "1x,2y\n"},
		{`const fs = []; for (let x of [1, 2, 3]) { fs.push(() => x) } print(fs.map(f => f()).join(","))`, "1,2,3\n"},
		{`let s = ""; outer: for (const a of [1, 2, 3]) { for (const b of [10, 20, 30]) { if (b === 20) continue outer; if (a === 3) break outer; s += a * b + ";" } } print(s)`, "10;20;\n"},
		{`let t = ""; for (const ch of "héllo") t += ch + "."; print(t)`, "h.é.l.l.o.\n"},
		{`let m = 0; for (const [k, v] of new Map([["a", 1], ["b", 2]])) m += v; print(m)`, "3\n"},
		{`const arr = [1, 2, 3]; let seen = []; for (const x of arr) { if (x === 1) arr.push(4); seen.push(x) } print(seen.join(","))`, "1,2,3,4\n"},
		{`let x; const got = []; for (x of [5, 6]) got.push(x); print(got.join(","), x)`, "5,6 6\n"},
		{`var last; for (var v of ["p", "q"]) last = v; print(last, v)`, "q q\n"},
		{`function* g() { try { yield 1; yield 2 } finally { print("closed") } } for (const v of g()) { print(v); break }`, "1\nclosed\n"},
		{`const holes = [1, , 3]; const r = []; for (const h of holes) r.push(String(h)); print(r.join(","))`, "1,undefined,3\n"},
		{`const a2 = [1, 2]; Object.defineProperty(a2, Symbol.iterator, { value: function* () { yield "custom" } }); for (const v of a2) print(v)`, "custom\n"},
		{`function f(xs) { for (const x of xs) { if (x > 1) return x * 10 } return -1 } print(f([1, 2, 3]))`, "20\n"},
		{`let c = 0; for (const x of [1, 2, 3]) { let x2 = x; { const x = 9; c += x + x2 } } print(c)`, "33\n"},
		{`try { for (const v of 5) {} } catch (e) { print(e.constructor.name) }`, "TypeError\n"},
		{`const nested = [[1, 2], [3]]; let sum = 0; for (const row of nested) for (const v of row) sum += v; print(sum)`, "6\n"},
		{`class A extends Array {} const a3 = A.from([7, 8]); let q = 0; for (const v of a3) q += v; print(q)`, "15\n"},
		{`const o = {}; for (o.k of [1, 2]) {} print(o.k)`, "2\n"},
		// The plain-array check reads no getter: the iterator getter runs once, as in node.
		{`let calls = 0; const a = [1, 2]; Object.defineProperty(a, Symbol.iterator, { get() { calls++; return Array.prototype[Symbol.iterator] } }); let s = 0; for (const v of a) s += v; print(calls, s)`, "1 3\n"},
	}
	for _, c := range cases {
		e, _ := newEngine(t, Config{})
		r := run(t, e, c.src)
		if r.Err != nil || r.Stdout != c.want {
			t.Errorf("%s\ngot %q (err %v), want %q", c.src, r.Stdout, r.Err, c.want)
		}
	}
}

// TestForOfRewrite: the innermost for…of loops are rewritten, others and loops whose source
// names the variable they bind are not, and a cell that uses the helper's name is left alone.
func TestForOfRewrite(t *testing.T) {
	cases := []struct {
		src  string
		want int // loops given the indexed path
	}{
		{`for (const x of [1]) {}`, 1},
		{`for (const r of rows) for (const v of r) {}`, 1},
		{`function f(xs) { return () => { for (const x of xs) {} } }`, 1},
		{`L: for (let x of a) { continue L }`, 1},
		{`let x = [1]; { for (const x of x) {} }`, 0},
		{`for (o.k of a) {}`, 0},
		{`for (const x of a) {} const __rlm_plainArray = 1`, 0},
	}
	for _, c := range cases {
		u, err := source.ParseJS("cell.js", []byte(c.src), source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		p := rewriteCopy(u.Program)
		if got := countCallsOf(p.Body, plainArrayName); got != c.want {
			t.Errorf("%s: %d loops rewritten, want %d", c.src, got, c.want)
		}
		if countCallsOf(u.Program.Body, plainArrayName) != 0 {
			t.Errorf("%s: the unit itself was changed", c.src)
		}
	}
}

// TestForOfOverArrayIsFaster: a for…of over a 300,000-element array takes at most two thirds
// of what goja's iterator protocol takes over the same elements (measured: about 40 %).
func TestForOfOverArrayIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var arr = []; for (let i = 0; i < 300000; i++) arr.push("w" + (i % 1000));`)
	timeIt := func(src string) time.Duration {
		start := time.Now()
		r := mustRun(t, e, src)
		if r.Stdout != "1167000\n" {
			t.Fatalf("%s: %q", src, r.Stdout)
		}
		return time.Since(start)
	}
	var fast, slow time.Duration
	for range 3 {
		fast += timeIt(`{ let n = 0; for (const w of arr) { n += w.length } print(n) }`)
		slow += timeIt(`{ let n = 0; for (const w of arr.values()) { n += w.length } print(n) }`)
	}
	t.Logf("array %v, iterator %v", fast/3, slow/3)
	if fast*3 > slow*2 {
		t.Errorf("for…of over an array took %v, over its iterator %v: want at most two thirds", fast/3, slow/3)
	}
}
