package validator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
)

// nestJS puts inner in place of X in form, k times over.
func nestJS(form, inner string, k int) string {
	for i := 0; i < k; i++ {
		inner = strings.ReplaceAll(form, "X", inner)
	}
	return inner
}

// reparseForms are sources goja reads again and again, one level of each nested in the next
// (X): at 22 levels each takes goja from seconds to hours to parse. They are rejected unparsed.
// (Issue 17, second red team, finding 4, and what the search for its kind found.)
var reparseForms = map[string]string{
	// A statement that automatic semicolon insertion ends, then an arrow function's list.
	"after debugger": "debugger\n(a = () => {X\n}) => 0",
	"after x++":      "x++\n(a = () => {X\n}) => 0",
	"after break":    "a: {break a\n(a = () => {X\n}) => 0}",
	// Tokens between the list and the => (goja reads them again after the list), and lists
	// that are no arrow function's (goja goes back to an earlier start).
	"call after list":      "(c = X)(0) => 0",
	"list after call":      "(c=0)(c = X) => 0",
	"two lists":            "(a) + (c = X) => 0",
	"conditional":          "a = () => {(a) ? 0 : (c = X) + 1 => 0}",
	"yield, call":          "a = function*(){yield f(c = X) => 0}",
	"yield, yield":         "a = function*(){yield yield f(c = X).a => 0}",
	"brackets taken":       "(a) ( X a=> (a) debugger ;",
	"async call":           "(a) + async(c = X) => 0",
	"line break before =>": "(a = () => {X\n}) \n=> 0",
	// A prefix ++ on what is no reference: a yield reads its operand again.
	"yield ++(...)":  "a = function*(){yield ++(c = X)}",
	"yield ++f(...)": "a = function*(){yield ++f(c = X)}",
	"yield --[...]":  "a = function*(){yield --[c = X]}",
	"yield ++ ++...": "a = function*(){yield ++ ++ (c = X)}",
	"yield ++`${}`":  "a = function*(){yield ++`${c = X}`}",
}

// TestJSReparseRejected: every form, nested, is rejected unparsed at the token that makes goja
// go back (a depth finding), and validating it takes no time.
func TestJSReparseRejected(t *testing.T) {
	for name, form := range reparseForms {
		src := nestJS(form, "b", 22)
		stack, took, res := validateMeasured(src)
		if len(res.Findings) == 0 || res.Findings[0].Rule != source.Depth || res.JS != nil {
			t.Errorf("%s: want a depth finding and no parse, got %v", name, res.Findings)
		}
		if took > 200*time.Millisecond || stack > 1<<20 {
			t.Errorf("%s: validating took %v and %d bytes of stack", name, took, stack)
		}
	}
}

// TestJSArrowPlaces: an => is rejected where no arrow function's parameters precede it where an
// expression starts, and a prefix ++ or -- where its operand is no reference; valid code passes,
// with => and ++ in strings, templates and regexes.
func TestJSArrowPlaces(t *testing.T) {
	checkRules(t, source.JS, []ruleCase{
		{"debugger\n(a = 1) => 0", []string{"2:9 depth"}},
		{"let x = 1\nx++\n(a) => a", []string{"3:5 depth"}},
		{"f(x) => 0", []string{"1:6 depth"}},
		{"x = (a) + (b) => 0", []string{"1:15 depth"}},
		{"x = a ? 0 : (b) + 1 => 0", []string{"1:21 depth"}},
		{"f(b a => 0)", []string{"1:7 depth"}},
		{"x = (a)\n=> 0", []string{"2:1 depth"}},
		{"function* g() { yield ++(x = 1) }", []string{"1:25 depth"}},
		{"x = ++f(1)", []string{"1:11 depth"}},
		{"x = --this", []string{"1:11 depth"}},
		{"x = ++a?.b", []string{"1:11 depth"}},
		// Valid code.
		{"const f = (a) => a, g = b => b, h = async (c) => c, i = async d => d\nprint(f(1), g(2), h, i)", nil},
		{"const x = 1 ? (b) => 1 : (c) => 2\nconst o = { a: (x) => x, b: y => y, 'c': async () => 0 }\nprint(x, o)", nil},
		{"function f() { return (x) => x }\nfunction g() { throw () => 0 }\nprint([1].map((x, i) => x + i), f, g)", nil},
		{"const c = (a = (b) => b) => a\nconst d = ({a}, [b], ...c) => a\nprint(c, d, `${((x) => x)(1)}`)", nil},
		{"const m = [[1, 2]]\nfor (const [k, v] of m) print(`${k} => ${v}`)\nconst s = `if a => b`\nprint(s, \"a => b\", /=>/.test(s), /\\+\\+/.test(s))", nil},
		{"let i = 0, a = {b: [1]}, k = 0\n++i; --a.b[k]; i++; ++a.b; print(i, a)", nil},
		{"const s = `--${'x'}--`\nlet n = 1\nprint(s, -n, - -n, ++n)", nil},
	})
}
