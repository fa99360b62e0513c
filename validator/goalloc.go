package validator

import (
	"fmt"
	"go/ast"
	"math"
	"strconv"
)

// sizeArg is the argument of a function that sets how much the function allocates.
type sizeArg struct {
	arg  int     // the argument's index
	unit float64 // elements per unit of the argument (1/8 for a count of bits); 0: per byte of the constant string in argument 0, or 1
	noun string  // what the argument is
}

// sizeFuncs are the allowed package functions ("path.Name") that allocate in proportion to an
// argument. make, array types and slice literal indexes are checked on their own.
var sizeFuncs = map[string]sizeArg{
	"strings.Repeat": {1, 0, "count"}, "bytes.Repeat": {1, 0, "count"}, "slices.Repeat": {1, 1, "count"},
	"slices.Grow": {1, 1, "size"}, "math/rand.Perm": {0, 1, "size"}, "container/ring.New": {0, 1, "size"},
	"bufio.NewReaderSize": {1, 1, "size"}, "bufio.NewWriterSize": {1, 1, "size"},
	"strconv.FormatFloat": {2, 1, "precision"}, "strconv.AppendFloat": {3, 1, "precision"},
}

// sizeMethods are methods known by name only (the validator has no types) whose argument sets
// how much they allocate: Grow of strings.Builder and bytes.Buffer, and math/big's bit counts.
// A constant over the limit in these places is never benign, whatever the receiver.
var sizeMethods = map[string]sizeArg{
	"Grow": {0, 1, "size"}, "Lsh": {1, 1.0 / 8, "bit count"}, "SetBit": {1, 1.0 / 8, "bit index"}, "SetPrec": {0, 1.0 / 8, "precision in bits"},
}

// allocCall checks the size arguments of make, of the allowed functions that allocate by a
// count, and of the methods known to.
func (g *goChecker) allocCall(n *ast.CallExpr) {
	switch fun := callee(n).(type) {
	case *ast.Ident:
		if fun.Name == "make" && len(n.Args) > 1 && g.ev.decls[fun.Name] == nil {
			per := g.makeElems(n.Args[0])
			for _, a := range n.Args[1:] {
				g.allocSize(a, per, "make size")
			}
		}
	case *ast.SelectorExpr:
		if s, ok := sizeFuncs[g.pkgPath(fun)]; ok {
			g.sizeArg(n, s, g.qualified(fun)+" "+s.noun)
		} else if s, ok := sizeMethods[fun.Sel.Name]; ok && g.qualified(fun) == "" {
			g.sizeArg(n, s, fun.Sel.Name+" "+s.noun)
		}
	}
}

func (g *goChecker) sizeArg(n *ast.CallExpr, s sizeArg, what string) {
	if s.arg >= len(n.Args) {
		return
	}
	per := s.unit
	if per == 0 {
		per = 1
		if v, ok := g.ev.value(stringOperand(n.Args[0])); ok && v.num == nil && v.str > 0 {
			per = v.str
		}
	}
	g.allocSize(n.Args[s.arg], per, what)
}

// stringOperand sees through []byte("...") and []rune("..."), whose length is the constant's.
func stringOperand(e ast.Expr) ast.Expr {
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(c.Args) == 1 {
		if _, ok := c.Fun.(*ast.ArrayType); ok {
			return c.Args[0]
		}
	}
	return e
}

// allocSize reports e when it is a constant that, times per elements each, is over the
// allocation limit. A max(...) with one such argument is over the limit whatever the others
// are. Anything else is left to the runtime layers.
func (g *goChecker) allocSize(e ast.Expr, per float64, what string) {
	if e == nil {
		return
	}
	n, ok := g.constSize(e)
	if !ok {
		return
	}
	limit := float64(g.c.pol.MaxConstAlloc)
	if total := n * per; total > limit {
		detail := fmt.Sprintf("%s %s is over the limit of %d", what, formatSize(n), g.c.pol.MaxConstAlloc)
		if per != 1 {
			detail = fmt.Sprintf("%s %s (%s elements in all) is over the limit of %d", what, formatSize(n), formatSize(total), g.c.pol.MaxConstAlloc)
		}
		g.c.report(g.off(e.Pos()), AllocSize, detail)
	}
}

// constSize evaluates a size, or a lower bound of it: the largest constant argument of max.
func (g *goChecker) constSize(e ast.Expr) (float64, bool) {
	if v, ok := g.ev.value(e); ok {
		return v.size()
	}
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return 0, false
	}
	if id, isID := c.Fun.(*ast.Ident); !isID || id.Name != "max" || g.ev.decls["max"] != nil {
		return 0, false
	}
	best, found := 0.0, false
	for _, a := range c.Args {
		if n, ok := g.constSize(a); ok && (!found || n > best) {
			best, found = n, true
		}
	}
	return best, found
}

// makeElems is how many elements one unit of make's size holds: the element type's (a map's
// key and value types'). A type name counts its largest declaration.
func (g *goChecker) makeElems(t ast.Expr) float64 {
	switch t := ast.Unparen(t).(type) {
	case *ast.ArrayType:
		return g.typeElems(t.Elt, 0)
	case *ast.MapType:
		return g.typeElems(t.Key, 0) + g.typeElems(t.Value, 0)
	case *ast.ChanType:
		return g.typeElems(t.Value, 0)
	case *ast.Ident:
		n := 1.0
		for _, def := range g.ev.types[t.Name] {
			n = max(n, g.makeElems(def))
		}
		return n
	case *ast.IndexExpr, *ast.IndexListExpr:
		x, args := typeArgs(t)
		return g.makeElems(x) * g.argElems(args)
	}
	return 1
}

// typeElems counts the elements a value of type t holds inline: an array's length times its
// element's, a struct's fields' sum, 1 for anything else. Unknown lengths count as 1. A type
// name counts its largest declaration (whatever scope each is in), computed once.
func (g *goChecker) typeElems(t ast.Expr, depth int) float64 {
	if depth > 64 { // inline type literals nest no deeper than the pre-scan's limit
		return 1
	}
	switch t := t.(type) {
	case *ast.ParenExpr:
		return g.typeElems(t.X, depth+1)
	case *ast.ArrayType:
		n := 1.0
		if t.Len != nil {
			if v, ok := g.ev.value(t.Len); ok {
				n, _ = v.size()
			}
		}
		return max(n, 1) * g.typeElems(t.Elt, depth+1)
	case *ast.StructType:
		sum := 0.0
		for _, f := range t.Fields.List {
			sum += float64(max(len(f.Names), 1)) * g.typeElems(f.Type, depth+1)
		}
		return max(sum, 1)
	case *ast.Ident:
		return g.nameElems(t.Name)
	case *ast.IndexExpr, *ast.IndexListExpr:
		x, args := typeArgs(t)
		return g.typeElems(x, depth+1) * g.argElems(args)
	}
	return 1
}

// nameElems is typeElems of a type name: the most any of its declarations holds. A name met
// again while it is computed (a recursive type, through a pointer or a slice) counts 1.
func (g *goChecker) nameElems(name string) float64 {
	if n, ok := g.ev.elems[name]; ok {
		return max(n, 1)
	}
	g.ev.elems[name] = -1
	n := 1.0
	for _, def := range g.ev.types[name] {
		n = max(n, g.typeElems(def, 0))
	}
	g.ev.elems[name] = n
	return n
}

// typeArgs splits an instantiated generic type, T[A, B], into T and its arguments.
func typeArgs(t ast.Expr) (ast.Expr, []ast.Expr) {
	switch t := t.(type) {
	case *ast.IndexExpr:
		return t.X, []ast.Expr{t.Index}
	case *ast.IndexListExpr:
		return t.X, t.Indices
	}
	return t, nil
}

// argElems bounds what type arguments add: the generic type, counted with each parameter as 1,
// times each argument's elements bounds it with the arguments in place.
func (g *goChecker) argElems(args []ast.Expr) float64 {
	n := 1.0
	for _, a := range args {
		n *= g.typeElems(a, 0)
	}
	return n
}

// structType reports a struct type holding more elements than the limit where it crosses it:
// no field's type does on its own (type t20 struct{ a, b t19 }, twenty levels down).
func (g *goChecker) structType(n *ast.StructType) {
	limit := float64(g.c.pol.MaxConstAlloc)
	for _, f := range n.Fields.List {
		if g.typeElems(f.Type, 0) > limit {
			return // reported where the field's type crosses the limit
		}
	}
	if total := g.typeElems(n, 0); total > limit {
		g.c.report(g.off(n.Pos()), AllocSize, fmt.Sprintf("struct of %s elements is over the limit of %d", formatSize(total), g.c.pol.MaxConstAlloc))
	}
}

// arrayType reports an array type holding more elements than the limit, at the outermost
// length that crosses it: [1<<40]byte, and [1<<13][1<<13]byte too.
func (g *goChecker) arrayType(n *ast.ArrayType) {
	if n.Len == nil {
		return
	}
	if _, ok := n.Len.(*ast.Ellipsis); ok {
		return
	}
	limit := float64(g.c.pol.MaxConstAlloc)
	inner := g.typeElems(n.Elt, 0)
	if inner > limit {
		return // reported where the element type crosses the limit
	}
	n0, ok := g.constSize(n.Len)
	if !ok || n0*inner <= limit {
		return
	}
	detail := fmt.Sprintf("array length %s is over the limit of %d", formatSize(n0), g.c.pol.MaxConstAlloc)
	if inner > 1 {
		detail = fmt.Sprintf("array of %s elements of %s each (%s in all) is over the limit of %d",
			formatSize(n0), formatSize(inner), formatSize(n0*inner), g.c.pol.MaxConstAlloc)
	}
	g.c.report(g.off(n.Len.Pos()), AllocSize, detail)
}

// literalIndexes checks the explicit indexes of slice and array literals: []T{1 << 40: x}
// allocates 1<<40 elements.
func (g *goChecker) literalIndexes(n *ast.CompositeLit) {
	at, ok := n.Type.(*ast.ArrayType)
	if !ok {
		return
	}
	per := g.typeElems(at.Elt, 0)
	for _, elt := range n.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			g.allocSize(kv.Key, per, "literal index")
		}
	}
}

// constStrings reports constant declarations whose string value would be over the allocation
// limit: a string constant doubles in one line (const s1 = s0 + s0), and compilers and type
// checkers fold constants in memory (2^70 bytes from seventy lines).
func (g *goChecker) constStrings() {
	for _, decls := range g.ev.decls {
		for _, d := range decls {
			v, ok := g.ev.declValue(d)
			if ok && v.num == nil && v.str > float64(g.c.pol.MaxConstAlloc) {
				g.c.report(g.off(d.expr.Pos()), AllocSize, fmt.Sprintf("constant string of %s bytes is over the limit of %d", formatSize(v.str), g.c.pol.MaxConstAlloc))
			}
		}
	}
}

func formatSize(v float64) string {
	if v >= 1e15 || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
