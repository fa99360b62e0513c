package desugar

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
	case *ast.ParenExpr:
		return isConstantLike(x.X)
	case *ast.UnaryExpr:
		_, lit := x.X.(*ast.BasicLit)
		return lit && (x.Op == token.SUB || x.Op == token.ADD)
	}
	return false
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
