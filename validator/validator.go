package validator

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	jsast "github.com/dop251/goja/ast"
	jsfile "github.com/dop251/goja/file"

	"github.com/rlm-sandbox/rlm/fault"
)

// Lang is a source language.
type Lang string

// The languages.
const (
	Go Lang = "go" // Go, run by yaegi
	JS Lang = "js" // JavaScript, run by goja
)

// ParseLang turns "go", "js" or "javascript" into a Lang.
func ParseLang(s string) (Lang, error) {
	switch strings.ToLower(s) {
	case "go":
		return Go, nil
	case "js", "javascript":
		return JS, nil
	}
	return "", fmt.Errorf("unknown language %q: use go or js", s)
}

// LangOf returns the language a file name's extension implies. A trailing .txt is ignored, so
// cells kept out of the Go toolchain's way (cell.go.txt) are still recognised.
func LangOf(filename string) (Lang, bool) {
	name := strings.TrimSuffix(strings.ToLower(filename), ".txt")
	switch filepath.Ext(name) {
	case ".go":
		return Go, true
	case ".js", ".mjs", ".cjs":
		return JS, true
	}
	return "", false
}

// Position is a resolved source position. Line and Column are 1-based; Column counts bytes.
type Position struct {
	Filename string `json:"file"`
	Offset   int    `json:"offset"`
	Line     int    `json:"line"`
	Column   int    `json:"col"`
}

func (p Position) String() string {
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// Finding is one policy violation.
type Finding struct {
	Pos     Position `json:"pos"`
	Rule    Rule     `json:"rule"`
	Class   string   `json:"class,omitempty"` // taxonomy class, e.g. "G1" or "J7"; empty for syntax errors
	Message string   `json:"message"`         // what is wrong, and what to do instead
}

// Error formats f as FILE:LINE:COL: RULE: message.
func (f Finding) Error() string {
	return fmt.Sprintf("%s: %s: %s", f.Pos, f.Rule, f.Message)
}

// List is a sorted list of findings. A non-empty List is an error of kind fault.Rejected.
type List []Finding

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no findings"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more findings)", l[0].Error(), len(l)-1)
}

// Is makes errors.Is(list, fault.Rejected) true.
func (l List) Is(target error) bool { return target == fault.Rejected }

// Result is what Validate returns: the findings, and the parsed unit that later stages execute.
type Result struct {
	Lang     Lang
	Findings List
	Go       *GoUnit // set for Go sources that parsed
	JS       *JSUnit // set for JS sources that parsed
}

// Err returns the findings as an error, or nil when there are none.
func (r *Result) Err() error {
	if len(r.Findings) == 0 {
		return nil
	}
	return r.Findings
}

// GoUnit is a parsed Go source.
//
// A source that starts with a package clause is a whole program: it must be package main, and if
// it declares func main the engine runs main once. Any other source is a REPL snippet: imports,
// then any mix of declarations and statements. The snippet's declarations (imports, func, type,
// var, const) form Decls; its statements, in order, form Body. Both are parsed from the original
// text with the other part blanked out, so every position refers to the source as written.
type GoUnit struct {
	Fset    *token.FileSet
	Decls   *ast.File      // package main with the imports and top-level declarations; never nil
	Body    *ast.BlockStmt // the top-level statements of a snippet; nil when there are none
	Program bool           // the source had its own package clause
	HasMain bool           // a whole program that declares func main

	pos positioner
}

// Position resolves a position from Decls or Body against the source as written.
func (u *GoUnit) Position(p token.Pos) Position {
	f := u.Fset.File(p)
	if f == nil {
		return Position{Filename: u.pos.name}
	}
	return u.pos.at(f.Offset(p) - u.pos.shift[f])
}

// JSUnit is a parsed JavaScript source.
type JSUnit struct {
	Program *jsast.Program
	pos     positioner
}

// Position resolves a goja index against the source as written.
func (u *JSUnit) Position(idx jsfile.Idx) Position {
	return u.pos.at(int(idx) - 1)
}

// Validate checks src against the policy p. The zero Policy is the safe default.
// It never panics and never runs a parser on a source that fails the size and depth pre-checks.
func Validate(lang Lang, filename string, src []byte, p Policy, opts ...Option) (*Result, error) {
	p = p.withLimits()
	res := &Result{Lang: lang}
	var c checker
	c.init(lang, filename, src, &p)
	for _, o := range opts {
		o(&c)
	}
	switch lang {
	case Go:
		res.Go = c.goSource()
	case JS:
		res.JS = c.jsSource()
	default:
		return nil, fmt.Errorf("unknown language %q: use go or js", lang)
	}
	res.Findings = c.findings()
	return res, nil
}

// Option adjusts one call of Validate.
type Option func(*checker)

// GoFileSet makes Validate parse Go sources into fset. An engine that keys declarations by
// position (yaegi does) must compile the AST against the FileSet it was parsed into: pass the
// interpreter's own.
func GoFileSet(fset *token.FileSet) Option {
	return func(c *checker) { c.fset = fset }
}

// ParseOnly makes Validate parse without any check, not even the size and depth pre-checks. It
// exists so that the runtime and OS layers can be tested on their own (rlm run --no-validate);
// syntax errors are still reported.
func ParseOnly() Option {
	return func(c *checker) { c.parseOnly = true }
}

// JSDeclared names the top-level variables that earlier cells of a session declared: a later
// cell may use them although it does not declare them itself, as in a REPL. A denied global
// (self, module, ...) named here is the session's own variable, not the host's.
func JSDeclared(names []string) Option {
	return func(c *checker) { c.jsDeclared = names }
}

// checker collects findings for one source.
type checker struct {
	jsDeclared []string // see JSDeclared
	lang       Lang
	src        []byte
	pol        *Policy
	pos        positioner
	fset       *token.FileSet
	parseOnly  bool
	found      []Finding
	seen       map[string]bool
}

func (c *checker) init(lang Lang, filename string, src []byte, p *Policy) {
	c.lang, c.src, c.pol = lang, src, p
	c.pos = positioner{name: filename, src: src}
	c.seen = map[string]bool{}
}

// report records a finding at byte offset off of the source as written.
func (c *checker) report(off int, rule Rule, detail string) {
	f := Finding{Pos: c.pos.at(off), Rule: rule, Class: rule.Class(c.lang), Message: message(rule, detail)}
	key := f.Error()
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.found = append(c.found, f)
}

func (c *checker) findings() List {
	l := List(c.found)
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.Offset < l[j].Pos.Offset })
	return l
}

// positioner turns byte offsets into line and column, building the line table on first use.
type positioner struct {
	name  string
	src   []byte
	lines []int // offsets of line starts
	shift map[*token.File]int
}

func (p *positioner) at(off int) Position {
	if off < 0 {
		off = 0
	}
	if off > len(p.src) {
		off = len(p.src)
	}
	if p.lines == nil {
		p.lines = append(p.lines, 0)
		for i, b := range p.src {
			if b == '\n' {
				p.lines = append(p.lines, i+1)
			}
		}
	}
	i := sort.SearchInts(p.lines, off+1) - 1
	return Position{Filename: p.name, Offset: off, Line: i + 1, Column: off - p.lines[i] + 1}
}

// offsetOf turns a 1-based line and byte column into an offset.
func (p *positioner) offsetOf(line, col int) int {
	p.at(0)
	if line < 1 || line > len(p.lines) {
		return 0
	}
	return p.lines[line-1] + col - 1
}
