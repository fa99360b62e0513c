package typecheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strings"

	"github.com/rlm-sandbox/rlm/engine"
)

// Error is one error of a cell: where (a position in the unit's FileSet) and what, worded as
// gc words it, sometimes with a hint after a semicolon.
type Error struct {
	Pos token.Pos
	Msg string
}

// List is the errors of one cell, in source order. It is an error.
type List []Error

func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Msg
	}
	return strings.Join(msgs, "\n")
}

// maxErrors is how many errors a cell reports, as gc does (then "too many errors").
const maxErrors = 10

// unused matches the errors a REPL does not stop for: a variable, import or label declared and
// not used. A cell's top-level variables persist for later cells, imports persist per file,
// and neither changes what the code does.
var unused = regexp.MustCompile(`declared and not used|imported (as \S+ )?and not used`)

// earlierField matches an error go/types reports wrongly here: a positional literal of an
// earlier cell's struct type with unexported fields (that cell was checked as another package
// main, and go/types compares packages by identity there).
var earlierField = regexp.MustCompile(`^implicit assignment to unexported field \S+ in struct literal of type main\.`)

// mainQualifier matches the package qualifier go/types puts before the names of earlier cells
// (each cell is checked as a package main of its own).
var mainQualifier = regexp.MustCompile(`\bmain\.`)

// report turns go/types errors into the cell's errors: unused-name errors dropped, gc's
// wording, source order, at most maxErrors.
func (c *Cell) report(errs []types.Error) List {
	var out List
	seen := map[Error]bool{}
	quals := c.unresolvedQualifiers()
	for _, e := range errs {
		if e.Soft && unused.MatchString(e.Msg) || earlierField.MatchString(e.Msg) {
			continue
		}
		msg := mainQualifier.ReplaceAllString(e.Msg, "")
		msg += c.hint(e, msg, quals)
		ce := Error{Pos: e.Pos, Msg: msg}
		if !seen[ce] {
			seen[ce] = true
			out = append(out, ce)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	if len(out) > maxErrors {
		out = append(out[:maxErrors], Error{Pos: out[maxErrors].Pos, Msg: "too many errors"})
	}
	return out
}

// hint adds what to do to errors whose fix gc leaves implicit.
func (c *Cell) hint(e types.Error, msg string, quals map[token.Pos]string) string {
	switch {
	case strings.HasPrefix(msg, "undefined: ") && quals[e.Pos] != "":
		name := quals[e.Pos]
		if p := c.s.byName[name]; p != "" {
			return ""
		}
		return "; no package rlm allows is named " + name + " (the prompt lists them)"
	case strings.HasSuffix(msg, " is not used") && c.topLevel(e.Pos):
		return "; print a value to see it: print(...)"
	}
	if m := shadowedCall.FindStringSubmatch(msg); m != nil {
		if _, api := engine.Lookup(m[1]); api {
			if _, earlier := c.prior[m[1]].(*types.Var); !earlier { // declared by this block, which therefore did not run
				return "; this block's top-level variable " + m[1] + " would hide the API function " + m[1] + ", so the block did not run; name the variable otherwise (n, txt, ...) so the API stays reachable"
			}
			return "; a top-level variable named " + m[1] + " hides the API function " + m[1] + " for the rest of this session; name top-level variables otherwise (n, txt, ...) so the API stays reachable"
		}
	}
	return ""
}

// shadowedCall matches go/types' error for calling a variable, such as a cell's `text := ...`
// that hides the API function text.
var shadowedCall = regexp.MustCompile(`^invalid operation: cannot call (\w+) \(variable of type `)

// unresolvedQualifiers maps the positions of unresolved selector operands (log in log.Print)
// to their names.
func (c *Cell) unresolvedQualifiers() map[token.Pos]string {
	out := map[token.Pos]string{}
	if c.Info == nil {
		return out
	}
	visit := func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && c.Info.Uses[id] == nil && c.Info.Defs[id] == nil {
				out[id.Pos()] = id.Name
			}
		}
		return true
	}
	ast.Inspect(c.u.Decls, visit)
	if c.u.Body != nil {
		ast.Inspect(c.u.Body, visit)
	}
	return out
}

// topLevel reports whether pos is in one of a snippet's top-level statements (not inside a
// function literal).
func (c *Cell) topLevel(pos token.Pos) bool {
	if c.body == nil {
		return false
	}
	for _, st := range c.body.Body.List {
		if st.Pos() <= pos && pos < st.End() {
			inLit := false
			ast.Inspect(st, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok && fl.Pos() <= pos && pos < fl.End() {
					inLit = true
				}
				return !inLit
			})
			return !inLit
		}
	}
	return false
}
