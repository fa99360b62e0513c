package validator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/validator"
)

// deepSources are sources nested a million levels deep in every shape a parser recurses on.
// Parsing any of them would take gigabytes of stack (goja has no nesting limit) or minutes
// (goja's arrow functions are quadratic), so the pre-scan must refuse them unparsed. If it did
// not, this test process would die, and the test with it.
func deepSources(n int) map[string]struct {
	lang validator.Lang
	src  string
} {
	r := strings.Repeat
	type src = struct {
		lang validator.Lang
		src  string
	}
	return map[string]src{
		"go parens":     {validator.Go, "x := " + r("(", n) + "1" + r(")", n)},
		"go blocks":     {validator.Go, r("{", n) + r("}", n)},
		"go unary":      {validator.Go, "x := " + r("!", n) + "true"},
		"go slice type": {validator.Go, "var x " + r("[]", n) + "int"},
		"go pointers":   {validator.Go, "var x " + r("*", n) + "int"},
		"go func types": {validator.Go, "var x " + r("func() ", n) + "int"},
		"go binary":     {validator.Go, "x := 1" + r("+1", n)},
		"go selectors":  {validator.Go, "x := a" + r(".b", n)},
		"js parens":     {validator.JS, r("(", n) + "1" + r(")", n)},
		"js arrays":     {validator.JS, r("[", n) + r("]", n)},
		"js objects":    {validator.JS, "x=" + r("{a:", n) + "1" + r("}", n)},
		"js not":        {validator.JS, r("!", n) + "x"},
		"js ternary":    {validator.JS, r("a?b:", n) + "c"},
		"js assign":     {validator.JS, r("a=", n) + "1"},
		"js arrows":     {validator.JS, r("x=>", n) + "1"},
		"js pow":        {validator.JS, r("2**", n) + "2"},
		"js if":         {validator.JS, r("if(a)", n) + ";"},
		"js new":        {validator.JS, r("new ", n) + "X"},
		"js calls":      {validator.JS, "f" + r("()", n)},
		"js members":    {validator.JS, "a" + r(".b", n)},
		"js templates":  {validator.JS, r("`${", n) + "1" + r("}`", n)},
		"js binary":     {validator.JS, "1" + r("+1", n)},
	}
}

func TestDeepNestingRejectedUnparsed(t *testing.T) {
	const n = 1_000_000
	pol := validator.Policy{MaxSourceBytes: 64 << 20} // let the depth pre-scan, not the size cap, decide
	for name, tc := range deepSources(n) {
		start := time.Now()
		res, err := validator.Validate(tc.lang, "deep", []byte(tc.src), pol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		elapsed := time.Since(start)
		if len(res.Findings) != 1 || res.Findings[0].Rule != validator.Depth {
			t.Errorf("%s: want exactly one depth finding, got %v", name, res.Findings)
		}
		if res.Go != nil || res.JS != nil {
			t.Errorf("%s: a rejected source must not be parsed", name)
		}
		if elapsed > 5*time.Second {
			t.Errorf("%s: pre-scan of %d bytes took %v", name, len(tc.src), elapsed)
		}
	}
}

func TestHugeSourceRejectedBySize(t *testing.T) {
	for _, lang := range []validator.Lang{validator.Go, validator.JS} {
		src := []byte(strings.Repeat("x := 1\n", 3<<20)) // 21 MB
		res, err := validator.Validate(lang, "huge", src, validator.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Rule != validator.Size {
			t.Errorf("%s: want one size finding, got %v", lang, res.Findings)
		}
		if f := res.Findings[0]; f.Pos.Line != 1 || f.Pos.Column != 1 {
			t.Errorf("%s: size finding at %v, want 1:1", lang, f.Pos)
		}
	}
}

// TestDepthLimitBoundary: the default limit accepts ordinary code and rejects one level past it.
func TestDepthLimitBoundary(t *testing.T) {
	pol := validator.Policy{MaxDepth: 10}
	for _, tc := range []struct {
		lang   validator.Lang
		src    string
		reject bool
	}{
		{validator.JS, strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{validator.JS, strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		{validator.Go, "x := " + strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{validator.Go, "x := " + strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		// Separators end chains: many short statements are not deep.
		{validator.JS, strings.Repeat("a = b + c;\n", 500), false},
		{validator.JS, strings.Repeat("a = b + c\n", 500), false},
		{validator.Go, strings.Repeat("a = b + c\n", 500), false},
	} {
		res, _ := validator.Validate(tc.lang, "t", []byte(tc.src), pol)
		got := len(res.Findings) > 0 && res.Findings[0].Rule == validator.Depth
		if got != tc.reject {
			t.Errorf("%s %.30q...: depth rejection = %v, want %v (%v)", tc.lang, tc.src, got, tc.reject, res.Findings)
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
		res, err := validator.Validate(validator.JS, "t.js", []byte(tc.src), validator.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		got := len(res.Findings) > 0 && res.Findings[0].Rule == validator.Depth
		if got != tc.reject || !tc.reject && len(res.Findings) > 0 {
			t.Errorf("%.60q: depth rejection = %v, want %v (%v)", tc.src, got, tc.reject, res.Findings)
		}
	}
}
