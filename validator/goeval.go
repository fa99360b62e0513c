package validator

import (
	"go/ast"
	"go/constant"
	"go/token"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// value evaluates e; ok is false when e is not a constant expression the evaluator knows, or is
// one Go would refuse (an overflow, a division by zero). It never panics.
func (e *constEval) value(x ast.Expr) (v cval, ok bool) {
	defer func() {
		if recover() != nil { // go/constant panics on operand kinds Go's type checker would refuse
			v, ok = cval{}, false
		}
	}()
	e.steps = 0
	return e.eval(x)
}

// declValue evaluates a declared constant, like value.
func (e *constEval) declValue(d *constDecl) (v cval, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = cval{}, false
		}
	}()
	e.steps = 0
	return e.decl(d)
}

func (e *constEval) eval(x ast.Expr) (cval, bool) {
	if e.steps++; e.steps > maxConstSteps {
		return cval{}, false
	}
	switch x := x.(type) {
	case *ast.BasicLit:
		return literal(x)
	case *ast.ParenExpr:
		return e.eval(x.X)
	case *ast.Ident:
		return e.ident(x.Name)
	case *ast.SelectorExpr:
		return pkgConstValue(e.pkg(x))
	case *ast.UnaryExpr:
		return e.unary(x)
	case *ast.BinaryExpr:
		return e.binary(x)
	case *ast.CallExpr:
		return e.call(x)
	}
	return cval{}, false
}

func literal(l *ast.BasicLit) (cval, bool) {
	if l.Kind == token.STRING {
		s, err := strconv.Unquote(l.Value)
		return cval{str: float64(len(s))}, err == nil
	}
	v := constant.MakeFromLiteral(l.Value, l.Kind, 0)
	return cval{num: v}, v.Kind() != constant.Unknown
}

// pkgConstValue is the value of an allowed package's constant ("path.Name").
func pkgConstValue(name string) (cval, bool) {
	c, ok := packageConsts[name]
	if !ok {
		return cval{}, false
	}
	if n, isStr := strings.CutPrefix(c.val, "len:"); isStr {
		l, err := strconv.Atoi(n)
		return cval{str: float64(l), typ: c.typ}, err == nil
	}
	kind := token.INT
	if strings.ContainsAny(c.val, ".eE") {
		kind = token.FLOAT
	}
	v := constant.MakeFromLiteral(c.val, kind, 0)
	return cval{num: v, typ: c.typ}, v.Kind() != constant.Unknown
}

func (e *constEval) ident(name string) (cval, bool) {
	switch name {
	case "true", "false":
		return cval{num: constant.MakeBool(name == "true")}, true
	case "iota":
		if e.iota != nil {
			return cval{num: constant.MakeInt64(*e.iota)}, true
		}
	}
	decls := e.decls[name]
	if len(decls) == 0 || e.strict && (len(decls) > 1 || e.other[name]) {
		return cval{}, false
	}
	best, found := cval{}, false
	for _, d := range decls {
		if v, ok := e.decl(d); ok && (!found || larger(v, best)) {
			best, found = v, true
		}
	}
	return best, found
}

// larger orders values of one name: numbers by value, strings by length.
func larger(a, b cval) bool {
	switch {
	case a.num == nil || b.num == nil:
		return a.num == nil && b.num == nil && a.str > b.str
	case a.num.Kind() == constant.Bool || b.num.Kind() == constant.Bool:
		return false
	}
	return constant.Compare(constant.Real(a.num), token.GTR, constant.Real(b.num))
}

// decl evaluates a declared constant once, with its own iota, converted to its written type.
func (e *constEval) decl(d *constDecl) (cval, bool) {
	m := e.memo[d]
	if m == nil {
		m = &constMemo{}
		e.memo[d] = m
	}
	if m.run { // computed, or a cycle (which Go refuses)
		return m.v, m.ok
	}
	m.run = true
	saved := e.iota
	e.iota = &d.iota
	v, ok := e.eval(d.expr)
	e.iota = saved
	if ok && d.typ != nil {
		v, ok = e.convert(d.typ, v)
	}
	m.v, m.ok = v, ok
	return v, ok
}

func (e *constEval) unary(x *ast.UnaryExpr) (cval, bool) {
	v, ok := e.eval(x.X)
	if !ok || v.num == nil {
		return cval{}, false
	}
	switch x.Op {
	case token.ADD, token.SUB:
		if !isNumeric(v.num) {
			return cval{}, false
		}
	case token.XOR:
		if v.num.Kind() != constant.Int {
			return cval{}, false
		}
	case token.NOT:
		if v.num.Kind() != constant.Bool {
			return cval{}, false
		}
	default:
		return cval{}, false
	}
	v.num = constant.UnaryOp(x.Op, v.num, unsignedBits(v.typ))
	return v, true
}

func (e *constEval) binary(x *ast.BinaryExpr) (cval, bool) {
	a, ok1 := e.eval(x.X)
	b, ok2 := e.eval(x.Y)
	if !ok1 || !ok2 {
		return cval{}, false
	}
	typ := a.typ
	if typ == "" {
		typ = b.typ
	}
	switch {
	case x.Op == token.SHL || x.Op == token.SHR:
		return shift(a, x.Op, b)
	case a.num == nil || b.num == nil: // strings: only + and the comparisons of lengths are known
		if x.Op == token.ADD && a.num == nil && b.num == nil {
			return cval{str: a.str + b.str, typ: typ}, true
		}
		return cval{}, false
	case x.Op == token.LAND || x.Op == token.LOR:
		if a.num.Kind() != constant.Bool || b.num.Kind() != constant.Bool {
			return cval{}, false
		}
		return cval{num: constant.BinaryOp(a.num, x.Op, b.num)}, true
	case isComparison(x.Op):
		return compare(a, x.Op, b)
	}
	return arith(a, x.Op, b, typ)
}

func arith(a cval, op token.Token, b cval, typ string) (cval, bool) {
	if !isNumeric(a.num) || !isNumeric(b.num) {
		return cval{}, false
	}
	x, y := a.num, b.num
	if isFloatType(typ) {
		x, y = constant.ToFloat(x), constant.ToFloat(y)
	}
	switch op {
	case token.QUO:
		if constant.Sign(y) == 0 {
			return cval{}, false
		}
		if x.Kind() == constant.Int && y.Kind() == constant.Int {
			op = token.QUO_ASSIGN // integer division, as Go does for integer constants
		}
	case token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
		if x.Kind() != constant.Int || y.Kind() != constant.Int || op == token.REM && constant.Sign(y) == 0 {
			return cval{}, false
		}
	case token.ADD, token.SUB, token.MUL:
	default:
		return cval{}, false
	}
	return bounded(cval{num: constant.BinaryOp(x, op, y), typ: typ})
}

// bounded refuses integers too large to be a valid Go constant.
func bounded(v cval) (cval, bool) {
	if v.num.Kind() == constant.Int && constant.BitLen(v.num) > maxConstBits {
		return cval{}, false
	}
	return v, v.num.Kind() != constant.Unknown
}

func shift(a cval, op token.Token, b cval) (cval, bool) {
	if a.num == nil || b.num == nil {
		return cval{}, false
	}
	x, s := constant.ToInt(a.num), constant.ToInt(b.num)
	n, exact := constant.Uint64Val(s)
	if x.Kind() != constant.Int || s.Kind() != constant.Int || !exact {
		return cval{}, false
	}
	if op == token.SHL && constant.Sign(x) != 0 && n > maxConstBits {
		return cval{}, false
	}
	if op == token.SHR && n > maxConstBits {
		n = maxConstBits + 1 // every bit shifted out
	}
	return bounded(cval{num: constant.Shift(x, op, uint(n)), typ: a.typ})
}

func compare(a cval, op token.Token, b cval) (cval, bool) {
	if a.num.Kind() == constant.Bool || b.num.Kind() == constant.Bool {
		if a.num.Kind() != b.num.Kind() || op != token.EQL && op != token.NEQ {
			return cval{}, false
		}
	} else if !isNumeric(a.num) || !isNumeric(b.num) ||
		(a.num.Kind() == constant.Complex || b.num.Kind() == constant.Complex) && op != token.EQL && op != token.NEQ {
		return cval{}, false
	}
	return cval{num: constant.MakeBool(constant.Compare(a.num, op, b.num))}, true
}

// call evaluates the builtins whose result is constant, and conversions.
func (e *constEval) call(c *ast.CallExpr) (cval, bool) {
	if c.Ellipsis.IsValid() {
		return cval{}, false
	}
	if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok && e.decls[id.Name] == nil && e.types[id.Name] == nil {
		switch id.Name {
		case "len":
			return e.length(c.Args)
		case "min", "max":
			return e.minMax(id.Name == "max", c.Args)
		case "real", "imag":
			return e.part(id.Name == "real", c.Args)
		case "complex":
			return e.complexOf(c.Args)
		}
	}
	if len(c.Args) != 1 {
		return cval{}, false
	}
	v, ok := e.eval(c.Args[0])
	if !ok {
		return cval{}, false
	}
	return e.convert(c.Fun, v)
}

func (e *constEval) length(args []ast.Expr) (cval, bool) {
	if len(args) != 1 {
		return cval{}, false
	}
	v, ok := e.eval(args[0])
	if !ok || v.num != nil {
		return cval{}, false
	}
	if v.str >= 1<<62 {
		return cval{}, false
	}
	return cval{num: constant.MakeInt64(int64(v.str)), typ: "int"}, true
}

// minMax evaluates min and max of constants: numbers by value, strings (by length) are unknown.
func (e *constEval) minMax(isMax bool, args []ast.Expr) (cval, bool) {
	op := token.LSS
	if isMax {
		op = token.GTR
	}
	var best cval
	for i, a := range args {
		v, ok := e.eval(a)
		if !ok || v.num == nil || !isNumeric(v.num) || v.num.Kind() == constant.Complex {
			return cval{}, false
		}
		if i == 0 || constant.Compare(v.num, op, best.num) {
			if v.typ == "" {
				v.typ = best.typ
			}
			best = v
		}
	}
	return best, len(args) > 0
}

func (e *constEval) part(isReal bool, args []ast.Expr) (cval, bool) {
	if len(args) != 1 {
		return cval{}, false
	}
	v, ok := e.eval(args[0])
	if !ok || v.num == nil || !isNumeric(v.num) {
		return cval{}, false
	}
	if isReal {
		return cval{num: constant.Real(v.num)}, true
	}
	return cval{num: constant.Imag(v.num)}, true
}

func (e *constEval) complexOf(args []ast.Expr) (cval, bool) {
	if len(args) != 2 {
		return cval{}, false
	}
	re, ok1 := e.eval(args[0])
	im, ok2 := e.eval(args[1])
	if !ok1 || !ok2 || re.num == nil || im.num == nil || !isNumeric(re.num) || !isNumeric(im.num) {
		return cval{}, false
	}
	i := constant.MakeImag(constant.MakeInt64(1))
	return cval{num: constant.BinaryOp(re.num, token.ADD, constant.BinaryOp(im.num, token.MUL, i))}, true
}

// convert applies a conversion to a basic type, or to a named type whose underlying type is
// basic (declared in the cell or by an allowed package). A name the cell declares as several
// types converts to each, and the largest result counts.
func (e *constEval) convert(t ast.Expr, v cval) (cval, bool) {
	best, found := cval{}, false
	for _, basic := range e.basicsOf(t, 0) {
		r, ok := convertTo(basic, v)
		if ok && (!found || larger(r, best) || r.num != nil && best.num == nil) { // a size over a string
			best, found = r, true
		}
	}
	return best, found
}

// convertTo converts v to a basic type.
func convertTo(basic string, v cval) (cval, bool) {
	switch {
	case basic == "":
		return cval{}, false
	case basic == "string":
		if v.num == nil {
			return cval{str: v.str, typ: basic}, true
		}
		r, ok := constant.Int64Val(constant.ToInt(v.num))
		if !ok || r < 0 || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
			r = utf8.RuneError
		}
		return cval{str: float64(utf8.RuneLen(rune(r))), typ: basic}, true
	case v.num == nil:
		return cval{}, false
	case basic == "bool":
		return cval{num: v.num, typ: basic}, v.num.Kind() == constant.Bool
	case isFloatType(basic):
		v.num = constant.ToFloat(v.num)
	case strings.HasPrefix(basic, "complex"):
		v.num = constant.ToComplex(v.num)
	default: // integers: the value must be integral
		v.num = constant.ToInt(v.num)
		if v.num.Kind() == constant.Int && unsignedBits(basic) > 0 && constant.Sign(v.num) < 0 {
			return cval{}, false
		}
	}
	v.typ = basic
	return v, v.num.Kind() != constant.Unknown
}

// basicsOf returns the basic types a type expression may denote: one, or one for each of the
// cell's declarations of a name, or none.
func (e *constEval) basicsOf(t ast.Expr, depth int) []string {
	if depth > 32 {
		return nil
	}
	switch t := t.(type) {
	case *ast.ParenExpr:
		return e.basicsOf(t.X, depth+1)
	case *ast.SelectorExpr:
		if b := packageBasics[e.pkg(t)]; b != "" {
			return []string{b}
		}
	case *ast.Ident:
		if defs, ok := e.types[t.Name]; ok {
			var out []string
			for _, def := range defs {
				out = append(out, e.basicsOf(def, depth+1)...)
			}
			return out
		}
		if isBasicType(t.Name) {
			return []string{strings.NewReplacer("byte", "uint8", "rune", "int32").Replace(t.Name)}
		}
	}
	return nil
}

func isBasicType(name string) bool {
	switch name {
	case "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
		"uint32", "uint64", "uintptr", "float32", "float64", "complex64", "complex128", "byte", "rune":
		return true
	}
	return false
}

func isFloatType(t string) bool { return t == "float32" || t == "float64" }

// unsignedBits is the width of an unsigned type (what ^ complements within), else 0.
func unsignedBits(t string) uint {
	switch t {
	case "uint8":
		return 8
	case "uint16":
		return 16
	case "uint32":
		return 32
	case "uint", "uint64", "uintptr":
		return 64
	}
	return 0
}

func isNumeric(v constant.Value) bool {
	switch v.Kind() {
	case constant.Int, constant.Float, constant.Complex:
		return true
	}
	return false
}

func isComparison(op token.Token) bool {
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return true
	}
	return false
}

// size turns a constant into an allocation size: its real part, +Inf when it is too large for a
// float64; ok is false for non-numbers.
func (v cval) size() (float64, bool) {
	if v.num == nil || !isNumeric(v.num) {
		return 0, false
	}
	f, _ := constant.Float64Val(constant.Real(v.num))
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
