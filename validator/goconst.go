package validator

import (
	"fmt"
	"go/ast"
	"go/token"
	"math"
	"strconv"
)

// constEnv maps constant names declared anywhere in the source to their expressions. Scopes are
// ignored on purpose: if any constant of that name is huge, a use of the name counts as huge.
type constEnv map[string][]ast.Expr

func collectConsts(u *GoUnit) constEnv {
	env := constEnv{}
	visit := func(n ast.Node) bool {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			return true
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					env[name.Name] = append(env[name.Name], vs.Values[i])
				}
			}
		}
		return true
	}
	ast.Inspect(u.Decls, visit)
	if u.Body != nil {
		ast.Inspect(u.Body, visit)
	}
	return env
}

// constStrings reports constant declarations whose string value would be over the allocation
// limit: a string constant doubles in one line (const s1 = s0 + s0), and compilers and type
// checkers fold constants in memory (2^70 bytes from seventy lines).
func (g *goChecker) constStrings() {
	lens := map[string]float64{}
	for _, vals := range g.consts {
		for _, v := range vals {
			if n := g.strLen(v, lens); n > float64(g.c.pol.MaxConstAlloc) {
				g.c.report(g.off(v.Pos()), AllocSize, fmt.Sprintf("constant string of %s bytes is over the limit of %d", formatSize(n), g.c.pol.MaxConstAlloc))
			}
		}
	}
}

// strLen estimates the length of a constant string expression (0 when it is not one); lens
// memoises the constants' lengths (-1 while one is being computed: a cycle).
func (g *goChecker) strLen(e ast.Expr, lens map[string]float64) float64 {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return float64(len(e.Value) - 2) // the quotes (escapes count as their spelling)
		}
	case *ast.ParenExpr:
		return g.strLen(e.X, lens)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return g.strLen(e.X, lens) + g.strLen(e.Y, lens)
		}
	case *ast.CallExpr: // a conversion, string(s)
		if len(e.Args) == 1 {
			return g.strLen(e.Args[0], lens)
		}
	case *ast.Ident:
		if n, ok := lens[e.Name]; ok {
			return max(n, 0)
		}
		lens[e.Name] = -1
		n := 0.0
		for _, v := range g.consts[e.Name] {
			n = max(n, g.strLen(v, lens))
		}
		lens[e.Name] = n
		return n
	}
	return 0
}

// knownConsts are package constants that allocation bombs reach for.
var knownConsts = map[string]float64{
	"math.MaxInt": math.MaxInt64, "math.MaxInt64": math.MaxInt64, "math.MaxUint": math.MaxUint64,
	"math.MaxUint64": math.MaxUint64, "math.MaxInt32": math.MaxInt32, "math.MaxUint32": math.MaxUint32,
	"math.MaxInt16": math.MaxInt16, "math.MaxUint16": math.MaxUint16, "math.MaxInt8": math.MaxInt8,
	"math.MaxUint8": math.MaxUint8, "math.MaxFloat64": math.MaxFloat64, "math.MaxFloat32": math.MaxFloat32,
}

// allocSize reports e when it is a constant larger than the allocation limit.
func (g *goChecker) allocSize(e ast.Expr, what string) {
	if e == nil {
		return
	}
	v, ok := g.constValue(e, 0)
	if ok && v > float64(g.c.pol.MaxConstAlloc) {
		g.c.report(g.off(e.Pos()), AllocSize, fmt.Sprintf("%s %s is over the limit of %d", what, formatSize(v), g.c.pol.MaxConstAlloc))
	}
}

// literalIndexes checks the explicit indexes of slice and array literals: []T{1 << 40: x}
// allocates 1<<40 elements.
func (g *goChecker) literalIndexes(n *ast.CompositeLit) {
	if _, ok := n.Type.(*ast.ArrayType); !ok {
		return
	}
	for _, elt := range n.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			g.allocSize(kv.Key, "literal index")
		}
	}
}

func formatSize(v float64) string {
	if v >= 1e15 || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// constValue evaluates a constant integer or float expression in float64, which is exact for every
// size that matters (below 2^53) and saturates to +Inf for the rest; it never builds big numbers.
func (g *goChecker) constValue(e ast.Expr, depth int) (float64, bool) {
	if depth > 32 {
		return 0, false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		return literalValue(e)
	case *ast.ParenExpr:
		return g.constValue(e.X, depth+1)
	case *ast.Ident:
		return g.namedConst(e.Name, depth)
	case *ast.SelectorExpr:
		v, ok := knownConsts[g.qualified(e)]
		return v, ok
	case *ast.CallExpr: // conversions such as int64(1e12)
		if id, ok := e.Fun.(*ast.Ident); ok && len(e.Args) == 1 && isNumericType(id.Name) {
			return g.constValue(e.Args[0], depth+1)
		}
	case *ast.UnaryExpr:
		v, ok := g.constValue(e.X, depth+1)
		if ok && e.Op == token.SUB {
			return -v, true
		}
		return v, ok && e.Op == token.ADD
	case *ast.BinaryExpr:
		x, ok1 := g.constValue(e.X, depth+1)
		y, ok2 := g.constValue(e.Y, depth+1)
		if ok1 && ok2 {
			return binaryValue(e.Op, x, y)
		}
	}
	return 0, false
}

func (g *goChecker) namedConst(name string, depth int) (float64, bool) {
	best, found := 0.0, false
	for _, e := range g.consts[name] {
		if v, ok := g.constValue(e, depth+1); ok && (!found || v > best) {
			best, found = v, true
		}
	}
	return best, found
}

func literalValue(l *ast.BasicLit) (float64, bool) {
	switch l.Kind {
	case token.INT:
		v, err := strconv.ParseInt(l.Value, 0, 64)
		if err != nil {
			return math.Inf(1), true // too large for int64: certainly over any limit
		}
		return float64(v), true
	case token.FLOAT:
		v, err := strconv.ParseFloat(l.Value, 64)
		return v, err == nil || math.IsInf(v, 1)
	}
	return 0, false
}

func binaryValue(op token.Token, x, y float64) (float64, bool) {
	switch op {
	case token.ADD:
		return x + y, true
	case token.SUB:
		return x - y, true
	case token.MUL:
		return x * y, true
	case token.QUO:
		if y == 0 {
			return 0, false
		}
		return math.Trunc(x / y), true
	case token.SHL:
		if y > 2048 {
			return math.Inf(1), x > 0
		}
		return x * math.Pow(2, y), y >= 0
	case token.SHR:
		return math.Floor(x / math.Pow(2, y)), y >= 0
	case token.OR, token.XOR:
		return x + y, x >= 0 && y >= 0 // x|y <= x+y: an upper bound is enough for "too large"
	}
	return 0, false
}

func isNumericType(name string) bool {
	switch name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
		"uintptr", "float32", "float64", "byte", "rune":
		return true
	}
	return false
}
