package validator

import (
	"errors"
	"fmt"
	"go/token"

	"github.com/rlm-sandbox/rlm/source"
)

// Result is what Validate returns: the findings, and the parsed unit that later stages execute.
type Result struct {
	Lang     source.Lang
	Findings source.List
	Go       *source.GoUnit // set for Go sources that parsed
	JS       *source.JSUnit // set for JS sources that parsed
}

// Err returns the findings as an error, or nil when there are none.
func (r *Result) Err() error {
	if len(r.Findings) == 0 {
		return nil
	}
	return r.Findings
}

// Validate parses src with package source, under the policy's size and depth limits, then checks
// the parsed unit against the policy p. The zero Policy is the safe default. It never panics and
// never runs a parser on a source that fails the pre-checks.
func Validate(lang source.Lang, filename string, src []byte, p Policy, opts ...Option) (*Result, error) {
	p = p.withLimits()
	res := &Result{Lang: lang}
	var c checker
	c.init(lang, filename, src, &p)
	for _, o := range opts {
		o(&c)
	}
	switch lang {
	case source.Go:
		res.Go = c.goSource()
	case source.JS:
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

// ParseOnly makes Validate parse without any check, not even the pre-checks
// (source.Options.Unchecked). It exists so that the runtime and OS layers can be tested on their
// own (rlm run --no-validate); syntax errors are still reported.
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
	lang       source.Lang
	name       string
	src        []byte
	pol        *Policy
	file       *source.File
	fset       *token.FileSet
	parseOnly  bool
	found      source.List
	seen       map[string]bool
}

func (c *checker) init(lang source.Lang, filename string, src []byte, p *Policy) {
	c.lang, c.name, c.src, c.pol = lang, filename, src, p
	c.file = source.NewFile(filename, src)
	c.seen = map[string]bool{}
}

// parseOptions are the options of the parse: the policy's limits, unless ParseOnly.
func (c *checker) parseOptions() source.Options {
	return source.Options{MaxBytes: c.pol.MaxSourceBytes, MaxDepth: c.pol.MaxDepth, FileSet: c.fset, Unchecked: c.parseOnly}
}

// report records a finding at byte offset off of the source as written.
func (c *checker) report(off int, rule Rule, detail string) {
	c.add(source.Finding{Pos: c.file.Position(off), Rule: rule, Class: class(rule, c.lang), Message: message(rule, detail)})
}

// addParse records the findings of the parse (a source.List).
func (c *checker) addParse(err error) {
	var l source.List
	if !errors.As(err, &l) {
		if err != nil {
			c.add(source.Finding{Pos: c.file.Position(0), Rule: source.Syntax, Message: err.Error()})
		}
		return
	}
	for _, f := range l {
		c.add(f)
	}
}

func (c *checker) add(f source.Finding) {
	key := f.Error()
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.found = append(c.found, f)
}

func (c *checker) findings() source.List {
	c.found.Sort()
	return c.found
}
