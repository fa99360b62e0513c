package desugar

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// yaegi v0.16.1 cannot range over a function ("nil type"). A range over an iterator
//
//	for k, v := range seq { body }
//
// becomes a call of the iterator with the body as its yield function:
//
//	seq(func(k K, v V) bool { body'; return true })
//
// where in body' a break of the loop is `return false`, a continue `return true`, and a return
// from the enclosing function records its results, stops the iteration and is repeated after
// the call. A jump out of the loop (a goto, a break or continue of an outer loop) records which
// one, stops the iteration and is made after the call. Each iteration has its own variables, as
// in Go 1.22. A body that defers a call, or whose types cannot be written there, ranges over the
// values collected first instead (an iterator that never ends then never ends).

// yieldSig returns the yield function's signature of an iterator type (func(yield func(...)
// bool)), or nil.
func yieldSig(sig *types.Signature) *types.Signature {
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil
	}
	ys, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || ys.Results().Len() != 1 || !types.Identical(ys.Results().At(0).Type(), types.Typ[types.Bool]) {
		return nil
	}
	return ys
}

func (d *Pass) rangeFunc(s *ast.RangeStmt, label *ast.LabeledStmt, sig *types.Signature) ast.Stmt {
	d.block(s.Body)
	ys := yieldSig(sig)
	if ys == nil {
		return relabel(label, s)
	}
	if st := d.rangeYield(s, label, ys); st != nil {
		return st
	}
	return d.rangeCollect(s, label, ys)
}

// exit is how a statement of a range-over-func body leaves the loop.
type exit uint8

const (
	exitNone     exit = iota
	exitBreak         // break of this loop
	exitContinue      // continue of this loop
	exitReturn        // return from the enclosing function
	exitJump          // goto, or break or continue of an outer loop
	exitDefer         // defer: not handled
)

// exits walks a loop body's statements (not into function literals), calling f on each
// statement that leaves the loop; f's result replaces it.
type exits struct {
	label string          // the loop's label, or ""
	inner map[string]bool // labels declared inside the body
	f     func(ast.Stmt, exit) ast.Stmt
}

func (w *exits) list(list []ast.Stmt, loops, breaks int) {
	for i, s := range list {
		list[i] = w.stmt(s, loops, breaks)
	}
}

func (w *exits) stmt(s ast.Stmt, loops, breaks int) ast.Stmt {
	switch s := s.(type) {
	case *ast.BranchStmt:
		if k := w.branch(s, loops, breaks); k != exitNone {
			return w.f(s, k)
		}
	case *ast.ReturnStmt:
		return w.f(s, exitReturn)
	case *ast.DeferStmt:
		return w.f(s, exitDefer)
	case *ast.BlockStmt:
		w.list(s.List, loops, breaks)
	case *ast.LabeledStmt:
		s.Stmt = w.stmt(s.Stmt, loops, breaks)
	case *ast.IfStmt:
		w.list(s.Body.List, loops, breaks)
		if s.Else != nil {
			s.Else = w.stmt(s.Else, loops, breaks)
		}
	case *ast.ForStmt:
		w.list(s.Body.List, loops+1, breaks+1)
	case *ast.RangeStmt:
		w.list(s.Body.List, loops+1, breaks+1)
	case *ast.SwitchStmt:
		w.clauses(s.Body, loops, breaks+1)
	case *ast.TypeSwitchStmt:
		w.clauses(s.Body, loops, breaks+1)
	case *ast.SelectStmt:
		w.clauses(s.Body, loops, breaks+1)
	}
	return s
}

func (w *exits) clauses(b *ast.BlockStmt, loops, breaks int) {
	for _, c := range b.List {
		switch c := c.(type) {
		case *ast.CaseClause:
			w.list(c.Body, loops, breaks)
		case *ast.CommClause:
			w.list(c.Body, loops, breaks)
		}
	}
}

func (w *exits) branch(b *ast.BranchStmt, loops, breaks int) exit {
	target := ""
	if b.Label != nil {
		target = b.Label.Name
	}
	switch {
	case b.Tok == token.FALLTHROUGH, target != "" && w.inner[target]:
		return exitNone
	case b.Tok == token.GOTO, target != "" && target != w.label:
		return exitJump
	case b.Tok == token.BREAK && (target != "" || breaks == 0):
		return exitBreak
	case b.Tok == token.CONTINUE && (target != "" || loops == 0):
		return exitContinue
	}
	return exitNone
}

// innerLabels returns the labels declared in a body, outside function literals.
func innerLabels(body *ast.BlockStmt) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			out[l.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	return out
}

// rangeYield is the call rewrite; nil when the body or the types do not allow it.
func (d *Pass) rangeYield(s *ast.RangeStmt, label *ast.LabeledStmt, ys *types.Signature) ast.Stmt {
	pos := s.For
	w := &exits{inner: innerLabels(s.Body)}
	if label != nil {
		w.label = label.Label.Name
	}
	ok, hasReturn, hasJump := true, false, false
	w.f = func(st ast.Stmt, k exit) ast.Stmt {
		ok = ok && k != exitDefer
		hasReturn = hasReturn || k == exitReturn
		hasJump = hasJump || k == exitJump
		return st
	}
	w.list(s.Body.List, 0, 0)
	params, prologue := d.yieldParams(s, ys)
	if !ok || params == nil {
		return nil
	}
	ret := d.returnPlan(hasReturn, pos)
	if ret == nil {
		return nil
	}
	if hasJump {
		ret.jump = d.temp("jmp")
		ret.before = append(ret.before, define(ret.jump, intLit(0, pos)))
	}
	w.f = func(st ast.Stmt, k exit) ast.Stmt { return ret.replace(st, k) }
	w.list(s.Body.List, 0, 0)
	body := append(prologue, s.Body.List...)
	body = append(body, &ast.ReturnStmt{Return: s.Body.Rbrace, Results: []ast.Expr{ident("true", s.Body.Rbrace)}})
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: params, Results: &ast.FieldList{List: []*ast.Field{{Type: ident("bool", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: s.Body.Lbrace, List: body, Rbrace: s.Body.Rbrace},
	}
	call := &ast.ExprStmt{X: &ast.CallExpr{Fun: s.X, Lparen: pos, Args: []ast.Expr{lit}, Rparen: s.End()}}
	if !hasReturn && !hasJump {
		return call
	}
	list := append(ret.before, call)
	if ret.after != nil {
		list = append(list, ret.after)
	}
	if hasJump {
		list = append(list, ret.jumpSwitch())
	}
	return &ast.BlockStmt{Lbrace: pos, List: list, Rbrace: s.End()}
}

// yieldParams returns the yield function's parameters (the loop's variables when it defines
// them) and, for a loop that assigns existing variables, the assignments that start the body.
func (d *Pass) yieldParams(s *ast.RangeStmt, ys *types.Signature) (*ast.FieldList, []ast.Stmt) {
	pos := s.For
	vars := []ast.Expr{s.Key, s.Value}
	fl := &ast.FieldList{Opening: pos, Closing: pos}
	var prologue []ast.Stmt
	for i := 0; i < ys.Params().Len(); i++ {
		te := d.typeExpr(ys.Params().At(i).Type(), pos)
		if te == nil || i >= len(vars) {
			return nil, nil
		}
		name := "_"
		switch v := vars[i]; {
		case v == nil || isBlank(v):
		case s.Tok == token.DEFINE:
			name = v.(*ast.Ident).Name
		default:
			name = d.temp("y")
			prologue = append(prologue, &ast.AssignStmt{Lhs: []ast.Expr{v}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(name, pos)}})
		}
		fl.List = append(fl.List, &ast.Field{Names: []*ast.Ident{ident(name, pos)}, Type: te})
	}
	return fl, prologue
}

// returnPlan says how a return inside a range-over-func body leaves the enclosing function.
type returnPlan struct {
	flag   string     // set when the body returned
	temps  []string   // the results, for an enclosing function with unnamed results
	named  []string   // the enclosing function's named results
	before []ast.Stmt // declarations before the call
	after  ast.Stmt   // the return after the call
	pos    token.Pos
	jump   string     // which jump out of the body was taken (1-based; 0 none)
	jumps  []ast.Stmt // the jumps, made after the call
}

// jumpSwitch makes, after the iterator's call, the jump the body took.
func (p *returnPlan) jumpSwitch() ast.Stmt {
	pos := p.pos
	body := &ast.BlockStmt{Lbrace: pos, Rbrace: pos}
	for i, j := range p.jumps {
		body.List = append(body.List, &ast.CaseClause{Case: pos, List: []ast.Expr{intLit(i+1, pos)}, Colon: pos, Body: []ast.Stmt{j}})
	}
	return &ast.SwitchStmt{Switch: pos, Tag: ident(p.jump, pos), Body: body}
}

// returnPlan returns the plan for the enclosing function; nil when its result types cannot be
// written.
func (d *Pass) returnPlan(hasReturn bool, pos token.Pos) *returnPlan {
	p := &returnPlan{pos: pos}
	if !hasReturn {
		return p
	}
	p.flag = d.temp("rf")
	p.before = []ast.Stmt{define(p.flag, ident("false", pos))}
	var results *types.Tuple
	if n := len(d.sigs); n > 0 && d.sigs[n-1] != nil {
		results = d.sigs[n-1].Results()
	}
	var out []ast.Expr
	for i := 0; results != nil && i < results.Len(); i++ {
		r := results.At(i)
		if r.Name() != "" && r.Name() != "_" {
			p.named = append(p.named, r.Name())
			continue
		}
		te := d.typeExpr(r.Type(), pos)
		if te == nil {
			return nil
		}
		t := d.temp("r")
		p.temps = append(p.temps, t)
		out = append(out, ident(t, pos))
		p.before = append(p.before, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
			&ast.ValueSpec{Names: []*ast.Ident{ident(t, pos)}, Type: te}}}})
	}
	if len(p.named) > 0 && len(p.temps) > 0 {
		return nil // a mix of named and blank results
	}
	p.after = &ast.IfStmt{If: pos, Cond: ident(p.flag, pos), Body: &ast.BlockStmt{Lbrace: pos,
		List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: out}}, Rbrace: pos}}
	return p
}

// replace rewrites one exit of the body.
func (p *returnPlan) replace(st ast.Stmt, k exit) ast.Stmt {
	pos := st.Pos()
	switch k {
	case exitBreak:
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("false", pos)}}
	case exitContinue:
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("true", pos)}}
	case exitJump:
		p.jumps = append(p.jumps, st)
		return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{ident(p.jump, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{intLit(len(p.jumps), pos)}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("false", pos)}}}, Rbrace: st.End()}
	case exitReturn:
		r := st.(*ast.ReturnStmt)
		var list []ast.Stmt
		targets := p.temps
		if len(p.named) > 0 {
			targets = p.named
		}
		if len(r.Results) > 0 {
			lhs := make([]ast.Expr, len(targets))
			for i, t := range targets {
				lhs[i] = ident(t, pos)
			}
			list = append(list, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: r.Results})
		}
		list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{ident(p.flag, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident("true", pos)}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("false", pos)}})
		return &ast.BlockStmt{Lbrace: pos, List: list, Rbrace: st.End()}
	}
	return st
}

// rangeCollect ranges over the iterator's values, collected first by a prelude helper
// (_seq1[K](seq) or _seq2[K, V](seq)); the loop variables are defined in the body, so each
// iteration has its own.
func (d *Pass) rangeCollect(s *ast.RangeStmt, label *ast.LabeledStmt, ys *types.Signature) ast.Stmt {
	pos := s.For
	n := ys.Params().Len()
	if n == 0 || n > 2 {
		return relabel(label, s)
	}
	helper := ast.Expr(ident(fmt.Sprintf("_seq%d", n), pos))
	var targs []ast.Expr
	for i := 0; i < n; i++ {
		if te := d.typeExpr(ys.Params().At(i).Type(), pos); te != nil {
			targs = append(targs, te)
		}
	}
	if len(targs) == n {
		helper = &ast.IndexListExpr{X: helper, Lbrack: pos, Indices: targs, Rbrack: pos}
	}
	call := &ast.CallExpr{Fun: helper, Lparen: pos, Args: []ast.Expr{s.X}, Rparen: pos}
	set := func(v ast.Expr, val ast.Expr) {
		if v != nil && !isBlank(v) {
			s.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{v}, TokPos: pos, Tok: s.Tok, Rhs: []ast.Expr{val}}}, s.Body.List...)
		}
	}
	loop := &ast.RangeStmt{For: pos, TokPos: pos, Tok: token.DEFINE, X: call, Body: s.Body}
	if n == 1 {
		v := d.temp("v")
		loop.Key, loop.Value = ident("_", pos), ident(v, pos)
		set(s.Key, ident(v, pos))
		return relabel(label, loop)
	}
	ks, vs, idx := d.temp("k"), d.temp("v"), d.temp("i")
	pre := &ast.AssignStmt{Lhs: []ast.Expr{ident(ks, pos), ident(vs, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{call}}
	loop.X, loop.Key = ident(ks, pos), ident(idx, pos)
	set(s.Value, &ast.IndexExpr{X: ident(vs, pos), Lbrack: pos, Index: ident(idx, pos), Rbrack: pos})
	set(s.Key, &ast.IndexExpr{X: ident(ks, pos), Lbrack: pos, Index: ident(idx, pos), Rbrack: pos})
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{pre, relabel(label, loop)}, Rbrace: s.End()}
}
