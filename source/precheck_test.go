package source_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
)

// cellLimits are the limits a cell is parsed under (the validator's default policy).
var cellLimits = source.Options{MaxBytes: 128 << 10, MaxDepth: 256}

// parse parses src under o and returns whether it parsed, and the findings.
func parse(t testing.TB, lang source.Lang, src string, o source.Options) (bool, source.List) {
	t.Helper()
	var err error
	parsed := false
	switch lang {
	case source.Go:
		var u *source.GoUnit
		u, _, err = source.ParseGo("t", []byte(src), o)
		parsed = u != nil
	case source.JS:
		var u *source.JSUnit
		u, err = source.ParseJS("t", []byte(src), o)
		parsed = u != nil
	}
	var l source.List
	if err != nil && !errors.As(err, &l) {
		t.Fatalf("%s: %v is no source.List", lang, err)
	}
	if parsed != (err == nil) {
		t.Errorf("%s %.30q: a unit (%v) with findings %v", lang, src, parsed, l)
	}
	return parsed, l
}

// deepSources are sources nested a million levels deep in every shape a parser recurses on.
// Parsing any of them would take gigabytes of stack (goja has no nesting limit) or minutes
// (goja's arrow functions are quadratic), so the pre-scan must refuse them unparsed. If it did
// not, this test process would die, and the test with it.
func deepSources(n int) map[string]struct {
	lang source.Lang
	src  string
} {
	r := strings.Repeat
	type src = struct {
		lang source.Lang
		src  string
	}
	return map[string]src{
		"go parens":     {source.Go, "x := " + r("(", n) + "1" + r(")", n)},
		"go blocks":     {source.Go, r("{", n) + r("}", n)},
		"go unary":      {source.Go, "x := " + r("!", n) + "true"},
		"go slice type": {source.Go, "var x " + r("[]", n) + "int"},
		"go pointers":   {source.Go, "var x " + r("*", n) + "int"},
		"go func types": {source.Go, "var x " + r("func() ", n) + "int"},
		"go binary":     {source.Go, "x := 1" + r("+1", n)},
		"go selectors":  {source.Go, "x := a" + r(".b", n)},
		"js parens":     {source.JS, r("(", n) + "1" + r(")", n)},
		"js arrays":     {source.JS, r("[", n) + r("]", n)},
		"js objects":    {source.JS, "x=" + r("{a:", n) + "1" + r("}", n)},
		"js not":        {source.JS, r("!", n) + "x"},
		"js ternary":    {source.JS, r("a?b:", n) + "c"},
		"js assign":     {source.JS, r("a=", n) + "1"},
		"js arrows":     {source.JS, r("x=>", n) + "1"},
		"js pow":        {source.JS, r("2**", n) + "2"},
		"js if":         {source.JS, r("if(a)", n) + ";"},
		"js new":        {source.JS, r("new ", n) + "X"},
		"js calls":      {source.JS, "f" + r("()", n)},
		"js members":    {source.JS, "a" + r(".b", n)},
		"js templates":  {source.JS, r("`${", n) + "1" + r("}`", n)},
		"js binary":     {source.JS, "1" + r("+1", n)},
	}
}

func TestDeepNestingRejectedUnparsed(t *testing.T) {
	const n = 1_000_000
	o := cellLimits
	o.MaxBytes = 64 << 20 // let the depth pre-scan, not the size cap, decide
	for name, tc := range deepSources(n) {
		start := time.Now()
		parsed, l := parse(t, tc.lang, tc.src, o)
		elapsed := time.Since(start)
		if len(l) != 1 || l[0].Rule != source.Depth {
			t.Errorf("%s: want exactly one depth finding, got %v", name, l)
		}
		if parsed {
			t.Errorf("%s: a rejected source must not be parsed", name)
		}
		if elapsed > 5*time.Second {
			t.Errorf("%s: pre-scan of %d bytes took %v", name, len(tc.src), elapsed)
		}
	}
}

func TestHugeSourceRejectedBySize(t *testing.T) {
	for _, lang := range []source.Lang{source.Go, source.JS} {
		src := strings.Repeat("x := 1\n", 3<<20) // 21 MB
		_, l := parse(t, lang, src, cellLimits)
		if len(l) != 1 || l[0].Rule != source.Size {
			t.Fatalf("%s: want one size finding, got %v", lang, l)
		}
		if f := l[0]; f.Pos.Line != 1 || f.Pos.Column != 1 {
			t.Errorf("%s: size finding at %v, want 1:1", lang, f.Pos)
		}
	}
}

// TestDepthLimitBoundary: the default limit accepts ordinary code and rejects one level past it.
func TestDepthLimitBoundary(t *testing.T) {
	o := cellLimits
	o.MaxDepth = 10
	for _, tc := range []struct {
		lang   source.Lang
		src    string
		reject bool
	}{
		{source.JS, strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{source.JS, strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		{source.Go, "x := " + strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{source.Go, "x := " + strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		// Separators end chains: many short statements are not deep.
		{source.JS, strings.Repeat("a = b + c;\n", 500), false},
		{source.JS, strings.Repeat("a = b + c\n", 500), false},
		{source.Go, strings.Repeat("a = b + c\n", 500), false},
	} {
		_, l := parse(t, tc.lang, tc.src, o)
		got := len(l) > 0 && l[0].Rule == source.Depth
		if got != tc.reject {
			t.Errorf("%s %.30q...: depth rejection = %v, want %v (%v)", tc.lang, tc.src, got, tc.reject, l)
		}
	}
}

// TestJSPrescanReadings: whatever goja makes of a '/' or a '`' (a regex or a division, a template
// or, after a syntax error, a plain token), nesting inside cannot hide from the pre-scan (issue
// 17, finding 3: after x.in the lexer read a regex and missed 130,000 parentheses), and code
// that nests normally is not rejected for how it spells its regexes, templates and names.
func TestJSPrescanReadings(t *testing.T) {
	deep := strings.Repeat("(", 1000)
	arrows := strings.Repeat("a=>", 1100)
	for _, tc := range []struct {
		src    string
		reject bool
	}{
		{"x.in / " + deep + "1 / g", true},
		{"x?.typeof / " + deep + "1 / g", true},
		{"x.in / " + arrows + "1 / g", true},
		{"x.yield / " + deep + "1 / g", true},
		{"x = {} / " + deep + " / 2", true},
		{"x = ) `if" + deep + "`", true},
		{"x = ) ( / if" + deep + " /", true},
		{"`${`${`${" + deep + "}`}`}`", true},
		{"// \u2028" + deep, true},
		{"/* \u2029 */" + deep, true},
		{"\"\\\r\n\"" + deep, true},
		{"#!`\n" + deep + "\n`", true},
		{"/x/in /\"/ ; " + deep + "\"", true},
		{"return\u00a0/\"/; " + deep + "\"", true},
		{"1if" + deep, true},
		{strings.Repeat("do x=[[[[;]]]];", 100), true},
		{strings.Repeat("(a=", 24) + "0" + strings.Repeat(")=>0", 24), true},
		{strings.Repeat("async(a=", 24) + "0" + strings.Repeat(")=>0", 24), true},
		{strings.Repeat("do x={a:{a:{a:;}}};", 100), true},
		{strings.Repeat("do x=[[[[{a b}]]]];", 100), true},
		// Near misses: ordinary code passes.
		{"x.in / 2; y?.return / 3; z.if(a) / 4", false},
		{"if (/[(]/.test(s)) { x = s.split(/[\"'`]/) }", false},
		{"const o = {in: 1, typeof: 2, delete: 3, get x() { return 1 }, set x(v) {}, *g() {}, async h() {}, [k]: 4, ...p,}", false},
		{"class A { static in() {} delete() {} get of() { return 1 } }", false},
		{"const b64 = 'aGVsbG8gd29ybGQ+/if+/for/(((((/' + \"return ((((\"", false},
		{"// if (((((( return [[[[[\n/* for {{{{{ while */ x = 1", false},
		{"p.catch(e => e).finally(() => 0); q.for; r.do", false},
		{"const t = `a ${b} c ${`d ${e}`} ` / 2; const u = `if ((((( ${1} )))))`", false},
		{"for (let i = 0; i < 3; i++) {} [1, , 2,]; f(a, b,); ({a, b} = c); x = a ? b : c", false},
		{"function* g() { yield /re/g; } async function h() { await /x/.test(s) }", false},
		{"const f = (a = (b = (c) => c) => b) => a; const g = async (x, y = () => 0) => x", false},
	} {
		_, l := parse(t, source.JS, tc.src, cellLimits)
		got := len(l) > 0 && l[0].Rule == source.Depth
		if got != tc.reject || !tc.reject && len(l) > 0 {
			t.Errorf("%.60q: depth rejection = %v, want %v (%v)", tc.src, got, tc.reject, l)
		}
	}
}
