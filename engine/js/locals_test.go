package js

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestLocals: each variable's type (typeof, or the constructor's name), a short rendering as a
// console shows it, and its length.
func TestLocals(t *testing.T) {
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `
const lines = "a,b,c".split(",");
const counts = new Map([["x", 1], ["y", 2]]);
const seen = new Set([1, 2]);
const obj = {a: 1, "b c": "x", nested: {d: [1, 2]}};
let n = 3, s = "hé", u, z = null, big = 10n, yes = true;
const when = new Date(0);
const re = /(\d+)-x/gi;
function fn(a) { return a }
class Row { constructor(a) { this.a = a } }
const row = new Row(5);
const err = new Error("boom");
const doc = context;
const cyc = {}; cyc.self = cyc;
const long = "é".repeat(1000);
const astral = "a😀b", wide = "😀".repeat(1000) + "é";
const many = new Array(5000).fill(7);
const dict = {}; for (let i = 0; i < 1000; i++) dict["k" + i] = i;
`)
	got := map[string]engine.Var{}
	for _, v := range e.Locals() {
		got[v.Name] = v
	}
	tests := []engine.Var{
		{Name: "lines", Type: "Array", Repr: `["a", "b", "c"]`, Len: 3},
		{Name: "counts", Type: "Map", Repr: `Map(2) {"x" => 1, "y" => 2}`, Len: 2},
		{Name: "seen", Type: "Set", Repr: `Set(2) {1, 2}`, Len: 2},
		{Name: "obj", Type: "Object", Repr: `{a: 1, "b c": "x", nested: {d: [1, 2]}}`, Len: -1},
		{Name: "n", Type: "number", Repr: "3", Len: -1},
		{Name: "s", Type: "string", Repr: `"hé"`, Len: 2},
		{Name: "u", Type: "undefined", Repr: "undefined", Len: -1},
		{Name: "z", Type: "null", Repr: "null", Len: -1},
		{Name: "big", Type: "bigint", Repr: "10n", Len: -1},
		{Name: "yes", Type: "boolean", Repr: "true", Len: -1},
		{Name: "when", Type: "Date", Repr: "1970-01-01T00:00:00.000Z", Len: -1},
		{Name: "re", Type: "RegExp", Repr: `/(\d+)-x/gi`, Len: -1},
		{Name: "fn", Type: "function", Repr: "[Function: fn]", Len: -1},
		{Name: "row", Type: "Row", Repr: "Row {a: 5}", Len: -1},
		{Name: "err", Type: "Error", Repr: "Error: boom", Len: -1},
		{Name: "doc", Type: "Context", Repr: "context", Len: -1},
		{Name: "cyc", Type: "Object", Repr: "{self: [Circular]}", Len: -1},
	}
	for _, want := range tests {
		if g := got[want.Name]; g != want {
			t.Errorf("%s: got %+v, want %+v", want.Name, g, want)
		}
	}
	for _, c := range []struct{ name, suffix string }{{"long", `…" (1,000 characters)`}, {"wide", `…" (1,001 characters)`}, {"many", " more]"}, {"dict", ", …}"}} {
		v := got[c.name]
		if n := utf8.RuneCountInString(v.Repr); n > engine.MaxReprChars || !strings.HasSuffix(v.Repr, c.suffix) {
			t.Errorf("%s: repr of %d characters %q, want at most %d ending in %q", c.name, n, v.Repr, engine.MaxReprChars, c.suffix)
		}
	}
	// A string's length is in characters (code points), as the prompt and the API count them,
	// not in UTF-16 units (.length): "a😀b" is 3 characters, 4 units.
	if got["long"].Len != 1000 || got["astral"].Len != 3 || got["wide"].Len != 1001 || got["many"].Len != 5000 {
		t.Errorf("lengths: long %d, astral %d, wide %d, many %d; want 1000, 3, 1001 (characters), 5000", got["long"].Len, got["astral"].Len, got["wide"].Len, got["many"].Len)
	}
	var names []string
	for _, v := range e.Locals() {
		names = append(names, v.Name)
	}
	if vars := e.Vars(); strings.Join(names, ",") != strings.Join(vars, ",") {
		t.Errorf("Locals are in the order of Vars: got %v, want %v", names, vars)
	}
}

// TestLocalsRunNoModelCode: a getter, an iterator, toString and toJSON of the model's are never
// called (there is no cell to bound them), and at most engine.MaxLocals variables are described.
func TestLocalsRunNoModelCode(t *testing.T) {
	e, _ := newEngine(t, Config{})
	var b strings.Builder
	for i := range engine.MaxLocals + 20 {
		b.WriteString("const v" + strings.Repeat("y", i/26) + string(rune('a'+i%26)) + " = 1;\n")
	}
	b.WriteString(`let calls = 0;
const getter = { get x() { calls++; while (true) {} } };
const listy = [1]; Object.defineProperty(listy, 0, { get() { calls++; return 2 } });
const m = new Map([[1, 2]]); Object.defineProperty(m, Symbol.iterator, { value: function* () { calls++; yield [3, 4] } });
const s = new Set([1]); Object.defineProperty(s, "values", { value: () => { calls++; return [][Symbol.iterator]() } });
Object.defineProperty(s, "size", { get() { calls++; return 99 } });
const str = { toString() { calls++; return "x" }, toJSON() { calls++; return 1 } };
`)
	mustRun(t, e, b.String())
	got := map[string]engine.Var{}
	locals := e.Locals()
	for _, v := range locals {
		got[v.Name] = v
	}
	if r := mustRun(t, e, "print(calls)"); r.Stdout != "0\n" {
		t.Errorf("Locals ran model code: calls = %q", r.Stdout)
	}
	if n, vars := len(locals), len(e.Vars()); n != engine.MaxLocals || vars <= engine.MaxLocals {
		t.Errorf("%d variables described of %d, want %d", n, vars, engine.MaxLocals)
	}
	for name, want := range map[string]string{"getter": "{x: [Getter]}", "listy": "[[Getter]]", "m": "Map(1) {1 => 2}", "s": "Set(1) {1}"} {
		if v := got[name]; v.Repr != want {
			t.Errorf("%s: repr %q, want %q", name, v.Repr, want)
		}
	}
}

// BenchmarkLocals: describing a session's variables costs what the short renderings cost, not
// the size of the values: a 30 MB string and an Array of a million elements; a Map of 100,000
// entries. An object of 100,000 keys costs a copy of its key list (goja's for-in copies it).
func BenchmarkLocals(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"string30MB+array1e6", `const big = "x".repeat(30 * 1024 * 1024); const many = new Array(1000000).fill(7);`},
		{"map1e5", `const counts = new Map(); for (let i = 0; i < 100000; i++) counts.set("w" + i, i);`},
		{"object1e5", `const words = {}; for (let i = 0; i < 100000; i++) words["w" + i] = i;`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, _ := newEngine(b, Config{})
			mustRun(b, e, bc.src)
			b.ResetTimer()
			for range b.N {
				e.Locals()
			}
		})
	}
}

// TestLocalsAtEveryCut: lists of strings, objects and Maps cut at every possible point stay
// within the cap and never panic (the room left for an element may be below zero).
func TestLocalsAtEveryCut(t *testing.T) {
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `const vals = [];
for (let n = 1; n < 90; n++) {
  const s = "é".repeat(n);
  vals.push([s, s, s, s, s, s, s, s], {[s]: s, k: [s, s, s]}, new Map([[s, s], [s + "x", [s]]]), new Set([s, s + "y"]), [[s, [s, [s]]]]);
}`)
	for batch := 0; batch < 89*5; batch += engine.MaxLocals {
		var cell strings.Builder
		for i := batch; i < min(batch+engine.MaxLocals, 89*5); i++ {
			cell.WriteString("var v" + strconv.Itoa(i-batch) + " = vals[" + strconv.Itoa(i) + "];\n")
		}
		mustRun(t, e, cell.String())
		for _, v := range e.Locals() {
			if v.Len == -1 && v.Type == "" {
				t.Fatalf("%s: no description (a panic was recovered?)", v.Name)
			}
			if n := utf8.RuneCountInString(v.Repr); n > engine.MaxReprChars {
				t.Fatalf("%s: repr of %d characters", v.Name, n)
			}
		}
	}
}

// TestChars: a string's characters are its code points whatever form goja keeps it in: ASCII,
// UTF-16, or a Go string a host function returned (longer than 16 bytes) not yet converted.
func TestChars(t *testing.T) {
	vm := goja.New()
	long := strings.Repeat("é😀a", 10)
	js := func(src string) goja.Value {
		v, err := vm.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name string
		v    goja.Value
		want int
	}{
		{"ascii", vm.ToValue("abc"), 3},
		{"a long ascii Go string", vm.ToValue(strings.Repeat("a", 40)), 40},
		{"a long Go string", vm.ToValue(long), 30},
		{"UTF-16", js(`"é😀a".repeat(10)`), 30},
		{"lone surrogates", js(`"\uD800x\uDC00"`), 3},
	} {
		if got := chars(tc.v.(goja.String)); got != tc.want {
			t.Errorf("%s: chars = %d, want %d", tc.name, got, tc.want)
		}
	}
}
