package validator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// TestJSScopeShadowing: a declaration of the cell's own shadows a global-object or host name
// wherever JS scoping says it does, and nowhere else. want lists the findings as LINE:COL RULE;
// "" means accepted.
func TestJSScopeShadowing(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		// Accepted: every declaration form shadows, uses included.
		{"const", "const frames = new Map(); frames.set(1, 2)", ""},
		{"let and a closure", "let self = 1; const f = () => self + 1", ""},
		{"function declaration", "function process(x) { return x } process(1)", ""},
		{"function declaration used before", "process(1); function process(x) { return x }", ""},
		{"class declaration", "class module {} new module()", ""},
		{"params", "function f(self, [module], {exports}, ...global) { return self + module + exports + global }", ""},
		{"arrow params", "const f = (frames) => frames.length; const g = window => window", ""},
		{"param default sees params", "function f(a, b = a + self, self) { return b }", ""},
		{"destructuring", "const { global, process: p, a: [module] = [] } = {}; print(global, p, module)", ""},
		{"catch param", "try {} catch (self) { print(self) }", ""},
		{"catch pattern", "try {} catch ({ module }) { print(module) }", ""},
		{"for-of let", "for (const frames of [[1]]) print(frames)", ""},
		{"for-of source in the head's scope", "for (const self of self) {}", ""},
		{"for let", "for (let self = 0; self < 3; self++) print(self)", ""},
		{"var in a function, hoisted", "function f() { print(self); { var self = 1 } return self }", ""},
		{"block function", "{ function self() {} self() }", ""},
		{"named function expression", "const f = function self(n) { return n ? self(n - 1) : 0 }", ""},
		{"class expression name", "const C = class frames { m() { return frames } }", ""},
		{"class name in heritage", "class self extends Object { static m() { return self } }", ""},
		{"switch block", "switch (1) { case 1: let module = 1; case 2: print(module) }", ""},
		{"static block var", "class A { static { var self = 1; print(self) } }", ""},
		{"shorthand reads the shadow", "const self = 1; const o = { self }", ""},
		{"assignment to the shadow", "let exports = 1; exports = 2; ({ exports } = { exports: 3 })", ""},

		// Rejected: free uses.
		{"free", "print(frames)", "1:7 global-object"},
		{"block shadow ends", "{ const self = 1 } self", "1:20 global-object"},
		{"param default sees no body var", "function f(a = self) { var self = 1 }", "1:16 global-object"},
		{"catch param ends", "try {} catch (self) {} self", "1:24 global-object"},
		{"for head ends", "for (const self of []) {} self", "1:27 global-object"},
		{"function expression name is inside only", "const f = function self() {}; self", "1:31 global-object"},
		{"class expression name is inside only", "const C = class self {}; self", "1:26 global-object"},
		{"sibling function", "function a() { const self = 1 } function b() { return self }", "1:55 global-object"},
		{"method binds no name", "const o = { self() { return self } }", "1:29 global-object"},
		{"getter binds no name", "const o = { get module() { return module } }", "1:35 host-access"},
		{"class method binds no name", "class A { self() { return self } }", "1:27 global-object"},
		{"block function ends", "{ function self() {} } self", "1:24 global-object"},
		{"switch block ends", "switch (1) { case 1: let frames = 1 } frames", "1:39 global-object"},
		{"assignment declares nothing", "require = 1; require('fs')", "1:1 host-access,1:14 host-access"},
		{"assignment pattern declares nothing", "({ process } = {}); process.env", "1:4 host-access,1:21 host-access"},
		{"pattern default is a use", "const { a = process } = {}", "1:13 host-access"},
		{"typeof is a use", "typeof window", "1:8 global-object"},

		// Rejected: a script-level var is the global object's property, wherever it is written.
		{"top-level var", "var self; self.x", "1:5 global-object,1:11 global-object"},
		{"var in a top-level block", "{ var global = 1 } global", "1:7 global-object,1:20 global-object"},
		{"top-level for var", "for (var frames of []) {}", "1:10 global-object"},
		{"var and let of one name", "var self; { let self = 1; self }", "1:5 global-object"},

		// Rejected: evaluator and reflection names may not be declared at all.
		{"eval parameter", "function f(eval) { return eval }", "1:12 evaluator,1:27 evaluator"},
		{"Reflect local", "function f() { const Reflect = 1; return Reflect }", "1:22 reflection,1:42 reflection"},
		{"Function destructured", "const { Function } = {}", "1:9 evaluator"},

		// Rejected: escapes stay rejected, declared or not.
		{"escaped declaration", `const s\u0065lf = 1; self`, "1:7 escaped-name"},
	}
	for _, tc := range tests {
		res, err := validator.Validate(source.JS, "cell.js", []byte(tc.src), validator.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, fmt.Sprintf("%d:%d %s", f.Pos.Line, f.Pos.Column, f.Rule))
		}
		if g := strings.Join(got, ","); g != tc.want {
			t.Errorf("%s: %s\n got %q\nwant %q\n%v", tc.name, tc.src, g, tc.want, res.Findings)
		}
	}
}

// TestJSDeclared: names earlier cells declared are the session's own in a later cell.
func TestJSDeclared(t *testing.T) {
	src := []byte("frames.set(1, 2); print(self)")
	res, err := validator.Validate(source.JS, "cell.js", src, validator.Policy{}, validator.JSDeclared([]string{"frames"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Pos.Column != 25 {
		t.Errorf("got %v, want one finding, for self", res.Findings)
	}
	res, _ = validator.Validate(source.JS, "cell.js", []byte("var frames; frames"), validator.Policy{}, validator.JSDeclared([]string{"frames"}))
	if len(res.Findings) != 2 {
		t.Errorf("a top-level var of a declared name: %v, want it and its use rejected", res.Findings)
	}
}

// TestJSFreeUseMessage: the message for a free use and for a top-level var tells the fix.
func TestJSFreeUseMessage(t *testing.T) {
	for src, want := range map[string]string{
		"frames.set(1, 2)": "cell.js:1:1: global-object: use of frames, which this cell does not declare (free, it is the host's global object; to use the name for your own variable, declare it: const frames = ...)",
		"var module = 1":   "cell.js:1:5: host-access: a top-level var named module is the global object's property, not a variable of its own (declare it with let or const)",
	} {
		res, _ := validator.Validate(source.JS, "cell.js", []byte(src), validator.Policy{})
		if len(res.Findings) != 1 || !strings.HasPrefix(res.Findings[0].Error(), want) {
			t.Errorf("%s: got %v\nwant a finding starting %q", src, res.Findings, want)
		}
	}
}
