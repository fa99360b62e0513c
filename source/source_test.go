package source_test

import (
	"errors"
	"go/token"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
)

func TestLangOf(t *testing.T) {
	for name, want := range map[string]source.Lang{
		"a.go": source.Go, "a.GO": source.Go, "cell.go.txt": source.Go,
		"a.js": source.JS, "a.mjs": source.JS, "a.cjs": source.JS, "x.js.txt": source.JS,
		"a.txt": "", "a.py": "", "go": "",
	} {
		got, ok := source.LangOf(name)
		if got != want || ok != (want != "") {
			t.Errorf("LangOf(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestIncomplete(t *testing.T) {
	for _, tc := range []struct {
		lang source.Lang
		src  string
		want bool
	}{
		{source.Go, "x := 1", false},
		{source.Go, "for i := range 3 {", true},
		{source.Go, "for i := range 3 {\n\tfmt.Println(i)\n}", false},
		{source.Go, "s := `multi", true},
		{source.Go, "f(1,\n", true},
		{source.JS, "print(1)", false},
		{source.JS, "function f() {", true},
		{source.JS, "const s = `a ${1 +", true},
		{source.JS, "const s = `open", true},
		{source.JS, "/* unfinished", true},
		{source.JS, "const re = /[(]/; print(re)", false},
		{source.JS, "print(\"(\")", false},
		// A line that ends with an operator goes on (REPL: `let x = 1 +` then `2`).
		{source.Go, "x := 1 +", true},
		{source.Go, "x := 1 + // more below", true},
		{source.Go, "ok := a &&", true},
		{source.Go, "s := strings.", true},
		{source.Go, "x := 1 +\n2", false},
		{source.Go, "i++", false},
		{source.Go, "x := y // a + ", false},
		{source.JS, "let x = 1 +", true},
		{source.JS, "const n = a ??", true},
		{source.JS, "const t = rows.", true},
		{source.JS, "const r = a /* c */ ,", true},
		{source.JS, "let x = 1 +\n2", false},
		{source.JS, "i++", false},
		{source.JS, "const re = /a+/", false},
		{source.JS, "const d = a / b", false},
		{source.JS, "print('a +')", false},
		{source.JS, "return", false},
	} {
		if got := source.Incomplete(tc.lang, []byte(tc.src)); got != tc.want {
			t.Errorf("Incomplete(%s, %q) = %v, want %v", tc.lang, tc.src, got, tc.want)
		}
	}
}

// TestFindingsAreRejected: every finding of the parse is an error of kind rejected, written
// FILE:LINE:COL: RULE: message, with the rule's class in the language and its advice.
func TestFindingsAreRejected(t *testing.T) {
	_, err := source.ParseJS("cell.js", []byte("x = 1\n//# sourceMappingURL=/etc/passwd"), cellLimits)
	if !errors.Is(err, fault.Rejected) {
		t.Fatalf("errors.Is(%v, fault.Rejected) = false", err)
	}
	want := "cell.js:2:1: source-map: sourceMappingURL/sourceURL comment (the parser would load the file it names); remove the sourceMappingURL/sourceURL comment"
	if got := err.Error(); got != want {
		t.Errorf("message:\n got  %s\n want %s", got, want)
	}
	var l source.List
	if !errors.As(err, &l) || len(l) != 1 || l[0].Class != "J11" {
		t.Errorf("want one finding of class J11, got %#v", l)
	}
	_, _, err = source.ParseGo("cell.go", []byte(strings.Repeat("x", 11)), source.Options{MaxBytes: 10, MaxDepth: 10})
	if !errors.As(err, &l) || len(l) != 1 || l[0].Rule != source.Size || l[0].Class != "G11" {
		t.Errorf("want one size finding of class G11, got %v", err)
	}
}

// TestEveryRuleHasItsClass: each rule's findings carry its taxonomy class in each language, and
// the advice that ends every message of the rule.
func TestEveryRuleHasItsClass(t *testing.T) {
	tiny := source.Options{MaxBytes: 1, MaxDepth: 1}
	seen := map[source.Rule]bool{}
	for _, tc := range []struct {
		lang   source.Lang
		src    string
		o      source.Options
		rule   source.Rule
		class  string
		advice string
	}{
		{source.Go, "x := (", cellLimits, source.Syntax, "", "; fix the syntax error"},
		{source.JS, "x = (", cellLimits, source.Syntax, "", "; fix the syntax error"},
		{source.Go, "x := 1", tiny, source.Size, "G11", "; split the work into smaller cells"},
		{source.JS, "x = 1", tiny, source.Size, "J13", "; split the work into smaller cells"},
		{source.Go, "x := ((1))", source.Options{MaxBytes: 99, MaxDepth: 1}, source.Depth, "G11", "instead of deep nesting"},
		{source.JS, "x = ((1))", source.Options{MaxBytes: 99, MaxDepth: 1}, source.Depth, "J13", "instead of deep nesting"},
		{source.JS, "//@ sourceURL=x", cellLimits, source.SourceMap, "J11", "; remove the sourceMappingURL/sourceURL comment"},
	} {
		_, l := parse(t, tc.lang, tc.src, tc.o)
		if len(l) == 0 || l[0].Rule != tc.rule || l[0].Class != tc.class || !strings.HasSuffix(l[0].Message, tc.advice) {
			t.Errorf("%s %q: got %#v, want rule %s, class %q, advice %q", tc.lang, tc.src, l, tc.rule, tc.class, tc.advice)
		}
		seen[tc.rule] = true
	}
	for _, r := range source.Rules() {
		if !seen[r] {
			t.Errorf("rule %s is not tested", r)
		}
	}
}

// TestZeroOptionsAreTheDefaults: a zero limit means its default (limits.SourceBytes,
// limits.SourceDepth), never "unlimited": zero Options parse a small source and reject one over
// either default unparsed.
func TestZeroOptionsAreTheDefaults(t *testing.T) {
	big := "x = 1\n" + strings.Repeat(" ", limits.SourceBytes)
	deep := "x = " + strings.Repeat("(", limits.SourceDepth+1) + "1" + strings.Repeat(")", limits.SourceDepth+1)
	for _, lang := range []source.Lang{source.Go, source.JS} {
		for _, tc := range []struct {
			name, src string
			want      source.Rule // "" = parsed
		}{
			{"small", "x = 1", ""},
			{"over the size default", big, source.Size},
			{"over the depth default", deep, source.Depth},
		} {
			parsed, l := parse(t, lang, tc.src, source.Options{})
			switch {
			case tc.want == "" && !parsed:
				t.Errorf("%s, %s: zero options: findings %v; want a unit", lang, tc.name, l)
			case tc.want != "" && (parsed || len(l) != 1 || l[0].Rule != tc.want):
				t.Errorf("%s, %s: zero options: parsed %v, findings %v; want one %s finding", lang, tc.name, parsed, l, tc.want)
			}
		}
	}
}

// TestUnchecked: Unchecked skips the pre-checks (what is nested past the limit parses) but
// still reports syntax errors.
func TestUnchecked(t *testing.T) {
	deep := strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300)
	unchecked := source.Options{Unchecked: true}
	for _, lang := range []source.Lang{source.Go, source.JS} {
		src := deep
		if lang == source.Go {
			src = "x := " + deep + "\n_ = x"
		}
		if parsed, l := parse(t, lang, src, cellLimits); parsed || len(l) != 1 || l[0].Rule != source.Depth {
			t.Errorf("%s: checked: parsed %v, findings %v; want a depth finding", lang, parsed, l)
		}
		if parsed, l := parse(t, lang, src, unchecked); !parsed {
			t.Errorf("%s: unchecked: findings %v; want a unit", lang, l)
		}
		if parsed, l := parse(t, lang, "x = (", unchecked); parsed || len(l) == 0 || l[0].Rule != source.Syntax {
			t.Errorf("%s: unchecked: findings %v; want a syntax finding", lang, l)
		}
	}
}

// TestGoComments: the comments come back whether or not the source parses, and not when the
// pre-checks reject it.
func TestGoComments(t *testing.T) {
	o := cellLimits
	u, comments, err := source.ParseGo("c.go", []byte("x := 1 // one\n/* two */ y := ("), o)
	if u != nil || err == nil || len(comments) != 2 || comments[1].Offset != 14 || comments[1].Text != "/* two */" {
		t.Errorf("syntax error: unit %v, comments %v, err %v", u, comments, err)
	}
	o.MaxDepth = 1
	if _, comments, err = source.ParseGo("c.go", []byte("// c\nx := ((1))"), o); comments != nil || err == nil {
		t.Errorf("depth rejection: comments %v, err %v", comments, err)
	}
}

// TestPositions: a snippet's declarations and statements are parsed apart, but every position
// refers to the source as written, in the FileSet given.
func TestPositions(t *testing.T) {
	fset := token.NewFileSet()
	o := cellLimits
	o.FileSet = fset
	src := "x := 1\nfunc f() int { return 2 }\ny := f()"
	u, _, err := source.ParseGo("cell.go", []byte(src), o)
	if err != nil {
		t.Fatal(err)
	}
	if u.Fset != fset || u.Program || len(u.Body.List) != 2 {
		t.Fatalf("unit: fset given %v, program %v, body %d statements", u.Fset == fset, u.Program, len(u.Body.List))
	}
	if got := u.Position(u.Body.List[1].Pos()).String(); got != "cell.go:3:1" {
		t.Errorf("second statement at %s, want cell.go:3:1", got)
	}
	if got := u.Position(u.Decls.Decls[0].Pos()).String(); got != "cell.go:2:1" {
		t.Errorf("func f at %s, want cell.go:2:1", got)
	}
	j, err := source.ParseJS("cell.js", []byte("let a = 1\n  print(a)"), cellLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Position(j.Program.Body[1].Idx0()); got.String() != "cell.js:2:3" || got.Offset != 12 {
		t.Errorf("print at %v, want cell.js:2:3, offset 12", got)
	}
	_, _, err = source.ParseGo("p.go", []byte("package lib\n"), cellLimits)
	if err == nil || err.Error() != "p.go:1:9: syntax: package lib: a whole program must be package main; fix the syntax error" {
		t.Errorf("a whole program of another package: %v", err)
	}
}

func TestFilePositions(t *testing.T) {
	f := source.NewFile("f", []byte("ab\ncd"))
	for off, want := range map[int]string{-3: "f:1:1", 0: "f:1:1", 2: "f:1:3", 3: "f:2:1", 4: "f:2:2", 99: "f:2:3"} {
		if got := f.Position(off).String(); got != want {
			t.Errorf("Position(%d) = %s, want %s", off, got, want)
		}
	}
}

// TestGoSyntaxAtTheEnd: a snippet cut off where a model's reply stops is parsed inside a
// function rlm adds, but its syntax errors speak only of the text as written: the position is
// in it (just after its last character), and the message names the end of the code, never the
// '}' or the newline rlm adds after it.
func TestGoSyntaxAtTheEnd(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"x := ", "cell.go:1:5: syntax: expected operand, found the end of the code; fix the syntax error"},
		{"x := \n\n", "cell.go:1:5: syntax: expected operand, found the end of the code; fix the syntax error"},
		{"n := 1\nx := n +", "cell.go:2:9: syntax: expected operand, found the end of the code; fix the syntax error"},
		{"if n > 0 {\n\tprint(n)\n", "cell.go:2:10: syntax: expected '}', found the end of the code; fix the syntax error"},
		{"for i := range 3 {", "cell.go:1:19: syntax: expected '}', found the end of the code; fix the syntax error"},
		{`s := "abc`, "cell.go:1:6: syntax: string literal not terminated; fix the syntax error"},
		{"s := `abc", "cell.go:1:6: syntax: raw string literal not terminated; fix the syntax error"},
		{"fmt.Println(1", "cell.go:1:14: syntax: the code ends inside an argument list: close it with ')'; fix the syntax error"},
		{"fmt.Println(1,\n", "cell.go:1:15: syntax: expected ')', found the end of the code; fix the syntax error"},
		{"x := []int{1, 2", "cell.go:1:16: syntax: the code ends inside a composite literal: close it with '}'; fix the syntax error"},
		{"func f() int {\n\treturn", "cell.go:2:8: syntax: expected '}', found the end of the code; fix the syntax error"},
		{"package main\nfunc main() {", "cell.go:2:14: syntax: expected '}', found the end of the code; fix the syntax error"},
		{"x := )\ny := ", "cell.go:1:6: syntax: expected operand, found ')'; fix the syntax error (and 1 more findings)"},
		// The text's own '}' closes what rlm opened around it (a crasher of FuzzFrontEnd).
		{"x := 1 }", "cell.go:1:8: syntax: this '}' has no matching '{': remove it, or add the '{' it closes; fix the syntax error"},
		{"A000[(\"\")%0]}", "cell.go:1:13: syntax: this '}' has no matching '{': remove it, or add the '{' it closes; fix the syntax error"},
	} {
		_, _, err := source.ParseGo("cell.go", []byte(tc.src), cellLimits)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got  %v\n want %s", tc.src, err, tc.want)
		}
		var l source.List
		if !errors.As(err, &l) {
			continue
		}
		for _, f := range l {
			if f.Pos.Offset > len(tc.src) || strings.Contains(f.Message, "'}'") && !strings.ContainsAny(tc.src, "{}") {
				t.Errorf("%q: %v refers to text rlm added", tc.src, f)
			}
		}
	}
}
