package js

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/source"
)

// TestSortNumAsGoja: X.sort((a, b) => a - b) and b - a, which the rewrite sorts in Go
// (sortnum.go), leave X, return and log what goja's own sort gives with the same comparator
// held in a variable (which the rewrite leaves alone): integers and floats, -0 and +0, NaN and
// infinities, undefined, holes, strings of digits, Dates, objects whose valueOf logs or writes
// to the array, Number objects with their own conversion, a BigInt among numbers (F throws
// midway) with holes, accessors or frozen, a non-extensible array, a longer length, a named
// property, a typed array, an array with its own sort, a subclass, and not an array.
func TestSortNumAsGoja(t *testing.T) {
	e, _ := newEngine(t, Config{})
	arrays := []string{
		`[3, 1, 2, 10, -5, 2**40, -(2**40), 7]`,
		`[1.5, -0, 0, 2, -0, 0.1 + 0.2, 0.3, 1e308, -1e308, 5e-324]`,
		`[3, NaN, 1, NaN, 2, Infinity, -Infinity, Infinity, 0]`,
		`[3, undefined, 1, undefined, 2]`,
		`[3, , 1, , 2, , ]`,
		`["10", "9", 8, "1e1", "x", null, true]`,
		`[new Date(2026, 1, 1), new Date(2020, 1, 1), new Date(2023, 1, 1)]`,
		`[3, 1, 2].map(n => ({ n, valueOf() { log.push("v" + n); return n } }))`,
		`[5, 1, 4, 2n, 3, 0]`,
		`Object.freeze([3, 1, 2])`,
		`(() => { const a = [3, 1, 2]; Object.defineProperty(a, 1, { get() { log.push("get"); return 9 }, set(v) { log.push("set" + v) }, configurable: true }); return a })()`,
		`new Float64Array([3, 1, 2, -0, 0])`,
		`(() => { const a = [3, 1, 2]; Object.defineProperty(a, "sort", { value: () => "own" }); return a })()`,
		`(() => { class A extends Array {}; return A.from([3, 1, 2]) })()`,
		`({ length: 3, 0: 3, 1: 1, 2: 2 })`,
		`[]`, `[1]`,
		`(() => { const n = new Number(5); n[Symbol.toPrimitive] = () => { log.push("tp"); return -100 }; return [1, n, 3] })()`,
		`(() => { const a = [3, 1, { valueOf() { a[0] = 42; return 2 } }, 0]; return a })()`,
		`[5, , 1, 4, 2n, 3, 0]`,
		`(() => { const a = [5, 1, 4, 2n, 3, 0]; Object.defineProperty(a, 5, { get() { log.push("get"); return 0 }, set(v) { log.push("set" + v) }, configurable: true }); return a })()`,
		`Object.freeze([5, 1, 4, 2n, 3, 0])`,
		`Object.preventExtensions([3, 1, 2])`,
		`(() => { const a = [3, 1, 2]; a.length = 5; return a })()`,
		`(() => { const a = [3, 1, 2]; a.extra = "x"; return a })()`,
		"Array.from({ length: 3000 }, (_, i) => [i % 7, -0, 0, NaN, Infinity, -Infinity, i / 3, -i][(i * 7919) % 8])",
		"Array.from({ length: 3000 }, (_, i) => (i * 7919) % 1009 - 500 + (i % 3 ? 0.5 : 0))",
		"Array.from({ length: 3000 }, (_, i) => i % 5 ? (i * 7919) % 1009 : String(i % 11))",
	}
	for _, arr := range arrays {
		for _, cmp := range []string{`(a, b) => a - b`, `function (x, y) { return y - x }`} {
			src := `{ const log = [];
const show = (x) => { try { return JSON.stringify(x, (k, v) => typeof v === "bigint" ? v + "n" : Object.is(v, -0) ? "-0" : v) } catch (e) { return String(e) } };
const run = (f) => { log.length = 0; const x = ` + arr + `; let r; try { r = f(x); r = r === x ? "same" : show(r) } catch (e) { r = "threw " + e } return r + " " + show(Array.isArray(x) || ArrayBuffer.isView(x) ? Array.from(x) : x) + " " + log.join() };
const held = ` + cmp + `;
const got = run((x) => x.sort(` + cmp + `)), want = run((x) => x.sort(held));
print(got === want, got, want) }`
			r := mustRun(t, e, src)
			if !strings.HasPrefix(r.Stdout, "true ") {
				t.Errorf("%s.sort(%s):\n%s", arr, cmp, r.Stdout)
			}
		}
	}
}

// TestSortKeysAsGoja: comparators of properties and elements (a.n - b.n, b[1] - a[1] || …),
// which the rewrite sorts in Go, give what goja's sort gives with the same comparator held in a
// variable, over objects and entries with ties, NaN, -0, missing keys, getters on the object or
// its class, Number objects, strings, holes, frozen objects and mixed shapes.
func TestSortKeysAsGoja(t *testing.T) {
	e, _ := newEngine(t, Config{})
	arrays := []string{
		`Array.from({ length: 3000 }, (_, i) => ({ n: (i * 7919) % 101, m: i % 7, id: i }))`,
		`Array.from({ length: 3000 }, (_, i) => [String(i % 13), (i * 7919) % 101 / 4])`,
		`[{ n: 2 }, { n: NaN }, { n: 1 }, { n: -0 }, { n: 0 }, { n: Infinity }, { n: 1 }]`,
		`[{ n: 2 }, {}, { n: 1 }]`,
		`[{ n: 2 }, { get n() { log.push("get"); return 3 } }, { n: 1 }]`,
		`(() => { class C { constructor(v) { this.v = v } get n() { log.push("cget"); return this.v } } return [new C(2), new C(1)] })()`,
		`[{ n: 2 }, { n: new Number(1) }, { n: 3 }]`,
		`[{ n: "2" }, { n: 1 }, { n: 3 }]`,
		`[[2, 1], [1, 2], [, 3], [0, 0]]`,
		`[Object.freeze({ n: 2, m: 1, id: 0 }), { n: 1, m: 2, id: 1 }]`,
		`[{ n: 2, m: 1, id: 0 }, [1, 2], 5]`,
		`Array.from({ length: 300 }, (_, i) => ({ n: [1, -0, 0, NaN][i % 4], m: (i * 31) % 7, id: i }))`,
	}
	arrays = append(arrays, `[{ é: 1, "\uFFFD\uFFFD\uFFFD\u0000": 3, n: 1 }, { é: 3, "\uFFFD\uFFFD\uFFFD\u0000": 1, n: 2 }, { é: 2, "\uFFFD\uFFFD\uFFFD\u0000": 2, n: 3 }]`)
	cmps := []string{
		`(a, b) => a.é - b.é`,
		`(a, b) => a.n - b.n`, `(a, b) => b.n - a.n || a.id - b.id`, `(a, b) => b.n - a.n || a.m - b.m || b.id - a.id`,
		`(a, b) => b[1] - a[1]`, `function (x, y) { return x[0] - y[0] || y[1] - x[1] }`,
	}
	for _, arr := range arrays {
		for _, cmp := range cmps {
			src := `{ const log = [];
const run = (f) => { log.length = 0; const x = ` + arr + `; let r; try { r = f(x); r = r === x ? "same" : "other" } catch (e) { r = "threw " + e } return r + " " + JSON.stringify(x.map((v) => typeof v === "object" && v && !Array.isArray(v) ? Object.entries(v).map(([k, w]) => k + ":" + (Object.is(w, -0) ? "-0" : String(w))).join(";") : v)) + " " + log.join() };
const held = ` + cmp + `;
const got = run((x) => x.sort(` + cmp + `)), want = run((x) => x.sort(held));
print(got === want, got.slice(0, 300), want.slice(0, 300)) }`
			r := mustRun(t, e, src)
			if !strings.HasPrefix(r.Stdout, "true ") {
				t.Errorf("%s.sort(%s):\n%s", arr, cmp, r.Stdout)
			}
		}
	}
}

// TestSortNumRewrite: which sorts are rewritten.
func TestSortNumRewrite(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{`xs.sort((a, b) => a - b)`, 1},
		{`xs.sort((a, b) => b - a)`, 1},
		{`xs.sort(function (a, b) { return a - b })`, 1},
		{`const s = [...m.values()].sort((x, y) => y - x)`, 1},
		{`xs.sort((a, b) => a.n - b.n)`, 1},
		{`xs.sort((a, b) => b[1] - a[1])`, 1},
		{`xs.sort((a, b) => b.qty - a.qty || a.id - b.id)`, 1},
		{`xs.sort((a, b) => a.n - b.m)`, 0},
		{`xs.sort((a, b) => a.n - a.n)`, 0},
		{`xs.sort((a, b) => a - b || a.x - b.x)`, 0},
		{`xs.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))`, 0},
		{`xs.sort((a, b) => a[i] - b[i])`, 0},
		{`xs.sort((a, b) => a.n.m - b.n.m)`, 0},
		{`xs.sort((a, b) => a - a)`, 0},
		{`xs.sort((a, a2) => a + a2)`, 0},
		{`xs.sort(async (a, b) => a - b)`, 0},
		{`xs.sort((a, b = 0) => a - b)`, 0},
		{`xs.sort((a, ...b) => a - b)`, 0},
		{`xs.sort(cmp)`, 0},
		{`xs.sort()`, 0},
		{`xs?.sort((a, b) => a - b)`, 0}, // the optional chain's short circuit stays
		{`o.a?.b.sort((a, b) => a - b)`, 0},
		{`class A extends Array { m() { return super.sort((a, b) => a - b) } }`, 0},
		{`xs.sort((a, b) => { log(a); return a - b })`, 0},
	} {
		u, err := source.ParseJS("cell.js", []byte(c.src), source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := countCallsOf(rewriteCopy(u.Program).Body, sortNumName); got != c.want {
			t.Errorf("%s: %d rewritten, want %d", c.src, got, c.want)
		}
	}
}

// TestSortNumIsFaster: sorting 100,000 numbers with (a, b) => a - b takes at most a fifth of
// what goja's sort with the same comparator held in a variable takes (measured: a twentieth).
func TestSortNumIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var xs = []; for (let i = 0; i < 100000; i++) xs.push((i * 7919) % 100003 / 7);`)
	fast, slow := fastestOfThree(t, e, "0 14286\n", `{ const a = xs.slice(); a.sort((x, y) => x - y); print(a[0], Math.round(a[a.length - 1])) }`, `{ const a = xs.slice(); const f = (x, y) => x - y; a.sort(f); print(a[0], Math.round(a[a.length - 1])) }`)
	if fast*5 > slow {
		t.Errorf("sort((x, y) => x - y) took %v, goja's %v: want at most a fifth", fast, slow)
	}
}

// TestGojaPanicIsAnError: a panic inside goja (its in-place sort indexes past an array that a
// comparator's valueOf shortened) ends the cell with an error and asks for a rebuild, instead
// of killing the worker.
func TestGojaPanicIsAnError(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := run(t, e, `let once = true; const a = [3, 1, { valueOf() { if (once) { once = false; a.length = 1 } return 2 } }, 0];
const f = (x, y) => x - y; a.sort(f)`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "internal error in the JS engine") || !r.Rebuild {
		t.Errorf("got %v, rebuild %v", r.Err, r.Rebuild)
	}
}

// TestRewritesKeepReceivers: the rewrites that move a method call's receiver into an argument
// (match, sort, split) leave optional chains and super alone, so their short circuit and their
// binding stay, and an error on the receiver is reported where goja reports it.
func TestRewritesKeepReceivers(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, src := range []string{
		`{ let x; print(x?.match(/a/g), x?.sort((a, b) => a - b), x?.split(/\s+/)) }`,
		`{ const o = {}; print(o.a?.b.match(/a/g), o.a?.b.sort((a, b) => a - b), o.a?.b.split(/\s+/)) }`,
		`{ class A extends Array { m() { return super.sort((a, b) => a - b) } } print(JSON.stringify(A.from([3, 1, 2]).m())) }`,
		`{ class S { match() { return "S.match" } split() { return "S.split" } } class T extends S { m() { return super.match(/a/g) + super.split(/\s+/) } } print(new T().m()) }`,
	} {
		got := run(t, e, src)
		e2, _ := newEngine(t, Config{AsWritten: true})
		want := run(t, e2, src)
		if got.Stdout != want.Stdout || (got.Err == nil) != (want.Err == nil) || got.Stdout == "" {
			t.Errorf("%s: got %q (%v), as written %q (%v)", src, got.Stdout, got.Err, want.Stdout, want.Err)
		}
	}
	for _, src := range []string{`{ let x; x.match(/a/g) }`, `{ let x; x.sort((a, b) => a - b) }`, `{ let x; x.split(/\s+/) }`} {
		got := run(t, e, src)
		e2, _ := newEngine(t, Config{AsWritten: true})
		want := run(t, e2, src)
		if got.Err == nil || want.Err == nil || got.Err.Error() != want.Err.Error() {
			t.Errorf("%s: got %v, as written %v", src, got.Err, want.Err)
		}
	}
}

// TestSortKeysIsFaster: sorting 100,000 objects by two fields takes at most a third of what
// goja's sort with the same comparator held in a variable takes (measured: a quarter; reading
// each key runs through reflect to tell a plain property from a getter).
func TestSortKeysIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var rows = []; for (let i = 0; i < 100000; i++) rows.push({ id: i, qty: (i * 7919) % 100003 % 50 });`)
	fast, slow := fastestOfThree(t, e, "49 189\n", `{ const a = rows.slice(); a.sort((x, y) => y.qty - x.qty || x.id - y.id); print(a[0].qty, a[0].id) }`, `{ const a = rows.slice(); const f = (x, y) => y.qty - x.qty || x.id - y.id; a.sort(f); print(a[0].qty, a[0].id) }`)
	if fast*3 > slow {
		t.Errorf("the rewritten sort took %v, goja's %v: want at most a third", fast, slow)
	}
}

// TestSortKeysBounded: keyed sorts over more element × key reads than maxSortKeyReads go to
// goja, whose calls of the comparator the deadline can stop.
func TestSortKeysBounded(t *testing.T) {
	e, _ := newEngine(t, Config{})
	native, err := e.sortNum()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.vm.Set("__rlm_sortNum_probe", native); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, e, `{ const o = { a: 1, b: 2 }; const xs = new Array(2 ** 17 + 1).fill(o); xs[0] = { a: 0, b: 0 };
const f = __rlm_sortNum_probe; print(f(xs, (x, y) => x.a - y.a || x.b - y.b, "+.a,+.b") === undefined, f(xs.slice(0, 2 ** 17), (x, y) => x.a - y.a || x.b - y.b, "+.a,+.b") === undefined) }`)
	if r.Stdout != "true false\n" {
		t.Errorf("got %q, want the longer array declined and the shorter sorted", r.Stdout)
	}
}
