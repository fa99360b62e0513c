package desugar

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

func (d *Pass) expr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Ident:
		return d.instantiate(x, x, 0)
	case *ast.CallExpr:
		return d.call(x)
	case *ast.FuncLit:
		sig, _ := d.typeOf(x).(*types.Signature)
		d.sigs = append(d.sigs, sig)
		d.stmtList(x.Body.List)
		d.sigs = d.sigs[:len(d.sigs)-1]
	case *ast.BinaryExpr:
		x.X, x.Y = d.expr(x.X), d.expr(x.Y)
	case *ast.UnaryExpr:
		x.X = d.expr(x.X)
	case *ast.ParenExpr:
		x.X = d.expr(x.X)
	case *ast.SelectorExpr:
		if d.info.Instances[x.Sel].TypeArgs != nil {
			return d.instantiate(x, x.Sel, 0)
		}
		x.X = d.expr(x.X)
	case *ast.IndexExpr:
		if id := funcIdent(x.X); id != nil && d.info.Instances[id].TypeArgs != nil {
			return d.instantiate(x, id, 1)
		}
		x.X, x.Index = d.expr(x.X), d.expr(x.Index)
	case *ast.IndexListExpr:
		if id := funcIdent(x.X); id != nil && d.info.Instances[id].TypeArgs != nil {
			return d.instantiate(x, id, len(x.Indices))
		}
		x.X = d.expr(x.X)
		d.exprs(x.Indices)
	case *ast.SliceExpr:
		x.X = d.expr(x.X)
		for _, p := range []*ast.Expr{&x.Low, &x.High, &x.Max} {
			if *p != nil {
				*p = d.expr(*p)
			}
		}
	case *ast.StarExpr:
		x.X = d.expr(x.X)
	case *ast.TypeAssertExpr:
		x.X = d.expr(x.X)
	case *ast.KeyValueExpr:
		x.Value = d.expr(x.Value)
	case *ast.CompositeLit:
		elem := ifaceElem(d.typeOf(x))
		for i, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				kv.Value = d.typedElem(kv.Value, d.toIface(kv.Value, elem))
			} else {
				x.Elts[i] = d.typedElem(el, d.toIface(el, elem))
			}
		}
	}
	return e
}

// ifaceElem returns the element type of a slice, array or map type when it is the empty
// interface (converting to another interface explicitly trips yaegi up).
func ifaceElem(t types.Type) types.Type {
	var elem types.Type
	switch u := types.Unalias(t).(type) {
	case nil:
		return nil
	default:
		switch c := u.Underlying().(type) {
		case *types.Slice:
			elem = c.Elem()
		case *types.Array:
			elem = c.Elem()
		case *types.Map:
			elem = c.Elem()
		}
	}
	if it, ok := elem.(*types.Interface); elem == nil || !ok && !isEmptyAlias(elem) || ok && !it.Empty() {
		return nil
	}
	return elem
}

// isEmptyAlias reports any (an alias of interface{}).
func isEmptyAlias(t types.Type) bool {
	it, ok := types.Unalias(t).(*types.Interface)
	return ok && it.Empty()
}

// toIface rewrites e, and converts it explicitly to the empty interface type iface (when not
// nil) if it is a value of a type the cell declared: yaegi stores such a value converted
// implicitly (in a composite literal, by append) so that fmt later prints it as yaegi's
// internals.
func (d *Pass) toIface(e ast.Expr, iface types.Type) ast.Expr {
	t := d.typeOf(e)
	r := d.expr(e)
	if iface == nil || t == nil || isInterface(t) || !declaredByCell(derefType(t)) {
		return r
	}
	te := d.typeExpr(iface, e.Pos())
	if te == nil {
		return r
	}
	return &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: e.Pos(), X: te, Rparen: e.Pos()}, Lparen: e.Pos(), Args: []ast.Expr{r}, Rparen: e.End()}
}

// typedElem converts r, the rewrite of a composite literal's element e, to e's type when e calls
// a generic function with more than one type argument: yaegi computes the type of an element
// statically, and takes F[A, B] there for a generic type ("not a generic type"). A conversion
// gives it the type at once.
func (d *Pass) typedElem(e, r ast.Expr) ast.Expr {
	call, ok := ast.Unparen(r).(*ast.CallExpr)
	if !ok {
		return r
	}
	if _, ok := ast.Unparen(call.Fun).(*ast.IndexListExpr); !ok {
		return r
	}
	te := d.typeExpr(d.typeOf(e), e.Pos())
	if te == nil {
		return r
	}
	return &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: e.Pos(), X: te, Rparen: e.Pos()}, Lparen: e.Pos(), Args: []ast.Expr{r}, Rparen: e.End()}
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// funcIdent returns the identifier naming a function in F or pkg.F, or nil.
func funcIdent(e ast.Expr) *ast.Ident {
	switch x := e.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// instantiate writes out every type argument of a generic function reference (F, pkg.F, or
// F[A] with `explicit` arguments written): F[A, B]. yaegi infers type arguments by position of
// occurrence, not at all from compiled functions or variadic parameters; given them all, it
// instantiates correctly. A reference whose type arguments cannot be written stays as it is.
func (d *Pass) instantiate(e ast.Expr, id *ast.Ident, explicit int) ast.Expr {
	inst, ok := d.info.Instances[id]
	if _, isFunc := d.info.Uses[id].(*types.Func); !ok || !isFunc || inst.TypeArgs.Len() <= explicit && explicit > 0 {
		return e
	}
	args := make([]ast.Expr, inst.TypeArgs.Len())
	for i := range args {
		if args[i] = d.typeExpr(inst.TypeArgs.At(i), id.Pos()); args[i] == nil {
			return e
		}
	}
	fun := ast.Expr(id)
	if sel, ok := e.(*ast.SelectorExpr); ok {
		fun = sel
	} else if ix, ok := e.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := e.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	if len(args) == 1 {
		// yaegi types F[A] as a function only as an index expression: as an index list it
		// takes it for a generic type ("not a generic type") where it computes the type of a
		// call statically, as in a composite literal's elements.
		return &ast.IndexExpr{X: fun, Lbrack: id.End(), Index: args[0], Rbrack: id.End()}
	}
	return &ast.IndexListExpr{X: fun, Lbrack: id.End(), Indices: args, Rbrack: id.End()}
}

// fmtBoxFrom gives, for fmt's printing functions, the index of the first value argument.
var fmtBoxFrom = map[string]int{
	"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0,
	"Printf": 1, "Sprintf": 1, "Errorf": 1, "Fprint": 1, "Fprintln": 1, "Append": 1, "Appendln": 1,
	"Fprintf": 2, "Appendf": 2,
}

// callee is the object a call's function expression names (a builtin, a function), or nil.
func (d *Pass) callee(fun ast.Expr) types.Object {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return d.info.Uses[f]
	case *ast.SelectorExpr:
		return d.info.Uses[f.Sel]
	}
	return nil
}

func (d *Pass) call(x *ast.CallExpr) ast.Expr {
	var boxes []argBox
	obj := d.callee(x.Fun)
	switch obj := obj.(type) {
	case *types.Builtin:
		switch obj.Name() {
		case "min", "max":
			if lit := d.constant(x); lit != nil {
				return lit
			}
		}
	case *types.Func:
		d.runePredArgs(x, obj)
		if obj == d.preludeObj("print") {
			d.unconvert(x.Args)
			boxes = d.boxes(x, 0, false)
		} else if from, ok := fmtBoxFrom[obj.Name()]; ok && pkgPath(obj) == "fmt" {
			if obj.Name() != "Errorf" {
				d.unconvert(x.Args[min(from, len(x.Args)):])
			}
			boxes = d.boxes(x, from, obj.Name() == "Errorf")
		}
	}
	x.Fun = d.expr(x.Fun)
	if b, ok := obj.(*types.Builtin); ok && b.Name() == "append" && len(x.Args) > 1 && !x.Ellipsis.IsValid() {
		elem := ifaceElem(d.typeOf(x.Args[0]))
		x.Args[0] = d.expr(x.Args[0])
		for i := 1; i < len(x.Args); i++ {
			x.Args[i] = d.toIface(x.Args[i], elem)
		}
	} else {
		d.exprs(x.Args)
	}
	for i, b := range boxes {
		x.Args[i] = d.boxArg(x.Args[i], b)
	}
	switch obj := obj.(type) {
	case *types.Builtin:
		switch obj.Name() {
		case "min", "max":
			return d.minMax(x, "_"+obj.Name())
		case "clear":
			x.Fun = ident("_clear", x.Fun.Pos())
		}
	case *types.Func:
		switch {
		case obj == d.preludeObj("print"):
			d.printCall(x)
		case pkgPath(obj) == "errors" && (obj.Name() == "As" || obj.Name() == "Is"):
			x.Fun = ident("_errors"+obj.Name(), x.Fun.Pos())
		}
	}
	return x
}

// printCall makes a call of the API's print a call of fmt.Println, which writes to the same
// output with the same formatting: yaegi gives values of the cell's types with String and Error
// methods their methods only when they are passed to fmt's functions directly. The cell's file
// gets a hidden import of fmt when it has none (see pkgName); when that cannot be, the call stays
// a call of print.
func (d *Pass) printCall(x *ast.CallExpr) {
	pos := x.Fun.Pos()
	if name := d.pkgName("fmt", pos); name != "" {
		x.Fun = &ast.SelectorExpr{X: ident(name, pos), Sel: ident("Println", pos)}
	}
}

// unconvert replaces arguments that convert a value of a type the cell declared to an interface
// (error(&myErr{}), any(v)) by the value: printed, it is the same, and yaegi fails on such a
// conversion passed on to compiled code.
func (d *Pass) unconvert(args []ast.Expr) {
	for i, a := range args {
		if inner := d.ifaceConversion(a); inner != nil {
			args[i] = inner
		}
	}
}

// ifaceConversion returns v when e is I(v), I an interface type and v of a type (or a pointer
// to a type) the cell declared; nil otherwise.
func (d *Pass) ifaceConversion(e ast.Expr) ast.Expr {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(c.Args) != 1 || !d.info.Types[c.Fun].IsType() || !isInterface(d.info.Types[c.Fun].Type) {
		return nil
	}
	if t := d.typeOf(c.Args[0]); t == nil || isInterface(t) || !declaredByCell(derefType(t)) {
		return nil
	}
	return c.Args[0]
}

func pkgPath(obj types.Object) string {
	if obj.Pkg() == nil {
		return ""
	}
	return obj.Pkg().Path()
}

// constant returns the literal of a constant call (min and max of constants), or nil.
func (d *Pass) constant(x *ast.CallExpr) ast.Expr {
	tv := d.info.Types[x]
	if tv.Value == nil {
		return nil
	}
	pos := x.Pos()
	var lit *ast.BasicLit
	switch v := tv.Value; v.Kind() {
	case constant.Int:
		lit = &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: v.ExactString()}
	case constant.Float:
		f, _ := constant.Float64Val(v)
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		lit = &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: s}
	case constant.String:
		lit = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(v))}
	default:
		return nil
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return lit
	}
	te := d.typeExpr(tv.Type, pos)
	if te == nil {
		return nil
	}
	return &ast.CallExpr{Fun: te, Lparen: pos, Args: []ast.Expr{lit}, Rparen: x.End()}
}

// minMax calls the prelude's generic helper, instantiated with the call's type; when that type
// cannot be written, with a non-constant argument first so that yaegi's inference picks it.
func (d *Pass) minMax(x *ast.CallExpr, helper string) ast.Expr {
	pos := x.Fun.Pos()
	if te := d.typeExpr(d.typeOf(x), pos); te != nil {
		x.Fun = &ast.IndexExpr{X: ident(helper, pos), Lbrack: pos, Index: te, Rbrack: pos}
		return x
	}
	for i, a := range x.Args {
		if d.info.Types[a].Value == nil {
			x.Args[0], x.Args[i] = x.Args[i], x.Args[0]
			break
		}
	}
	x.Fun = ident(helper, pos)
	return x
}
