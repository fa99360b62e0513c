package typecheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// TypeExpr returns a type expression for t that denotes t at position at of the cell, when the
// cell is run: every name in it resolves there to the same object (a package name to a package
// the cell's file imports, a type of a package to a symbol the interpreter has), or nil when t
// cannot be written there. Every node of the expression is at position at, which keeps it in the
// cell's file (the interpreter resolves imports by a node's file).
func (c *Cell) TypeExpr(t types.Type, at token.Pos) ast.Expr {
	w := typeWriter{c: c, at: at, scope: c.scopeAt(at)}
	return w.expr(t, 0)
}

// scopeAt is the innermost scope of the cell at pos.
func (c *Cell) scopeAt(pos token.Pos) *types.Scope {
	if c.body != nil {
		if s := c.Info.Scopes[c.body.Type]; s != nil && s.Contains(pos) {
			return s.Innermost(pos)
		}
	}
	if s := c.pkg.Scope().Innermost(pos); s != nil {
		return s
	}
	return c.pkg.Scope()
}

type typeWriter struct {
	c     *Cell
	at    token.Pos
	scope *types.Scope
}

// maxWriteDepth bounds the recursion over a type (a type can be arbitrarily nested).
const maxWriteDepth = 64

func (w *typeWriter) ident(name string) *ast.Ident { return &ast.Ident{NamePos: w.at, Name: name} }

// resolves reports whether name, written at w.at, denotes obj.
func (w *typeWriter) resolves(name string, obj types.Object) bool {
	_, found := w.scope.LookupParent(name, w.at)
	return found == obj
}

func (w *typeWriter) expr(t types.Type, depth int) ast.Expr {
	if depth > maxWriteDepth {
		return nil
	}
	switch t := t.(type) {
	case *types.Basic:
		return w.basic(t)
	case *types.Alias:
		if w.resolves(t.Obj().Name(), t.Obj()) && t.TypeArgs().Len() == 0 {
			return w.ident(t.Obj().Name())
		}
		return w.expr(types.Unalias(t), depth+1)
	case *types.Named:
		return w.named(t, depth)
	case *types.TypeParam:
		if w.resolves(t.Obj().Name(), t.Obj()) {
			return w.ident(t.Obj().Name())
		}
	case *types.Pointer:
		return w.wrap(t.Elem(), depth, func(e ast.Expr) ast.Expr { return &ast.StarExpr{Star: w.at, X: e} })
	case *types.Slice:
		return w.wrap(t.Elem(), depth, func(e ast.Expr) ast.Expr { return &ast.ArrayType{Lbrack: w.at, Elt: e} })
	case *types.Array:
		n := &ast.BasicLit{ValuePos: w.at, Kind: token.INT, Value: strconv.FormatInt(t.Len(), 10)}
		return w.wrap(t.Elem(), depth, func(e ast.Expr) ast.Expr { return &ast.ArrayType{Lbrack: w.at, Len: n, Elt: e} })
	case *types.Map:
		k := w.expr(t.Key(), depth+1)
		if k == nil {
			return nil
		}
		return w.wrap(t.Elem(), depth, func(e ast.Expr) ast.Expr { return &ast.MapType{Map: w.at, Key: k, Value: e} })
	case *types.Chan:
		dir := map[types.ChanDir]ast.ChanDir{types.SendRecv: ast.SEND | ast.RECV, types.SendOnly: ast.SEND, types.RecvOnly: ast.RECV}[t.Dir()]
		return w.wrap(t.Elem(), depth, func(e ast.Expr) ast.Expr { return &ast.ChanType{Begin: w.at, Arrow: w.at, Dir: dir, Value: e} })
	case *types.Signature:
		if ft := w.funcType(t, depth); ft != nil {
			return ft
		}
	case *types.Struct:
		return w.structType(t, depth)
	case *types.Interface:
		return w.interfaceType(t, depth)
	}
	return nil
}

func (w *typeWriter) wrap(elem types.Type, depth int, f func(ast.Expr) ast.Expr) ast.Expr {
	if e := w.expr(elem, depth+1); e != nil {
		return f(e)
	}
	return nil
}

func (w *typeWriter) basic(t *types.Basic) ast.Expr {
	if t.Info()&types.IsUntyped != 0 {
		t = types.Default(t).(*types.Basic)
		if t.Kind() == types.UntypedNil {
			return nil
		}
	}
	if t.Kind() == types.UnsafePointer || !w.resolves(t.Name(), types.Universe.Lookup(t.Name())) {
		return nil
	}
	return w.ident(t.Name())
}

// named writes a defined type: a universe type (error), a type of the cell's package, a local
// type in scope, a type of an imported package the interpreter has, or one of the prelude's
// names for the bridge's types.
func (w *typeWriter) named(t *types.Named, depth int) ast.Expr {
	obj := t.Obj()
	var x ast.Expr
	switch pkg := obj.Pkg(); {
	case pkg == nil || pkg.Path() == "main":
		if !w.resolves(obj.Name(), t.Origin().Obj()) {
			return nil
		}
		x = w.ident(obj.Name())
	case w.c.s.hidden[pkg.Path()]:
		return w.preludeAlias(t)
	default:
		name := w.pkgName(pkg.Path())
		if name == "" || !w.c.s.lib.Nameable(pkg.Path(), obj.Name()) {
			return nil
		}
		x = &ast.SelectorExpr{X: w.ident(name), Sel: w.ident(obj.Name())}
	}
	args := t.TypeArgs()
	if args.Len() == 0 {
		return x
	}
	list := make([]ast.Expr, args.Len())
	for i := range list {
		if list[i] = w.expr(args.At(i), depth+1); list[i] == nil {
			return nil
		}
	}
	return &ast.IndexListExpr{X: x, Lbrack: w.at, Indices: list, Rbrack: w.at}
}

// ImportName returns the name under which the cell's file imports package p when it runs, if
// that name is not shadowed at position at; "" otherwise.
func (c *Cell) ImportName(p string, at token.Pos) string {
	w := typeWriter{c: c, at: at, scope: c.scopeAt(at)}
	return w.pkgName(p)
}

// Import adds an import of allowed package p for the engine's own use to the unit (not to
// Added: the cell did not write it) and returns the name it binds: "_" and p's base name, which
// model code cannot write, so that the import never takes a name from the cell or its later
// cells. It returns "" when p is not allowed or the name is taken at position at.
func (c *Cell) Import(p string, at token.Pos) string {
	n := "_" + baseName(p)
	if c.named[n] == p {
		return n
	}
	if !c.s.allowed[p] || c.named[n] != "" {
		return ""
	}
	if _, obj := c.scopeAt(at).LookupParent(n, at); obj != nil {
		return ""
	}
	f := c.u.Decls
	spec := importSpec(n, p, f.Package)
	f.Decls = append([]ast.Decl{&ast.GenDecl{TokPos: f.Package, Tok: token.IMPORT, Specs: []ast.Spec{spec}}}, f.Decls...)
	f.Imports = append(f.Imports, spec)
	c.named[n] = p
	return n
}

// pkgName returns the name under which the cell's file imports package p at run time, when it
// is not shadowed at w.at; "" otherwise.
func (w *typeWriter) pkgName(p string) string {
	for _, n := range []string{baseName(p), ""} {
		for name, ip := range w.c.named {
			if ip != p || n != "" && name != n {
				continue
			}
			if _, obj := w.scope.LookupParent(name, w.at); obj == nil || isPkgName(obj, p) {
				return name
			}
		}
	}
	return ""
}

func isPkgName(obj types.Object, p string) bool {
	pn, ok := obj.(*types.PkgName)
	return ok && pn.Imported().Path() == p
}

// preludeAlias names a type of a package only the prelude imports by the prelude's alias for it.
func (w *typeWriter) preludeAlias(t *types.Named) ast.Expr {
	for name, obj := range w.c.s.objs {
		tn, ok := obj.(*types.TypeName)
		if ok && tn.IsAlias() && types.Identical(tn.Type(), t) && w.resolves(name, obj) {
			return w.ident(name)
		}
	}
	return nil
}

func (w *typeWriter) fields(tup *types.Tuple, variadic bool, depth int) *ast.FieldList {
	fl := &ast.FieldList{Opening: w.at, Closing: w.at}
	for i := 0; i < tup.Len(); i++ {
		v := tup.At(i)
		var te ast.Expr
		if variadic && i == tup.Len()-1 {
			s, ok := v.Type().(*types.Slice)
			if !ok {
				return nil
			}
			if e := w.expr(s.Elem(), depth+1); e != nil {
				te = &ast.Ellipsis{Ellipsis: w.at, Elt: e}
			}
		} else {
			te = w.expr(v.Type(), depth+1)
		}
		if te == nil {
			return nil
		}
		fl.List = append(fl.List, &ast.Field{Type: te})
	}
	return fl
}

func (w *typeWriter) funcType(t *types.Signature, depth int) *ast.FuncType {
	if t.TypeParams().Len() > 0 {
		return nil
	}
	params := w.fields(t.Params(), t.Variadic(), depth)
	results := w.fields(t.Results(), false, depth)
	if params == nil || results == nil {
		return nil
	}
	return &ast.FuncType{Func: w.at, Params: params, Results: results}
}

func (w *typeWriter) structType(t *types.Struct, depth int) ast.Expr {
	fl := &ast.FieldList{Opening: w.at, Closing: w.at}
	for i := 0; i < t.NumFields(); i++ {
		f := t.Field(i)
		if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
			return nil
		}
		te := w.expr(f.Type(), depth+1)
		if te == nil {
			return nil
		}
		field := &ast.Field{Type: te}
		if !f.Embedded() {
			field.Names = []*ast.Ident{w.ident(f.Name())}
		}
		if tag := t.Tag(i); tag != "" {
			field.Tag = &ast.BasicLit{ValuePos: w.at, Kind: token.STRING, Value: strconv.Quote(tag)}
		}
		fl.List = append(fl.List, field)
	}
	return &ast.StructType{Struct: w.at, Fields: fl}
}

// interfaceType writes an interface of methods only (type sets are constraints, which values
// never have).
func (w *typeWriter) interfaceType(t *types.Interface, depth int) ast.Expr {
	if !t.IsMethodSet() {
		return nil
	}
	fl := &ast.FieldList{Opening: w.at, Closing: w.at}
	for i := 0; i < t.NumExplicitMethods(); i++ {
		m := t.ExplicitMethod(i)
		if !m.Exported() && m.Pkg() != nil && m.Pkg().Path() != "main" {
			return nil
		}
		ft := w.funcType(m.Type().(*types.Signature), depth)
		if ft == nil {
			return nil
		}
		fl.List = append(fl.List, &ast.Field{Names: []*ast.Ident{w.ident(m.Name())}, Type: ft})
	}
	for i := 0; i < t.NumEmbeddeds(); i++ {
		e := w.expr(t.EmbeddedType(i), depth+1)
		if e == nil {
			return nil
		}
		fl.List = append(fl.List, &ast.Field{Type: e})
	}
	return &ast.InterfaceType{Interface: w.at, Methods: fl}
}
