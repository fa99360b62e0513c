package validator_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// ruleCase is a source and the findings it must produce, as "LINE:COL RULE" strings (none for a
// source that must pass).
type ruleCase struct {
	src  string
	want []string
}

func checkRules(t *testing.T, lang source.Lang, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		res, err := validator.Validate(lang, "cell", []byte(tc.src), validator.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, fmt.Sprintf("%d:%d %s", f.Pos.Line, f.Pos.Column, f.Rule))
		}
		if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
			t.Errorf("%s %q:\n got  %v\n want %v\n (%v)", lang, tc.src, got, tc.want, res.Findings)
		}
	}
}

func TestGoRules(t *testing.T) {
	checkRules(t, source.Go, []ruleCase{
		{`import "os"`, []string{"1:8 import-denied"}},
		{"import (\n\t\"strings\"\n\t\"os/exec\"\n)", []string{"3:2 import-denied"}},
		{`import s "strings"`, []string{"1:8 import-form"}},
		{`import . "strings"`, []string{"1:8 import-form"}},
		{`import _ "strings"`, []string{"1:8 import-form"}},
		{`import "str\u0069ngs"`, []string{"1:8 import-form"}},
		{"import `strings`", []string{"1:8 import-form"}},
		{`import "../../tmp/x"`, []string{"1:8 import-form", "1:8 import-denied"}},
		{`import "C"`, []string{"1:8 import-form", "1:8 import-denied"}},
		{`import "github.com/traefik/yaegi/stdlib"`, []string{"1:8 import-form", "1:8 import-denied"}},
		{"x := os.Getenv(\"HOME\")", []string{"1:6 package-denied"}},
		{"//go:linkname f runtime.x\nfunc f()", []string{"1:1 directive"}},
		{"// yaegi:tags x\nx := 1", []string{"1:1 directive"}},
		{"//line other.go:9\nx := 1", []string{"1:1 directive"}},
		{"go func() {}()", []string{"1:1 goroutine"}},
		{"import \"time\"\ntime.AfterFunc(0, func() {})", []string{"2:1 denied-call"}},
		{"import \"time\"\nf := time.AfterFunc\n_ = f", []string{"2:6 denied-symbol"}},
		{"import \"time\"\nvar t time.Timer", []string{"2:7 denied-symbol"}},
		{"import \"io\"\nio.EOF = nil", []string{"2:1 package-var"}},
		{"import \"io\"\np := &io.EOF\n_ = p", []string{"2:7 package-var"}},
		{"import \"unicode\"\nt := unicode.Upper\n_ = t", []string{"2:6 package-var"}},
		{"import \"unicode\"\ndelete(unicode.Scripts, \"Latin\")", []string{"2:8 package-var"}},
		{"func init() {}", []string{"1:1 init-func"}},
		{"x := _peek(context, 0, 1)", []string{"1:6 underscore"}},
		{"x := make([]byte, 1<<40)", []string{"1:19 alloc-size"}},
		{"const n = 1 << 40\nvar a [n]byte", []string{"2:8 alloc-size"}},
		{"import \"strings\"\ns := strings.Repeat(\"x\", 1<<30)", []string{"2:26 alloc-size"}},
		{constDoubling(25), []string{"25:13 alloc-size"}},
		{"for {\n}", []string{"1:1 hang"}},
		{"for { switch { default: break } }", []string{"1:1 hang"}},
		{"select {}", []string{"1:1 hang"}},
		{"n := 0\nagain:\nn++\ngoto again", []string{"4:1 hang"}},
		{"x := (", []string{"1:7 syntax"}},
		{"package lib\nfunc F() {}", []string{"1:9 syntax"}},
		// Near misses that must pass.
		{"type T struct{}\nfunc (T) Exec() string { return \"os/exec\" }\nfmt.Println(T{}.Exec())", nil},
		{"import \"unicode\"\nok := unicode.Is(unicode.Han, 'x')\n_ = ok", nil},
		{"import (\"encoding/base64\"; \"fmt\")\nfmt.Println(base64.StdEncoding.EncodeToString([]byte(\"hi\")))", nil},
		{"import (\"errors\"; \"io\")\nvar err error\n_ = errors.Is(err, io.EOF) || err == io.EOF", nil},
		{"for i := range 10 {\n\t_ = min(i, 3)\n}", nil},
		{"x := 0\nfor {\n\tx++\n\tif x > 3 {\n\t\tbreak\n\t}\n}", nil},
		{"import \"time\"\nstart := time.Now()\n_ = time.Since(start)", nil},
		{"// go statements are mentioned here, and time.AfterFunc too\nx := \"//go:linkname\"\n_ = x", nil},
		{"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }", nil},
		{constDoubling(24), nil},
	})
}

// constDoubling declares string constants s0 (2 bytes) to s<n-1>, each twice the one before:
// s24 has 2^25 bytes, over the default limit of 2^24.
func constDoubling(n int) string {
	src := "const s0 = \"ab\"\n"
	for i := 1; i < n; i++ {
		src += fmt.Sprintf("const s%d = s%d + s%d\n", i, i-1, i-1)
	}
	return src
}

func TestJSRules(t *testing.T) {
	checkRules(t, source.JS, []ruleCase{
		{`eval("1")`, []string{"1:1 evaluator"}},
		{`const F = Function`, []string{"1:11 evaluator"}},
		{`Reflect.ownKeys({})`, []string{"1:1 reflection"}},
		{`globalThis.x`, []string{"1:1 global-object"}},
		{`const g = this`, []string{"1:11 global-object"}},
		{`const f = () => this`, []string{"1:17 global-object"}},
		{"class A { static [this.k]() {} }", []string{"1:19 global-object"}},
		{`require("fs")`, []string{"1:1 host-access"}},
		{`import("fs")`, []string{"1:1 syntax", "1:1 host-access"}},
		{`with (o) { x }`, []string{"1:1 with"}},
		{`(() => 0).constructor`, []string{"1:11 member-denied"}},
		{`x["constructor"]`, []string{"1:3 computed-member"}},
		{"x[`constr${\"uctor\"}`]", []string{"1:3 computed-member"}},
		{`x["con" + "structor"]`, []string{"1:3 computed-member"}},
		{`x[["__proto__"]]`, []string{"1:3 computed-member"}},
		{`x[c ? "a" : "prototype"]`, []string{"1:3 computed-member"}},
		{`x.\u0063onstructor`, []string{"1:3 escaped-name"}},
		{`x["\x63onstructor"]`, []string{"1:3 escaped-name"}},
		{`\u0065val("1")`, []string{"1:1 escaped-name"}},
		{`const {constructor: F} = f`, []string{"1:8 pattern-denied"}},
		{`({constructor} = f)`, []string{"1:3 pattern-denied"}},
		{`function g({caller}) {}`, []string{"1:13 pattern-denied"}},
		{`_read_file("x")`, []string{"1:1 underscore"}},
		{`o._peek`, []string{"1:3 underscore"}},
		{`class A { _m() {} }`, []string{"1:11 underscore"}},
		{"//# sourceMappingURL=file:///dev/zero\n1", []string{"1:1 source-map"}},
		{`const o = {__proto__: p}`, []string{"1:12 prototype"}},
		{`Object.setPrototypeOf(a, b)`, []string{"1:8 prototype"}},
		{`new ArrayBuffer(2**44)`, []string{"1:17 alloc-size"}},
		{`"x".repeat(1e9)`, []string{"1:12 alloc-size"}},
		{`while (true) {}`, []string{"1:1 hang"}},
		{`for (;;) { for (;;) { break } }`, []string{"1:1 hang"}},
		{`/^(a+)+$/.test(s)`, []string{"1:1 regex-backtrack"}},
		{`new RegExp("(\\w)\\1")`, []string{"1:12 regex-backtrack"}},
		{`let x = (`, []string{"1:10 syntax"}},
		// Near misses that must pass.
		{"class A { constructor(x) { this.x = x } }\nprint(new A(1).x)", nil},
		{`const o = {constructor: 1, _id: 2, "prototype": 3}; print(Object.keys(o).length)`, nil},
		{`const k = "constructor"; print(k.length, o[k])`, nil},
		{`const evaluate = 1, processed = 2, requirement = 3; print(evaluate + processed + requirement)`, nil},
		{`const _ = 1; print(_)`, nil},
		{`let i = 0; while (true) { if (++i > 3) break } print(i)`, nil},
		{`function* g() { let i = 0; while (true) yield i++ }`, nil},
		{`const m = /(\d+)-(\d+)/.exec("1-2"); print(m[1])`, nil},
		{"const s = `a${1 + 2}b`; print(s)", nil},
	})
}

func TestFindingsAreRejectedErrors(t *testing.T) {
	res, _ := validator.Validate(source.JS, "cell.js", []byte(`eval("1")`), validator.Policy{})
	err := res.Err()
	if !errors.Is(err, fault.Rejected) {
		t.Fatalf("errors.Is(%v, fault.Rejected) = false", err)
	}
	if got, want := err.Error(), "cell.js:1:1: evaluator: use of eval; write the code directly; eval and Function are not available"; got != want {
		t.Errorf("message:\n got  %s\n want %s", got, want)
	}
	clean, _ := validator.Validate(source.JS, "ok.js", []byte(`print(1)`), validator.Policy{})
	if clean.Err() != nil {
		t.Errorf("clean source: Err() = %v, want nil", clean.Err())
	}
}

func TestUnknownLanguage(t *testing.T) {
	if _, err := validator.Validate("python", "x.py", []byte("1"), validator.Policy{}); err == nil {
		t.Error("Validate accepted an unknown language")
	}
	if _, err := source.ParseLang("python"); err == nil {
		t.Error("ParseLang accepted python")
	}
}

func TestParseOnlySkipsChecks(t *testing.T) {
	res, _ := validator.Validate(source.JS, "c.js", []byte(`eval("1"); with (o) {}`), validator.Policy{}, validator.ParseOnly())
	if len(res.Findings) != 0 || res.JS == nil {
		t.Errorf("ParseOnly: findings %v, unit %v; want no findings and a parsed unit", res.Findings, res.JS)
	}
	res, _ = validator.Validate(source.Go, "c.go", []byte(`import "os"`+"\n"+`os.Exit(1)`), validator.Policy{}, validator.ParseOnly())
	if len(res.Findings) != 0 || res.Go == nil || res.Go.Body == nil {
		t.Errorf("ParseOnly Go: findings %v; want none and a body", res.Findings)
	}
	res, _ = validator.Validate(source.JS, "c.js", []byte(`let x = (`), validator.Policy{}, validator.ParseOnly())
	if len(res.Findings) != 1 || res.Findings[0].Rule != source.Syntax {
		t.Errorf("ParseOnly still reports syntax errors; got %v", res.Findings)
	}
}

func TestEveryRuleHasAClassAndAdvice(t *testing.T) {
	rules := validator.Rules()
	if len(rules) < 25 {
		t.Fatalf("only %d rules listed", len(rules))
	}
	for i, r := range rules {
		if i > 0 && rules[i-1] >= r {
			t.Errorf("Rules() not sorted at %s", r)
		}
		if slices.Contains(source.Rules(), r) {
			continue // package source's, tested there
		}
		if validator.Class(r, source.Go) == "" && validator.Class(r, source.JS) == "" {
			t.Errorf("rule %s has no class in either language", r)
		}
	}
}

// TestDeniedPackageMessages: a denied package a model often reaches for is refused with the
// fix, said once, whether imported or used without an import.
func TestDeniedPackageMessages(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"var mu sync.Mutex\nmu.Lock()", "cell.go:1:8: package-denied: reference to sync.Mutex: package sync is not allowed; cells run on one goroutine, so nothing needs a lock or a WaitGroup: drop it; use an allow-listed package (rlm validate --policy lists them), or the session tools (peek, search, read_file, write_file) for I/O"},
		{"import \"os\"\nprint(os.Args)", "cell.go:1:8: import-denied: package \"os\" is not allowed; read the context with peek, search, text or chunk, and files with read_file; only the allow-listed pure packages can be imported (rlm validate --policy lists them); use the session tools (peek, search, read_file, write_file) for I/O"},
	} {
		res, _ := validator.Validate(source.Go, "cell.go", []byte(c.src), validator.Policy{})
		err := res.Err()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
}
