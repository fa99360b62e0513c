// Package sortspec is a small language for the comparators of sorts, run natively. yaegi calls
// a comparator literal handed to sort.Slice through reflect, about 1.3 µs a comparison (100,000
// rows took 2.3 s), and slices.SortFunc's interpreted comparator about 9 µs (16 s). The Go
// engine's desugaring pass writes a comparator that only compares keys of the two elements
// (fields, lengths, values in a map, the element itself) as a spec in this language, and the
// host sorts with it: each element's keys are read once, a permutation is sorted with the very
// algorithm the call would have run (sort.Slice or sort.SliceStable) and the comparisons it
// would have made, and the slice is rearranged by it. The result is the one the literal gives,
// ties and inconsistent comparators included.
//
//	spec  = (sort MODE (keys KEY…) EXPR)
//	MODE  = less | less-stable          EXPR is a bool: sort.Slice, sort.SliceStable
//	      | cmp | cmp-stable            EXPR is an int: slices.SortFunc, slices.SortStableFunc
//	KEY   = (KIND PATH)                 KIND = int | uint | float | string
//	PATH  = x                           the element
//	      | (field N M PATH)            field N of a struct of M fields (through a pointer)
//	      | (len PATH) | (map N PATH)   len; the value in map argument N (zero if absent)
//	bool  = true | false | (and bool bool) | (or bool bool) | (not bool)
//	      | (if bool bool bool) | (CMP OPD OPD)          CMP = eq | ne | lt | le | gt | ge
//	int   = (int N) | (compare OPD OPD) | (sub OPD OPD)  cmp.Compare; - on int keys
//	      | (first int…) | (neg int) | (if bool int int) cmp.Or; unary -
//	OPD   = iN | jN                     key N of the first or the second element compared
//
// Parse reads the text Spec.String writes and never panics; Sort declines (returns false)
// whatever it cannot read exactly as the literal would, and the caller then runs the literal.
package sortspec

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is a parsed spec.
type Spec struct {
	Mode string // less, less-stable, cmp or cmp-stable
	Keys []Key
	Expr *Node
}

// Key is one key of an element: its kind and the path that reads it.
type Key struct {
	Kind string // int, uint, float or string
	Path *Node
}

// Node is a node of a path or an expression: Op is the word after the parenthesis, or x, true,
// false or an operand; N and M are the numbers of field, map and int; Side and Key are an
// operand's.
type Node struct {
	Op   string
	N, M int
	Side byte // 'i' or 'j', for an operand
	Key  int
	Args []*Node
}

var (
	modes    = map[string]bool{"less": true, "less-stable": true, "cmp": true, "cmp-stable": true}
	kinds    = map[string]bool{"int": true, "uint": true, "float": true, "string": true}
	compares = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true}
)

// String is the spec's text, which Parse reads back.
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString("(sort " + s.Mode + " (keys")
	for _, k := range s.Keys {
		b.WriteString(" (" + k.Kind + " " + k.Path.String() + ")")
	}
	b.WriteString(") " + s.Expr.String() + ")")
	return b.String()
}

// String is the node's text.
func (n *Node) String() string {
	switch n.Op {
	case "x", "true", "false":
		return n.Op
	case "opd":
		return string(n.Side) + strconv.Itoa(n.Key)
	case "int":
		return "(int " + strconv.Itoa(n.N) + ")"
	case "field":
		return fmt.Sprintf("(field %d %d %s)", n.N, n.M, n.Args[0])
	case "map":
		return fmt.Sprintf("(map %d %s)", n.N, n.Args[0])
	}
	var b strings.Builder
	b.WriteString("(" + n.Op)
	for _, a := range n.Args {
		b.WriteString(" " + a.String())
	}
	b.WriteString(")")
	return b.String()
}

// Parse reads a spec.
func Parse(src string) (*Spec, error) {
	p := &parser{src: src}
	s, err := p.spec()
	if err != nil {
		return nil, fmt.Errorf("sortspec: %v", err)
	}
	if p.skip(); p.i != len(p.src) {
		return nil, fmt.Errorf("sortspec: text after the spec at %d", p.i)
	}
	return s, nil
}

type parser struct {
	src   string
	i     int
	depth int
}

// maxDepth bounds nesting; maxKeys the keys of one spec.
const (
	maxDepth = 200
	maxKeys  = 64
)

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

func (p *parser) open() error {
	if p.skip(); p.i >= len(p.src) || p.src[p.i] != '(' {
		return fmt.Errorf("( expected at %d", p.i)
	}
	p.i++
	return nil
}

func (p *parser) close() error {
	if p.skip(); p.i >= len(p.src) || p.src[p.i] != ')' {
		return fmt.Errorf(") expected at %d", p.i)
	}
	p.i++
	return nil
}

func (p *parser) atParen() bool {
	p.skip()
	return p.i < len(p.src) && p.src[p.i] == '('
}

func (p *parser) number() (int, error) {
	w := p.word()
	n, err := strconv.Atoi(w)
	if err != nil || n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("%q is not a small number", w)
	}
	return n, nil
}

func (p *parser) spec() (*Spec, error) {
	if err := p.open(); err != nil {
		return nil, err
	}
	if w := p.word(); w != "sort" {
		return nil, fmt.Errorf("%q is not sort", w)
	}
	s := &Spec{Mode: p.word()}
	if !modes[s.Mode] {
		return nil, fmt.Errorf("unknown mode %q", s.Mode)
	}
	if err := p.open(); err != nil {
		return nil, err
	}
	if w := p.word(); w != "keys" {
		return nil, fmt.Errorf("%q is not keys", w)
	}
	for p.atParen() {
		if len(s.Keys) == maxKeys {
			return nil, fmt.Errorf("more than %d keys", maxKeys)
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		s.Keys = append(s.Keys, k)
	}
	if err := p.close(); err != nil {
		return nil, err
	}
	var err error
	if strings.HasPrefix(s.Mode, "less") {
		s.Expr, err = p.boolExpr(s)
	} else {
		s.Expr, err = p.intExpr(s)
	}
	if err != nil {
		return nil, err
	}
	return s, p.close()
}

func (p *parser) key() (Key, error) {
	if err := p.open(); err != nil {
		return Key{}, err
	}
	k := Key{Kind: p.word()}
	if !kinds[k.Kind] {
		return k, fmt.Errorf("unknown kind %q", k.Kind)
	}
	var err error
	if k.Path, err = p.path(); err != nil {
		return k, err
	}
	return k, p.close()
}

func (p *parser) enter() error {
	if p.depth++; p.depth > maxDepth {
		return fmt.Errorf("nested too deep")
	}
	return nil
}

func (p *parser) path() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if !p.atParen() {
		if w := p.word(); w != "x" {
			return nil, fmt.Errorf("%q is not a path", w)
		}
		return &Node{Op: "x"}, nil
	}
	p.i++
	n := &Node{Op: p.word()}
	var err error
	switch n.Op {
	case "field":
		if n.N, err = p.number(); err == nil {
			n.M, err = p.number()
		}
	case "map":
		n.N, err = p.number()
	case "len":
	default:
		err = fmt.Errorf("unknown path %q", n.Op)
	}
	if err != nil {
		return nil, err
	}
	if n.Op == "field" && n.N >= n.M {
		return nil, fmt.Errorf("field %d of %d", n.N, n.M)
	}
	a, err := p.path()
	if err != nil {
		return nil, err
	}
	n.Args = []*Node{a}
	return n, p.close()
}

// operand reads iN or jN, N a key of s.
func (p *parser) operand(s *Spec) (*Node, error) {
	w := p.word()
	if len(w) < 2 || (w[0] != 'i' && w[0] != 'j') {
		return nil, fmt.Errorf("%q is not an operand", w)
	}
	k, err := strconv.Atoi(w[1:])
	if err != nil || k < 0 || k >= len(s.Keys) || strconv.Itoa(k) != w[1:] {
		return nil, fmt.Errorf("%q is not a key's operand", w)
	}
	return &Node{Op: "opd", Side: w[0], Key: k}, nil
}

// operands reads two operands of keys of one kind (int keys for sub).
func (p *parser) operands(s *Spec, op string) ([]*Node, error) {
	a, err := p.operand(s)
	if err != nil {
		return nil, err
	}
	b, err := p.operand(s)
	if err != nil {
		return nil, err
	}
	ka, kb := s.Keys[a.Key].Kind, s.Keys[b.Key].Kind
	if ka != kb || op == "sub" && ka != "int" {
		return nil, fmt.Errorf("%s of %s and %s keys", op, ka, kb)
	}
	return []*Node{a, b}, nil
}

func (p *parser) boolExpr(s *Spec) (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if !p.atParen() {
		w := p.word()
		if w != "true" && w != "false" {
			return nil, fmt.Errorf("%q is not a bool", w)
		}
		return &Node{Op: w}, nil
	}
	p.i++
	n := &Node{Op: p.word()}
	var err error
	switch {
	case n.Op == "and" || n.Op == "or":
		n.Args, err = p.bools(s, 2)
	case n.Op == "not":
		n.Args, err = p.bools(s, 1)
	case n.Op == "if":
		n.Args, err = p.bools(s, 3)
	case compares[n.Op]:
		n.Args, err = p.operands(s, n.Op)
	default:
		err = fmt.Errorf("unknown bool %q", n.Op)
	}
	if err != nil {
		return nil, err
	}
	return n, p.close()
}

func (p *parser) bools(s *Spec, k int) ([]*Node, error) {
	out := make([]*Node, k)
	for i := range out {
		n, err := p.boolExpr(s)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (p *parser) intExpr(s *Spec) (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if err := p.open(); err != nil {
		return nil, err
	}
	n := &Node{Op: p.word()}
	var err error
	switch n.Op {
	case "int":
		var v int
		neg := p.skipMinus()
		if v, err = p.number(); neg {
			v = -v
		}
		n.N = v
	case "compare", "sub":
		n.Args, err = p.operands(s, n.Op)
	case "neg":
		n.Args, err = p.ints(s, 1)
	case "first":
		for err == nil && p.atParen() {
			var a *Node
			if a, err = p.intExpr(s); err == nil {
				n.Args = append(n.Args, a)
			}
		}
	case "if":
		var c *Node
		if c, err = p.boolExpr(s); err == nil {
			n.Args, err = p.ints(s, 2)
			n.Args = append([]*Node{c}, n.Args...)
		}
	default:
		err = fmt.Errorf("unknown int %q", n.Op)
	}
	if err != nil {
		return nil, err
	}
	return n, p.close()
}

func (p *parser) skipMinus() bool {
	if p.skip(); p.i < len(p.src) && p.src[p.i] == '-' {
		p.i++
		return true
	}
	return false
}

func (p *parser) ints(s *Spec, k int) ([]*Node, error) {
	out := make([]*Node, k)
	for i := range out {
		n, err := p.intExpr(s)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
