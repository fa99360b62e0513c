package desugar

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// yaegi gives a value of a type the cell declared its String and Error methods, when it passes
// it to compiled code, only if the value is an argument of fmt's printing functions and its
// static type is that type (yaegi wraps it then). Held in an interface, or in a slice or a map,
// the value reaches fmt as a bare struct and prints as its fields, or as yaegi's internals.
// The arguments of a printing call (print is one, see printCall) that may hold such values are
// therefore boxed by generic prelude helpers:
//
//	_boxV[T](v, m)          a value in an interface type
//	_boxSlice[T](s, m)      a slice of such values, or of the cell's types: a []any of boxes
//	_boxMap[K, V](x, m)     a map of them: a map[K]any of boxes
//
// where m, written here from the types, returns for a value the method fmt would call (Error
// before String) as a closure, and which: a direct call when the static type has the method, or
// a type switch over the cell's types that have it (yaegi cannot assert an interpreted value to
// an interface it did not declare). fmt formats a box by Go's rules (see box in shims.go), so
// the output is fmt's. A format with %T is left alone (the box's type would show).

// methodKind is which method a box calls.
type methodKind int

const (
	noMethod methodKind = iota
	stringMethod
	errorMethod
)

// printMethod is the method fmt calls on values of type t, if t has one.
func printMethod(t types.Type) methodKind {
	ms := types.NewMethodSet(t)
	for _, m := range []struct {
		name string
		kind methodKind
	}{{"Error", errorMethod}, {"String", stringMethod}} {
		sel := ms.Lookup(nil, m.name)
		if sel == nil {
			continue
		}
		sig := sel.Type().(*types.Signature)
		if sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			return m.kind
		}
	}
	return noMethod
}

// boxer builds the boxing of one printing call's arguments.
type argBox struct {
	helper string     // _boxV, _boxSlice or _boxMap; "" for none
	t      types.Type // the argument's static type
	elem   types.Type // the type of the values boxed
}

// boxes decides, before the arguments are rewritten, which value arguments of a printing call
// (from index from on) need boxing. For fmt.Errorf only values in interfaces the cell declared
// are boxed: %w must wrap an error as it is.
func (d *Pass) boxes(x *ast.CallExpr, from int, errorf bool) []argBox {
	if x.Ellipsis.IsValid() {
		return nil
	}
	var typeVerbs map[int]bool
	if from > 0 {
		var ok bool
		if typeVerbs, ok = formatTypeArgs(d.info.Types[x.Args[from-1]].Value); !ok {
			return nil
		}
	}
	out := make([]argBox, len(x.Args))
	for i := from; i < len(x.Args); i++ {
		t := d.typeOf(x.Args[i])
		if t == nil || typeVerbs[i-from] {
			continue
		}
		if errorf && !(isInterface(t) && declaredByCell(t)) {
			continue
		}
		out[i].t = t
		switch u := t.Underlying().(type) {
		case *types.Interface:
			out[i].helper, out[i].elem = "_boxV", t
		case *types.Slice:
			if mayPrintByMethod(u.Elem()) {
				out[i].helper, out[i].elem = "_boxSlice", u.Elem()
			}
		case *types.Map:
			if mayPrintByMethod(u.Elem()) {
				out[i].helper, out[i].elem = "_boxMap", u.Elem()
			}
		}
	}
	return out
}

// formatTypeArgs returns the indexes of the arguments a format prints with %T (a box would show
// its own type there); false when it cannot tell (explicit argument indexes, * widths). A
// format that is not a constant prints no %T it can see, and the boxes stay.
func formatTypeArgs(format constant.Value) (map[int]bool, bool) {
	if format == nil || format.Kind() != constant.String {
		return nil, true
	}
	f := constant.StringVal(format)
	out := map[int]bool{}
	arg := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("+-# 0123456789.", f[i]) >= 0 {
			i++
		}
		switch {
		case i >= len(f):
		case f[i] == '[' || f[i] == '*':
			return nil, false
		case f[i] == '%':
		default:
			out[arg] = f[i] == 'T'
			arg++
		}
	}
	return out, true
}

func isInterface(t types.Type) bool {
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

// declaredByCell reports a defined type of the cells (package main).
func declaredByCell(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main"
}

// mayPrintByMethod reports element types whose values may print through a method yaegi loses:
// interfaces, and the cell's types (or pointers to them) with Error or String.
func mayPrintByMethod(t types.Type) bool {
	if isInterface(t) {
		return true
	}
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	return declaredByCell(base) && printMethod(t) != noMethod
}

// boxArg wraps argument a as b says; it leaves a alone when nothing can print through a method
// or the types cannot be written.
func (d *Pass) boxArg(a ast.Expr, b argBox) ast.Expr {
	if b.helper == "" {
		return a
	}
	pos := a.Pos()
	m := d.methodFunc(b.elem, pos)
	if m == nil {
		return a
	}
	var targs []ast.Expr
	if b.helper == "_boxMap" {
		targs = append(targs, d.typeExpr(b.t.Underlying().(*types.Map).Key(), pos))
	}
	targs = append(targs, d.typeExpr(b.elem, pos))
	for _, t := range targs {
		if t == nil {
			return a
		}
	}
	fun := &ast.IndexListExpr{X: ident(b.helper, pos), Lbrack: pos, Indices: targs, Rbrack: pos}
	return &ast.CallExpr{Fun: fun, Lparen: pos, Args: []ast.Expr{a, m}, Rparen: a.End()}
}

// methodFunc writes func(x T) (func() string, int), which returns the method fmt would call on
// x and which (see methodKind; -1 for a nil interface, which fmt prints as <nil>), or nil when
// no value of type t can have one.
func (d *Pass) methodFunc(t types.Type, pos token.Pos) ast.Expr {
	te := d.typeExpr(t, pos)
	if te == nil {
		return nil
	}
	x := d.temp("x")
	var body []ast.Stmt
	if isInterface(t) { // a nil interface: -1, printed as <nil>
		body = append(body, &ast.IfStmt{If: pos, Cond: &ast.BinaryExpr{X: ident(x, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("nil", pos),
				&ast.UnaryExpr{OpPos: pos, Op: token.SUB, X: intLit(1, pos)}}}}, Rbrace: pos}})
	}
	if k := printMethod(t); k != noMethod {
		body = append(body, methodReturn(ident(x, pos), k, pos))
	} else if sw := d.methodSwitch(t, x, pos); sw != nil {
		body = append(body, sw)
	} else {
		return nil
	}
	body = append(body, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("nil", pos), intLit(0, pos)}})
	return &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params: &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{ident(x, pos)}, Type: te}}},
			Results: &ast.FieldList{List: []*ast.Field{
				{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: ident("string", pos)}}}}},
				{Type: ident("int", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos},
	}
}

// methodSwitch is `switch y := x.(type) { case T: return <y's method>; ... }` over the cell's
// types (and pointers to them) that implement interface t and have a print method; nil when
// there are none.
func (d *Pass) methodSwitch(t types.Type, x string, pos token.Pos) ast.Stmt {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok || d.tc == nil {
		return nil
	}
	y := d.temp("y")
	var clauses []ast.Stmt
	for _, tn := range d.tc.TypeNames() {
		for _, ct := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if isInterface(ct) || !types.Implements(ct, iface) {
				continue
			}
			k := printMethod(ct)
			te := d.typeExpr(ct, pos)
			if k == noMethod || te == nil {
				continue
			}
			clauses = append(clauses, &ast.CaseClause{Case: pos, List: []ast.Expr{te}, Colon: pos,
				Body: []ast.Stmt{methodReturn(ident(y, pos), k, pos)}})
		}
	}
	if len(clauses) == 0 {
		return nil
	}
	assign := &ast.AssignStmt{Lhs: []ast.Expr{ident(y, pos)}, TokPos: pos, Tok: token.DEFINE,
		Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(x, pos), Lparen: pos, Rparen: pos}}}
	return &ast.TypeSwitchStmt{Switch: pos, Assign: assign, Body: &ast.BlockStmt{Lbrace: pos, List: clauses, Rbrace: pos}}
}

// methodReturn is `return func() string { return v.M() }, k`.
func methodReturn(v ast.Expr, k methodKind, pos token.Pos) ast.Stmt {
	name := "String"
	if k == errorMethod {
		name = "Error"
	}
	call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: v, Sel: ident(name, pos)}, Lparen: pos, Rparen: pos}
	f := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: ident("string", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}}, Rbrace: pos},
	}
	return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{f, intLit(int(k), pos)}}
}

func intLit(n int, pos token.Pos) *ast.BasicLit {
	return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)}
}
