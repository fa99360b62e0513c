package golang

import (
	"go/ast"
	"go/types"
)

// yaegi passes a value held in an interface type the cell declared (type Shape interface{
// String() string }) to compiled code without its methods, so fmt would print its fields. The
// values a printing call gets in such types (or in slices and arrays of them) are boxed: the box
// calls the method through the interface, which works, and fmt formats the box by Go's rules.

type boxKind uint8

const (
	noBox   boxKind = iota
	boxOne          // the value is in an interpreted interface type
	boxEach         // the value is a slice or array of such
)

// boxing is what a printing call's argument needs.
type boxing struct {
	kind  boxKind
	isErr bool // the method is Error (else String)
}

// boxes decides, before the arguments are rewritten, which value arguments of a printing call
// (from index from on) need boxing.
func (d *desugarer) boxes(x *ast.CallExpr, from int) []boxing {
	if x.Ellipsis.IsValid() {
		return nil
	}
	out := make([]boxing, len(x.Args))
	for i := from; i < len(x.Args); i++ {
		a := x.Args[i]
		if !pure(a) {
			continue
		}
		t := d.typeOf(a)
		if isErr, ok := interpretedIface(t); ok {
			out[i] = boxing{boxOne, isErr}
			continue
		}
		var elem types.Type
		switch u := types.Unalias(t).(type) {
		case *types.Slice:
			elem = u.Elem()
		case *types.Array:
			elem = u.Elem()
		}
		if isErr, ok := interpretedIface(elem); elem != nil && ok {
			out[i] = boxing{boxEach, isErr}
		}
	}
	return out
}

// interpretedIface reports whether t is an interface type declared by a cell with an Error or a
// String method (isErr: Error, which fmt prefers).
func interpretedIface(t types.Type) (isErr, ok bool) {
	n, isNamed := types.Unalias(t).(*types.Named)
	if !isNamed || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return false, false
	}
	it, isIface := n.Underlying().(*types.Interface)
	if !isIface {
		return false, false
	}
	hasString := false
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		sig := m.Type().(*types.Signature)
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			continue
		}
		switch m.Name() {
		case "Error":
			return true, true
		case "String":
			hasString = true
		}
	}
	return false, hasString
}

// boxArg wraps argument a as b says.
func (d *desugarer) boxArg(a ast.Expr, b boxing) ast.Expr {
	switch b.kind {
	case boxOne:
		return boxIface(a, b.isErr)
	case boxEach:
		return boxElems(a, b.isErr, d.temp("i"))
	}
	return a
}

// boxIface is _boxIface(a, func() string { return a.String() }, false) (or Error, true).
func boxIface(a ast.Expr, isErr bool) ast.Expr {
	method, flag := "String", "false"
	if isErr {
		method, flag = "Error", "true"
	}
	pos := a.Pos()
	str := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: ident("string", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
			&ast.CallExpr{Fun: &ast.SelectorExpr{X: copyExpr(a), Sel: ident(method, pos)}, Lparen: pos, Rparen: pos}}}}, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: ident("_boxIface", pos), Lparen: pos, Args: []ast.Expr{a, str, ident(flag, pos)}, Rparen: a.End()}
}

// boxElems is _boxEach(len(a), func(i int) any { return <boxIface(a[i])> }): a []any of boxes,
// which fmt prints as it would print the slice.
func boxElems(a ast.Expr, isErr bool, i string) ast.Expr {
	pos := a.Pos()
	elem := &ast.IndexExpr{X: copyExpr(a), Lbrack: pos, Index: ident(i, pos), Rbrack: pos}
	f := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{ident(i, pos)}, Type: ident("int", pos)}}},
			Results: &ast.FieldList{List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{boxIface(elem, isErr)}}}, Rbrace: pos},
	}
	n := &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{a}, Rparen: pos}
	return &ast.CallExpr{Fun: ident("_boxEach", pos), Lparen: pos, Args: []ast.Expr{n, f}, Rparen: a.End()}
}

// pure reports expressions that can be evaluated twice: names, and index and field reads of
// them.
func pure(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return true
	case *ast.IndexExpr:
		_, lit := x.Index.(*ast.BasicLit)
		return pure(x.X) && (pure(x.Index) || lit)
	case *ast.SelectorExpr:
		return pure(x.X)
	case *ast.ParenExpr:
		return pure(x.X)
	}
	return false
}

func copyExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Ident:
		c := *x
		return &c
	case *ast.IndexExpr:
		return &ast.IndexExpr{X: copyExpr(x.X), Lbrack: x.Lbrack, Index: copyExpr(x.Index), Rbrack: x.Rbrack}
	case *ast.SelectorExpr:
		return &ast.SelectorExpr{X: copyExpr(x.X), Sel: copyExpr(x.Sel).(*ast.Ident)}
	case *ast.ParenExpr:
		return &ast.ParenExpr{Lparen: x.Lparen, X: copyExpr(x.X), Rparen: x.Rparen}
	case *ast.BasicLit:
		c := *x
		return &c
	}
	return e
}
