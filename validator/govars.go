package validator

import (
	"go/ast"
	"go/constant"
	"go/token"
)

// isTrue reports whether a loop condition is absent or a constant that is true: true, a constant
// declared as true, a comparison of constants that holds, any constant boolean expression.
func (g *goChecker) isTrue(cond ast.Expr) bool {
	if cond == nil {
		return true
	}
	v, ok := g.strictEv.value(cond)
	return ok && v.num != nil && v.num.Kind() == constant.Bool && constant.BoolVal(v.num)
}

// hasGoExit reports whether a loop body contains a way out of the loop: a return, a panic, a
// break that targets this loop (unlabeled and not inside an inner loop, switch or select, or
// labeled with a label outside the body), or a goto or labeled continue to a label outside it.
func hasGoExit(body *ast.BlockStmt, own string) bool {
	inner := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			inner[l.Label.Name] = true
		}
		return true
	})
	return goExit(body, 0, own, inner)
}

func goExit(n ast.Node, depth int, own string, inner map[string]bool) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found || m == nil {
			return false
		}
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		case *ast.CallExpr:
			id, ok := ast.Unparen(m.Fun).(*ast.Ident)
			found = ok && id.Name == "panic"
		case *ast.BranchStmt:
			found = branchLeaves(m, depth, own, inner)
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if m != n {
				found = goExit(m, depth+1, own, inner)
				return false
			}
		}
		return !found
	})
	return found
}

func branchLeaves(b *ast.BranchStmt, depth int, own string, inner map[string]bool) bool {
	switch {
	case b.Label == nil:
		return b.Tok == token.BREAK && depth == 0
	case b.Tok == token.BREAK:
		return b.Label.Name == own || !inner[b.Label.Name]
	case b.Tok == token.GOTO:
		return !inner[b.Label.Name]
	case b.Tok == token.CONTINUE:
		return b.Label.Name != own && !inner[b.Label.Name]
	}
	return false
}

// gotoLoops reports "L: ...; goto L" in one statement list when everything from the label to the
// goto is straight-line code, so the goto always runs again.
func (g *goChecker) gotoLoops(list []ast.Stmt) {
	for i, s := range list {
		l, ok := s.(*ast.LabeledStmt)
		if !ok {
			continue
		}
		for j := i; j < len(list); j++ {
			st := list[j]
			if j == i {
				st = l.Stmt
			}
			if b, ok := st.(*ast.BranchStmt); ok && b.Tok == token.GOTO && b.Label.Name == l.Label.Name {
				g.c.report(g.off(b.Pos()), Hang, "goto "+b.Label.Name+" jumps back over straight-line code and loops forever")
				break
			}
			if !straightLine(st) {
				break
			}
		}
	}
}

func straightLine(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.AssignStmt, *ast.IncDecStmt, *ast.DeclStmt, *ast.EmptyStmt:
		return true
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		return !ok || id.Name != "panic"
	}
	return false
}
