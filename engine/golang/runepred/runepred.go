// Package runepred is a small language of predicates over one rune, compiled to a native Go
// func(rune) bool. The Go engine's desugaring pass writes a cell's
//
//	strings.FieldsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
//
// as strings.FieldsFunc(s, _runePred("(or (lt r 97) (gt r 122))")): yaegi calls a func literal
// handed to a compiled function through reflect, some 1 µs per character, and a native
// predicate costs a few nanoseconds. The language holds what such literals say and nothing with
// an effect, so the native function computes exactly what the literal would:
//
//	pred  = (or pred pred) | (and pred pred) | (not pred) | (CMP val val)
//	      | (unicode.IsLetter val) | … (the unicode classes in Classes)
//	      | (contains "quoted Go string" val)       strings.ContainsRune
//	      | true | false
//	val   = r | integer                              the parameter, a constant
//	CMP   = eq | ne | lt | le | gt | ge
//
// Parse reads the text Node.String writes; it never panics.
package runepred

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Classes are the unicode functions a predicate may call, by name.
var Classes = map[string]func(rune) bool{
	"unicode.IsLetter": unicode.IsLetter, "unicode.IsDigit": unicode.IsDigit,
	"unicode.IsNumber": unicode.IsNumber, "unicode.IsSpace": unicode.IsSpace,
	"unicode.IsPunct": unicode.IsPunct, "unicode.IsUpper": unicode.IsUpper,
	"unicode.IsLower": unicode.IsLower, "unicode.IsTitle": unicode.IsTitle,
	"unicode.IsSymbol": unicode.IsSymbol, "unicode.IsMark": unicode.IsMark,
	"unicode.IsControl": unicode.IsControl, "unicode.IsGraphic": unicode.IsGraphic,
	"unicode.IsPrint": unicode.IsPrint,
}

// Comparisons are the comparison operators, by name.
var Comparisons = map[string]func(a, b int64) bool{
	"eq": func(a, b int64) bool { return a == b }, "ne": func(a, b int64) bool { return a != b },
	"lt": func(a, b int64) bool { return a < b }, "le": func(a, b int64) bool { return a <= b },
	"gt": func(a, b int64) bool { return a > b }, "ge": func(a, b int64) bool { return a >= b },
}

// Node is one node of a predicate: Op is "or", "and", "not", a comparison, a class, "contains",
// "true", "false", "r" or "int".
type Node struct {
	Op   string
	Args []*Node
	Int  int64  // for "int"
	Text string // for "contains"
}

// String is the node's text, which Parse reads back.
func (n *Node) String() string {
	switch n.Op {
	case "r", "true", "false":
		return n.Op
	case "int":
		return strconv.FormatInt(n.Int, 10)
	}
	var b strings.Builder
	b.WriteString("(" + n.Op)
	if n.Op == "contains" {
		b.WriteString(" " + strconv.Quote(n.Text))
	}
	for _, a := range n.Args {
		b.WriteString(" " + a.String())
	}
	b.WriteString(")")
	return b.String()
}

// Parse reads a predicate.
func Parse(src string) (*Node, error) {
	p := &parser{src: src}
	n, err := p.pred()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.src) {
		return nil, fmt.Errorf("runepred: text after the predicate at %d", p.i)
	}
	return n, nil
}

type parser struct {
	src   string
	i     int
	depth int
}

const maxDepth = 200

func (p *parser) skip() {
	for p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
}

func (p *parser) word() string {
	p.skip()
	start := p.i
	for p.i < len(p.src) && !strings.ContainsRune(" ()", rune(p.src[p.i])) {
		p.i++
	}
	return p.src[start:p.i]
}

func (p *parser) pred() (*Node, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, fmt.Errorf("runepred: nested too deep")
	}
	defer func() { p.depth-- }()
	p.skip()
	if p.i < len(p.src) && p.src[p.i] != '(' {
		switch w := p.word(); w {
		case "true", "false":
			return &Node{Op: w}, nil
		default:
			return nil, fmt.Errorf("runepred: %q is not a predicate", w)
		}
	}
	if p.i >= len(p.src) {
		return nil, fmt.Errorf("runepred: predicate expected at %d", p.i)
	}
	p.i++ // (
	op := p.word()
	n := &Node{Op: op}
	var err error
	switch {
	case op == "or" || op == "and":
		n.Args, err = p.preds(2)
	case op == "not":
		n.Args, err = p.preds(1)
	case Comparisons[op] != nil:
		n.Args, err = p.vals(2)
	case Classes[op] != nil:
		n.Args, err = p.vals(1)
	case op == "contains":
		if n.Text, err = p.quoted(); err == nil {
			n.Args, err = p.vals(1)
		}
	default:
		err = fmt.Errorf("runepred: unknown operator %q", op)
	}
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i >= len(p.src) || p.src[p.i] != ')' {
		return nil, fmt.Errorf("runepred: ) expected at %d", p.i)
	}
	p.i++
	return n, nil
}

func (p *parser) preds(k int) ([]*Node, error) {
	out := make([]*Node, k)
	for i := range out {
		n, err := p.pred()
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (p *parser) vals(k int) ([]*Node, error) {
	out := make([]*Node, k)
	for i := range out {
		switch w := p.word(); w {
		case "r":
			out[i] = &Node{Op: "r"}
		default:
			v, err := strconv.ParseInt(w, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("runepred: %q is not r or an integer", w)
			}
			out[i] = &Node{Op: "int", Int: v}
		}
	}
	return out, nil
}

func (p *parser) quoted() (string, error) {
	p.skip()
	q, err := strconv.QuotedPrefix(p.src[p.i:])
	if err != nil {
		return "", fmt.Errorf("runepred: a quoted string expected at %d", p.i)
	}
	p.i += len(q)
	return strconv.Unquote(q)
}

// Func compiles a parsed predicate.
func (n *Node) Func() func(rune) bool {
	switch n.Op {
	case "true":
		return func(rune) bool { return true }
	case "false":
		return func(rune) bool { return false }
	case "or":
		a, b := n.Args[0].Func(), n.Args[1].Func()
		return func(r rune) bool { return a(r) || b(r) }
	case "and":
		a, b := n.Args[0].Func(), n.Args[1].Func()
		return func(r rune) bool { return a(r) && b(r) }
	case "not":
		a := n.Args[0].Func()
		return func(r rune) bool { return !a(r) }
	case "contains":
		s, x := n.Text, n.Args[0].val()
		return func(r rune) bool { return strings.ContainsRune(s, rune(x(r))) }
	}
	if cmp := Comparisons[n.Op]; cmp != nil {
		x, y := n.Args[0].val(), n.Args[1].val()
		if y0 := n.Args[1]; y0.Op == "int" && n.Args[0].Op == "r" { // the common shape: r < 'a'
			c := y0.Int
			return func(r rune) bool { return cmp(int64(r), c) }
		}
		return func(r rune) bool { return cmp(x(r), y(r)) }
	}
	class := Classes[n.Op]
	x := n.Args[0].val()
	return func(r rune) bool { return class(rune(x(r))) }
}

func (n *Node) val() func(rune) int64 {
	if n.Op == "r" {
		return func(r rune) int64 { return int64(r) }
	}
	c := n.Int
	return func(rune) int64 { return c }
}
