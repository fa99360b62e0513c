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
			if u.Info()&types.IsString != 0 {
				if st := d.rangeString(s, label, t); st != nil {
					return st
				}
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

// rangeString turns a range over a string into a loop that decodes the string as Go's range
// does (byte offsets, one U+FFFD per invalid byte) in linear time; yaegi's own range finds each
// byte offset by converting the runes before it back to a string, so a loop over n runes takes
// time n². `for i, r := range s { body }` becomes
//
//	{ _s := s; for _o, _w := 0, 0; _o < len(_s); _o += _w {
//	    _r := rune(_s[_o]); _w = 1
//	    if _r >= utf8.RuneSelf { _r, _w = utf8.DecodeRuneInString(_s[_o:]) }
//	    i, r := _o, _r; body } }
//
// continue advances (the loop's post statement), break, goto and labels are the loop's own, and
// each iteration has its own i and r. It returns nil, leaving the loop to yaegi, when the names
// it needs (utf8, string, rune) cannot be written at the loop.
func (d *Pass) rangeString(s *ast.RangeStmt, label *ast.LabeledStmt, t types.Type) ast.Stmt {
	pos := s.For
	utf8 := d.pkgName("unicode/utf8", pos)
	x := s.X
	if !types.Identical(t, types.Typ[types.String]) && !types.Identical(t, types.Typ[types.UntypedString]) {
		str := d.typeExpr(types.Typ[types.String], pos)
		if str == nil {
			return nil
		}
		x = &ast.CallExpr{Fun: str, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
	}
	runeType := d.typeExpr(types.Universe.Lookup("rune").Type(), pos)
	if utf8 == "" || runeType == nil {
		return nil
	}
	d.block(s.Body)
	str, off, w, r := d.temp("s"), d.temp("o"), d.temp("w"), d.temp("r")
	decode := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(utf8, pos), Sel: ident("DecodeRuneInString", pos)}, Lparen: pos,
		Args: []ast.Expr{&ast.SliceExpr{X: ident(str, pos), Lbrack: pos, Low: ident(off, pos), Rbrack: pos}}, Rparen: pos}
	head := []ast.Stmt{
		define(r, &ast.CallExpr{Fun: runeType, Lparen: pos, Args: []ast.Expr{
			&ast.IndexExpr{X: ident(str, pos), Lbrack: pos, Index: ident(off, pos), Rbrack: pos}}, Rparen: pos}),
		&ast.AssignStmt{Lhs: []ast.Expr{ident(w, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{intLit(1, pos)}},
		&ast.IfStmt{If: pos, Cond: &ast.BinaryExpr{X: ident(r, pos), OpPos: pos, Op: token.GEQ, Y: &ast.SelectorExpr{X: ident(utf8, pos), Sel: ident("RuneSelf", pos)}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{ident(r, pos), ident(w, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{decode}}}, Rbrace: pos}},
	}
	if vars := rangeVars(s, ident(off, pos), ident(r, pos)); vars != nil {
		head = append(head, vars)
	}
	s.Body.List = append(head, s.Body.List...)
	loop := &ast.ForStmt{
		For: pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{ident(off, pos), ident(w, pos)}, TokPos: pos, Tok: token.DEFINE,
			Rhs: []ast.Expr{intLit(0, pos), intLit(0, pos)}},
		Cond: &ast.BinaryExpr{X: ident(off, pos), OpPos: pos, Op: token.LSS, Y: callOf("len", ident(str, pos))},
		Post: &ast.AssignStmt{Lhs: []ast.Expr{ident(off, pos)}, TokPos: pos, Tok: token.ADD_ASSIGN, Rhs: []ast.Expr{ident(w, pos)}},
		Body: s.Body,
	}
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{define(str, x), relabel(label, loop)}, Rbrace: s.End()}
}

// rangeVars is the statement that gives a rewritten range loop's key and value (those that are
// not blank) their values for one iteration, as the loop declared or assigned them; nil if none.
func rangeVars(s *ast.RangeStmt, key, value ast.Expr) ast.Stmt {
	var lhs, rhs []ast.Expr
	for _, p := range [][2]ast.Expr{{s.Key, key}, {s.Value, value}} {
		if p[0] != nil && !isBlank(p[0]) {
			lhs, rhs = append(lhs, p[0]), append(rhs, p[1])
		}
	}
	if len(lhs) == 0 {
		return nil
	}
	return &ast.AssignStmt{Lhs: lhs, TokPos: s.For, Tok: s.Tok, Rhs: rhs}
}

// relabel puts a statement back under its label, if it had one.
func relabel(label *ast.LabeledStmt, s ast.Stmt) ast.Stmt {
	if label == nil {
		return s
	}
	label.Stmt = s
	return label
}
