package golang

import (
	"go/ast"
	"go/token"
)

// Nodes the pass creates carry the position of the construct they replace: yaegi resolves
// imports by the file of a node's position.

func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }

func define(name string, value ast.Expr) *ast.AssignStmt {
	return &ast.AssignStmt{Lhs: []ast.Expr{ident(name, value.Pos())}, TokPos: value.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{value}}
}

func callOf(fun string, arg ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: ident(fun, arg.Pos()), Lparen: arg.Pos(), Args: []ast.Expr{arg}, Rparen: arg.End()}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// isConstantLike reports expressions whose value cannot change between a defer and its call.
func isConstantLike(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return x.Name == "nil" || x.Name == "true" || x.Name == "false"
	}
	return constValue(e) != nil
}

func identNames(list []ast.Expr) []string {
	var names []string
	for _, e := range list {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	return names
}

// captures reports whether a loop body contains a closure or takes an address, the two ways a
// loop variable can outlive its iteration.
func captures(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			found = true
		case *ast.UnaryExpr:
			found = found || x.Op == token.AND
		}
		return !found
	})
	return found
}

// assigns reports whether n assigns to (or increments) any of the names.
func assigns(n ast.Node, names []string) bool {
	set := map[string]bool{}
	for _, s := range names {
		set[s] = true
	}
	hit := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && set[id.Name]
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					found = found || hit(l)
				}
			}
		case *ast.IncDecStmt:
			found = found || hit(x.X)
		case *ast.UnaryExpr:
			found = found || x.Op == token.AND && hit(x.X)
		}
		return !found
	})
	return found
}

// renameIdents renames identifiers in a loop header (which holds no declarations of its own
// besides the loop variables).
func renameIdents(n ast.Node, ren map[string]string) {
	if n == nil {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if r, ok := ren[x.Name]; ok {
				x.Name = r
			}
		case *ast.SelectorExpr:
			renameIdents(x.X, ren)
			return false
		case *ast.FuncLit:
			return false
		}
		return true
	})
}

// wrappable reports whether a top-level statement can run inside func() { ... }() unchanged:
// it declares nothing outside itself, and has no return, defer, goto, or break and continue
// to labels outside it.
func wrappable(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
		*ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
	default:
		return false
	}
	labels := map[string]bool{}
	ast.Inspect(s, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	ok := true
	ast.Inspect(s, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.DeferStmt:
			ok = false
		case *ast.BranchStmt:
			if x.Tok == token.GOTO || x.Label != nil && !labels[x.Label.Name] {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func wrapInFunc(s ast.Stmt) ast.Stmt {
	pos, end := s.Pos(), s.End()
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{s}, Rbrace: end},
	}
	return &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: end, Rparen: end}}
}

// rewriteGeneric works around yaegi's type inference, which assigns the types it finds in the
// arguments to the type parameters by position of occurrence: for
// func Map[T, U any](xs []T, f func(T) U) it sees T, T, U and binds U to T's type. The function
// gets one type parameter per occurrence (func Map[T, _t1, U any](xs []T, f func(_t1) U)); the
// body keeps using the originals, which get the same types. It returns, for each new type
// parameter, the index of the original one (for explicit instantiations); the identity when
// the function needs no change or has parameter types the rewrite does not handle.
func rewriteGeneric(fd *ast.FuncDecl, temp func(string) string) []int {
	tps := fd.Type.TypeParams
	index := map[string]int{}
	var names []string
	var constraints []ast.Expr
	for _, f := range tps.List {
		for _, n := range f.Names {
			index[n.Name] = len(constraints)
			names = append(names, n.Name)
			constraints = append(constraints, f.Type)
		}
	}
	identity := make([]int, len(names))
	for i := range identity {
		identity[i] = i
	}
	ungroup(fd.Type.Params)
	var occ []*ast.Ident
	for _, f := range fd.Type.Params.List {
		if !occurrences(f.Type, index, &occ) {
			return identity
		}
	}
	inOrder := len(occ) == len(names)
	for i, id := range occ {
		inOrder = inOrder && id.Name == names[i]
	}
	if inOrder {
		return identity
	}
	seen := map[string]bool{}
	var list []*ast.Field
	var mapping []int
	for _, id := range occ {
		orig := index[id.Name]
		if seen[id.Name] {
			id.Name = temp("t")
		}
		seen[id.Name] = true
		list = append(list, &ast.Field{Names: []*ast.Ident{ident(id.Name, id.Pos())}, Type: constraints[orig]})
		mapping = append(mapping, orig)
	}
	for i, name := range names { // parameters that occur nowhere: explicit instantiation only
		if !seen[name] {
			list = append(list, &ast.Field{Names: []*ast.Ident{ident(name, tps.Pos())}, Type: constraints[i]})
			mapping = append(mapping, i)
		}
	}
	tps.List = list
	return mapping
}

// ungroup splits parameter fields with several names (a, b T) into one field per name: yaegi
// matches arguments to fields, not to names, when it infers type arguments.
func ungroup(fl *ast.FieldList) {
	var out []*ast.Field
	for _, f := range fl.List {
		if len(f.Names) < 2 {
			out = append(out, f)
			continue
		}
		for i, n := range f.Names {
			t := f.Type
			if i > 0 {
				t = copyType(f.Type)
			}
			out = append(out, &ast.Field{Names: []*ast.Ident{n}, Type: t})
		}
	}
	fl.List = out
}

// occurrences appends the type-parameter identifiers of a parameter type in the order yaegi's
// inference visits them. It returns false for type shapes yaegi's inference does not follow the
// same way (arrays, named generic types, ...).
func occurrences(t ast.Expr, tp map[string]int, occ *[]*ast.Ident) bool {
	switch x := t.(type) {
	case *ast.Ident:
		if _, ok := tp[x.Name]; ok {
			*occ = append(*occ, x)
		}
		return true
	case *ast.SelectorExpr:
		return true
	case *ast.StarExpr:
		return occurrences(x.X, tp, occ)
	case *ast.ArrayType:
		return x.Len == nil && occurrences(x.Elt, tp, occ)
	case *ast.ChanType:
		return occurrences(x.Value, tp, occ)
	case *ast.MapType:
		return occurrences(x.Key, tp, occ) && occurrences(x.Value, tp, occ)
	case *ast.Ellipsis:
		return !mentions(x.Elt, tp)
	case *ast.FuncType:
		for _, fl := range []*ast.FieldList{x.Params, x.Results} {
			if fl == nil {
				continue
			}
			for _, f := range fl.List {
				for range max(1, len(f.Names)) {
					if !occurrences(f.Type, tp, occ) {
						return false
					}
				}
			}
		}
		return true
	}
	return !mentions(t, tp)
}

func mentions(t ast.Expr, tp map[string]int) bool {
	found := false
	ast.Inspect(t, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			_, hit := tp[id.Name]
			found = found || hit
		}
		return !found
	})
	return found
}

// copyType copies a type expression, so that renaming an identifier in one copy leaves the others.
func copyType(t ast.Expr) ast.Expr {
	switch x := t.(type) {
	case *ast.Ident:
		c := *x
		return &c
	case *ast.StarExpr:
		return &ast.StarExpr{Star: x.Star, X: copyType(x.X)}
	case *ast.ArrayType:
		return &ast.ArrayType{Lbrack: x.Lbrack, Len: x.Len, Elt: copyType(x.Elt)}
	case *ast.ChanType:
		return &ast.ChanType{Begin: x.Begin, Arrow: x.Arrow, Dir: x.Dir, Value: copyType(x.Value)}
	case *ast.MapType:
		return &ast.MapType{Map: x.Map, Key: copyType(x.Key), Value: copyType(x.Value)}
	case *ast.Ellipsis:
		return &ast.Ellipsis{Ellipsis: x.Ellipsis, Elt: copyType(x.Elt)}
	case *ast.FuncType:
		return &ast.FuncType{Func: x.Func, Params: copyFields(x.Params), Results: copyFields(x.Results)}
	}
	return t // shapes occurrences rejects anyway, or ones without type parameters
}

func copyFields(fl *ast.FieldList) *ast.FieldList {
	if fl == nil {
		return nil
	}
	out := &ast.FieldList{Opening: fl.Opening, Closing: fl.Closing}
	for _, f := range fl.List {
		out.List = append(out.List, &ast.Field{Names: f.Names, Type: copyType(f.Type)})
	}
	return out
}
