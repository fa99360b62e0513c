package typecheck

import (
	"errors"
	"fmt"
	"go/printer"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// A small prelude with a print function and a bridge type behind an alias, as the engine's.
const testPrelude = `package main

import "host"

type Match = host.Match

func print(args ...any) {}

func search(pattern string) []Match { return nil }
`

var testSources = map[string]string{"host": "package host\n\ntype Match struct{ Start int; Text string }\n"}

// session checks cells in order, committing those that pass.
type session struct {
	t    *testing.T
	s    *Session
	fset *token.FileSet
}

func newSession(t *testing.T) *session {
	lib := NewLibrary(testSources, nil)
	return &session{t: t, s: NewSession(lib, validator.Policy{}.Effective().Go.Imports, testPrelude, "host"), fset: token.NewFileSet()}
}

func (s *session) check(src string) (*Cell, *source.GoUnit, error) {
	s.t.Helper()
	res, err := validator.Validate(source.Go, "cell.go", []byte(src), validator.Policy{}, validator.GoFileSet(s.fset))
	if err != nil || res.Go == nil || len(res.Findings) > 0 {
		s.t.Fatalf("validate %q: %v %v", src, err, res.Findings)
	}
	c, err := s.s.Check(res.Go)
	if err == nil {
		c.Commit(true)
	}
	return c, res.Go, err
}

// errorsOf renders a cell's errors as "line:col: msg" lines.
func errorsOf(u *source.GoUnit, err error) string {
	var l List
	if !errors.As(err, &l) {
		return ""
	}
	var out []string
	for _, e := range l {
		p := u.Position(e.Pos)
		out = append(out, strings.TrimPrefix(p.String(), "cell.go:")+": "+e.Msg)
	}
	return strings.Join(out, "\n")
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		errs  string // the last cell's errors; "" means it passes
		added string // the last cell's added imports, comma-separated
	}{
		{"a missing import is added", []string{"x := strings.ToUpper(\"a\")"}, "", "strings"},
		{"an earlier cell's import is used, not added again", []string{"import \"sort\"", "xs := []int{2, 1}\nsort.Ints(xs)"}, "", ""},
		{"a local name is not a package", []string{"strings := []string{\"a\"}\nprint(len(strings))"}, "", ""},
		{"a local name used as a package", []string{"json := 1\nprint(json.Marshal)"}, "2:12: json.Marshal undefined (type int has no field or method Marshal)", ""},
		{"an unknown package", []string{"log.Println(1)"}, "1:1: undefined: log; no package rlm allows is named log (the prompt lists them)", ""},
		{"a missing symbol of an allowed package", []string{"strings.Nope()"}, "1:9: undefined: strings.Nope", "strings"},
		{"unused variables and imports pass", []string{"import \"fmt\"\nfunc f() {\n\tx := 1\n}\ny := 2"}, "", ""},
		{"earlier variables keep their types", []string{"n := 3", "var s string = n"}, "1:16: cannot use n (variable of type int) as string value in variable declaration", ""},
		{"earlier types print without a package", []string{"type rec struct{ n int }\nr := rec{1}", "var x int = r"}, "1:13: cannot use r (variable of struct type rec) as int value in variable declaration", ""},
		{"positional literal of an earlier struct with unexported fields", []string{"type rec struct{ n int }", "r := rec{1}\nprint(r.n)"}, "", ""},
		{"a redeclared variable takes its new type", []string{"x := 1", "x := \"s\"\nvar y string = x"}, "", ""},
		{"a redeclared function replaces the old", []string{"func f() int { return 1 }", "func f() string { return \"\" }\nvar s string = f()"}, "", ""},
		{"a type repeated word for word", []string{"type T struct{ A int }\nfunc (t T) M() int { return t.A }", "type T struct {\n\tA int\n}\nfunc (t T) M() int { return t.A }\nprint(T{1}.M())"}, "", ""},
		{"a changed type", []string{"type T struct{ A int }", "type T struct{ B int }"}, "1:6: type T is already declared by an earlier cell, differently; a type cannot change in a session (the interpreter keeps its first definition): give the new type another name, such as T2", ""},
		{"a method added later", []string{"type T int", "func (t T) M() {}"}, "1:1: cannot add method M: type T was declared by an earlier cell, and a type's methods must be declared in the cell that declares it; declare a function instead, or a new type with its methods", ""},
		{"a prelude type", []string{"type Match int"}, "1:6: type Match is declared by rlm's API (see the prompt); give your type another name", ""},
		{"the prelude is seen", []string{"ms := search(\"x\")\nvar n int = ms[0].Start\nprint(n)"}, "", ""},
		{"ten errors at most", []string{strings.Repeat("x1 := undefined1\n", 12)}, "", ""},
		{"exponential generic types are refused", []string{"type T0[P any] struct{ p P }\ntype T1[P any] struct{ p T0[T0[P]] }\n" + chain(2, 12)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			var c *Cell
			var u *source.GoUnit
			var err error
			for _, src := range tt.cells {
				c, u, err = s.check(src)
			}
			got := errorsOf(u, err)
			switch tt.name {
			case "ten errors at most":
				if n := strings.Count(got, "\n") + 1; n != 11 || !strings.HasSuffix(got, "too many errors") {
					t.Errorf("got %d lines:\n%s", n, got)
				}
				return
			case "exponential generic types are refused":
				if !strings.Contains(got, "nests too deeply when instantiated") {
					t.Errorf("got %q", got)
				}
				return
			}
			if got != tt.errs {
				t.Errorf("errors:\n%s\nwant:\n%s", got, tt.errs)
			}
			if err == nil && strings.Join(c.Added, ",") != tt.added {
				t.Errorf("added %v, want %q", c.Added, tt.added)
			}
		})
	}
}

// chain declares T<from>..T<to>, each instantiating the one before with itself.
func chain(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString("type T" + itoa(i) + "[P any] struct{ p T" + itoa(i-1) + "[T" + itoa(i-1) + "[P]] }\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestTypeExpr(t *testing.T) {
	s := newSession(t)
	s.check("import \"strings\"\ntype pair[K comparable, V any] struct{ k K; v V }")
	tests := []struct {
		src  string // defines v; its type is written at the last line
		want string // "" means it cannot be written there
	}{
		{"v := map[string][]*strings.Builder{}", "map[string][]*strings.Builder"},
		{"v := pair[string, int]{}", "pair[string, int]"},
		{"v := struct{ a int; B string `json:\"b\"` }{}", "struct {\n\ta\tint\n\tB\tstring\t\"json:\\\"b\\\"\"\n}"},
		{"v := func(a int, b ...string) (int, error) { return 0, nil }", "func(int, ...string) (int, error)"},
		{"v := search(\"x\")", "[]Match"},
		{"v := search(\"x\")[0]", "Match"},
		{"v := 'x'", "rune"},
		{"v := any(1)", "any"},
		{"v := make(chan<- int)", "chan<- int"},
		{"v := strings.NewReader(\"\")\nstrings := 1\n_ = strings", ""},
	}
	for _, tt := range tests {
		c, u, err := s.check(tt.src)
		if err != nil {
			t.Errorf("%s: %s", tt.src, errorsOf(u, err))
			continue
		}
		var v types.Object
		for id, obj := range c.Info.Defs {
			if id.Name == "v" {
				v = obj
			}
		}
		last := u.Body.List[len(u.Body.List)-1]
		e := c.TypeExpr(v.Type(), last.Pos())
		got := ""
		if e != nil {
			var b strings.Builder
			printer.Fprint(&b, s.fset, e)
			got = b.String()
		}
		if got != tt.want {
			t.Errorf("%s: wrote %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestLibrary checks that every package of the default policy loads from the embedded data
// alone (no Go toolchain, no file: GOROOT and GOPATH point nowhere), and that a compiled
// package shows only the names its exports function lists.
func TestLibrary(t *testing.T) {
	t.Setenv("GOROOT", t.TempDir())
	t.Setenv("GOPATH", t.TempDir())
	lib := NewLibrary(nil, func(p string) []string {
		if p == "strings" {
			return []string{"Split", "Builder", "Nope"}
		}
		return nil
	})
	for _, p := range (validator.Policy{}).Effective().Go.Imports {
		if p == "cmp" || p == "maps" || p == "slices" {
			continue // interpreted: given as source by the engine
		}
		if !lib.Has(p) {
			t.Errorf("no type data for %s", p)
			continue
		}
		if _, err := lib.Import(p); err != nil {
			t.Errorf("import %s: %v", p, err)
		}
	}
	pkg, _ := lib.Import("strings")
	if got := strings.Join(pkg.Scope().Names(), ","); got != "Builder,Split" {
		t.Errorf("strings shows %s", got)
	}
	if !lib.Nameable("strings", "Builder") || lib.Nameable("strings", "Join") {
		t.Error("Nameable does not follow the exports")
	}
	if _, err := lib.Import("os"); err == nil {
		t.Error("os imported")
	}
}

// TestCheckRecovers checks that a panic inside the checker (here: a unit no parser makes) is an
// error of the cell, not a crash.
func TestCheckRecovers(t *testing.T) {
	s := newSession(t)
	_, u, err := s.check("x := 1")
	if err != nil {
		t.Fatal(err)
	}
	u.Decls.Decls = append(u.Decls.Decls, nil)
	if _, err := s.s.Check(u); err == nil || !strings.Contains(err.Error(), "internal error in the Go type checker") {
		t.Errorf("got %v", err)
	}
}

// TestCheckBounded checks the checker's work on the worst cells the validator lets through: the
// largest one, and generic types that nest exponentially (refused before go/types sees them;
// checked, they overflow its stack). The budget is generous for loaded machines.
func TestCheckBounded(t *testing.T) {
	var big strings.Builder
	for i := 0; big.Len() < limits.SourceBytes-200; i++ {
		fmt.Fprintf(&big, "x%d := strings.Split(\"a,b\", \",\")[0] + strconv.Itoa(%d)\n", i, i)
	}
	gen := "type T0[P any] struct{ p P }\ntype T1[P any] struct{ p T0[T0[P]] }\n" + chain(2, 59) + "var v T59[int]\n"
	for name, src := range map[string]string{"largest cell": big.String(), "exponential generics": gen} {
		s := newSession(t)
		start := time.Now()
		_, u, err := s.check(src)
		d := time.Since(start)
		if name == "exponential generics" && !strings.Contains(errorsOf(u, err), "nests too deeply") {
			t.Errorf("%s: %v", name, err)
		} else if name == "largest cell" && err != nil {
			t.Errorf("%s: %.300v", name, err)
		}
		if d > 5*time.Second {
			t.Errorf("%s: %d bytes checked in %v", name, len(src), d)
		}
		t.Logf("%s: %d bytes in %v", name, len(src), d)
	}
}
