package desugar

import (
	"go/ast"
	"go/token"
	"go/types"
)

// deferStmt evaluates a deferred call's arguments at the defer statement, as Go does: yaegi
// reads variables passed to a deferred call when the call runs.
func (d *Pass) deferStmt(s *ast.DeferStmt) ast.Stmt {
	s.Call = d.callStmt(s.Call)
	var temps []ast.Stmt
	for i, a := range s.Call.Args {
		if isConstantLike(a) {
			continue
		}
		if _, ok := a.(*ast.FuncLit); ok {
			continue
		}
		t := d.temp("d")
		temps = append(temps, define(t, a))
		s.Call.Args[i] = ident(t, a.Pos())
	}
	if len(temps) == 0 {
		return s
	}
	return &ast.BlockStmt{Lbrace: s.Pos(), List: append(temps, s), Rbrace: s.End()}
}

// topDefer turns a snippet's top-level `defer f(x)` (already given its argument temporaries)
// into _defer(func() { f(x) }): the engine runs these calls when the cell's statements are done.
// yaegi would keep a top-level deferred call in its global frame and run it again after every
// later cell.
func topDefer(s ast.Stmt) ast.Stmt {
	conv := func(ds *ast.DeferStmt) ast.Stmt {
		pos := ds.Pos()
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: ds.Call}}, Rbrace: ds.End()}}
		return &ast.ExprStmt{X: callOf("_defer", lit)}
	}
	switch x := s.(type) {
	case *ast.DeferStmt:
		return conv(x)
	case *ast.BlockStmt:
		if ds, ok := x.List[len(x.List)-1].(*ast.DeferStmt); ok {
			x.List[len(x.List)-1] = conv(ds)
		}
	}
	return s
}

// callStmt rewrites the call of a go or defer statement, keeping it a call.
func (d *Pass) callStmt(c *ast.CallExpr) *ast.CallExpr {
	if r, ok := d.expr(c).(*ast.CallExpr); ok {
		return r
	}
	return c
}

// forStmt walks a three-clause loop. When its body captures the loop variables in a closure
// (and does not assign them), the header gets renamed variables and the body a fresh copy per
// iteration.
func (d *Pass) forStmt(s *ast.ForStmt, label *ast.LabeledStmt) ast.Stmt {
	s.Init = d.optStmt(s.Init)
	if s.Cond != nil {
		s.Cond = d.expr(s.Cond)
	}
	s.Post = d.optStmt(s.Post)
	d.block(s.Body)
	if init, ok := s.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE && captures(s.Body) {
		names := identNames(init.Lhs)
		if len(names) > 0 && !assigns(s.Body, names) {
			ren := map[string]string{}
			var copies []ast.Stmt
			for _, n := range names {
				ren[n] = d.temp("l")
				copies = append(copies, define(n, ident(ren[n], s.Body.Lbrace)))
			}
			renameIdents(s.Init, ren)
			renameIdents(s.Cond, ren)
			renameIdents(s.Post, ren)
			s.Body.List = append(copies, s.Body.List...)
		}
	}
	return relabel(label, s)
}

// rangeStmt walks a range loop, rewriting ranges over integers and iterator functions.
func (d *Pass) rangeStmt(s *ast.RangeStmt, label *ast.LabeledStmt) ast.Stmt {
	t := d.typeOf(s.X)
	s.X = d.expr(s.X)
	if t != nil {
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger != 0 {
				return d.rangeInt(s, label)
			}
		case *types.Signature:
			return d.rangeFunc(s, label, u)
		}
	}
	d.block(s.Body)
	if s.Tok == token.DEFINE && captures(s.Body) {
		d.freshRangeVars(s)
	}
	return relabel(label, s)
}

// freshRangeVars renames a range loop's variables and defines the originals in the body, so each
// iteration has its own (yaegi shares one variable across iterations).
func (d *Pass) freshRangeVars(s *ast.RangeStmt) {
	var copies []ast.Stmt
	for _, e := range []*ast.Expr{&s.Key, &s.Value} {
		if id, ok := (*e).(*ast.Ident); ok && id.Name != "_" {
			t := d.temp("v")
			copies = append(copies, define(id.Name, ident(t, id.Pos())))
			*e = ident(t, id.Pos())
		}
	}
	s.Body.List = append(copies, s.Body.List...)
}

// rangeInt turns `for i := range n` into `{ _n := n; for _i := _n - _n; _i < _n; _i++ { i := _i; ... } }`.
func (d *Pass) rangeInt(s *ast.RangeStmt, label *ast.LabeledStmt) ast.Stmt {
	pos := s.For
	n, i := d.temp("n"), d.temp("i")
	d.block(s.Body)
	if s.Key != nil && !isBlank(s.Key) {
		s.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{s.Key}, TokPos: pos, Tok: s.Tok, Rhs: []ast.Expr{ident(i, pos)}}}, s.Body.List...)
	}
	loop := &ast.ForStmt{
		For:  pos,
		Init: define(i, &ast.BinaryExpr{X: ident(n, pos), OpPos: pos, Op: token.SUB, Y: ident(n, pos)}),
		Cond: &ast.BinaryExpr{X: ident(i, pos), OpPos: pos, Op: token.LSS, Y: ident(n, pos)},
		Post: &ast.IncDecStmt{X: ident(i, pos), TokPos: pos, Tok: token.INC},
		Body: s.Body,
	}
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{define(n, s.X), relabel(label, loop)}, Rbrace: s.End()}
}

// relabel puts a statement back under its label, if it had one.
func relabel(label *ast.LabeledStmt, s ast.Stmt) ast.Stmt {
	if label == nil {
		return s
	}
	label.Stmt = s
	return label
}
