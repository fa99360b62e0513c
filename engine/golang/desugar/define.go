package desugar

import (
	"go/ast"
	"go/token"
	"go/types"
)

// yaegi v0.16.1 types a top-level variable from its initial value in a global analysis that
// fails when the value indexes or selects from a call's result (parts := strings.Split(s, ","),
// x := parts[0] gives "constant definition loop"), and it gives a package-level variable
// initialised by a generic function call its zero value. With the types known, every top-level
// variable is declared at package level with its type written out, and assigned where it was
// defined:
//
//	x, err := f()      ->  var x T (package level);  x, err = f()
//
// A variable an earlier cell declared with the same type is only assigned (x := x + 1 then
// means what it says). When a type cannot be written at that place, the statement is left as
// it is.

// topDefine rewrites a snippet's top-level := or var statement into the assignment it
// returns, adding the declarations it needs to the unit's package-level declarations (yaegi
// compiles a generic type in a var statement at top level wrongly, and at package level right);
// nil when it does not apply.
func (d *Pass) topDefine(s ast.Stmt) []ast.Stmt {
	if d.tc == nil {
		return nil
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.DEFINE {
			return nil
		}
		decls, ok := d.declare(s.Lhs, s.Rhs, nil)
		if !ok {
			return nil
		}
		if len(decls) == len(s.Rhs) { // x := error(&myErr{}): the declared type converts
			d.unconvert(s.Rhs)
		}
		as := &ast.AssignStmt{Lhs: s.Lhs, TokPos: s.TokPos, Tok: token.ASSIGN, Rhs: s.Rhs}
		calls := d.callOperands(as)
		d.exprs(s.Rhs)
		d.addDecls(decls)
		return []ast.Stmt{topLevel(d.parallel(as, calls))}
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			return nil
		}
		var decls []ast.Spec
		var out []ast.Stmt
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				decls = append(decls, vs)
				continue
			}
			lhs := make([]ast.Expr, len(vs.Names))
			for i, n := range vs.Names {
				lhs[i] = n
			}
			specs, ok := d.declare(lhs, vs.Values, vs.Type)
			if !ok {
				return nil
			}
			as := &ast.AssignStmt{Lhs: lhs, TokPos: vs.Pos(), Tok: token.ASSIGN, Rhs: vs.Values}
			calls := d.callOperands(as)
			d.exprs(vs.Values)
			decls = append(decls, specs...)
			out = append(out, topLevel(d.parallel(as, calls)))
		}
		d.addDecls(decls)
		if len(out) == 0 {
			out = []ast.Stmt{&ast.EmptyStmt{Semicolon: s.Pos(), Implicit: true}}
		}
		return out
	}
	return nil
}

// addDecls adds var declarations to the unit's package-level declarations.
func (d *Pass) addDecls(specs []ast.Spec) {
	if len(specs) == 0 {
		return
	}
	pos := specs[0].Pos()
	d.u.Decls.Decls = append(d.u.Decls.Decls, &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: specs})
}

// declare returns `x T` for each variable lhs defines that needs a declaration, or false when
// a type cannot be written, or a redeclared name is used on the right (its new declaration would
// change it first).
func (d *Pass) declare(lhs, rhs []ast.Expr, written ast.Expr) ([]ast.Spec, bool) {
	var out []ast.Spec
	for _, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		v, ok := d.info.Defs[id].(*types.Var)
		if !ok {
			continue // a variable of this cell defined before: only assigned
		}
		if prior, ok := d.prior(id.Name).(*types.Var); ok && types.Identical(prior.Type(), v.Type()) {
			continue
		}
		te := written
		if te == nil {
			te = d.typeExpr(v.Type(), id.Pos())
		}
		if te == nil || mentions(rhs, id.Name) {
			return nil, false
		}
		out = append(out, &ast.ValueSpec{Names: []*ast.Ident{ident(id.Name, id.Pos())}, Type: te})
	}
	return out, true
}

// topLevel runs a block of temporaries in a function literal: at top level yaegi would make
// them globals, typed by its global analysis (which fails on an index of a call's result).
func topLevel(s ast.Stmt) ast.Stmt {
	if _, ok := s.(*ast.BlockStmt); ok {
		return wrapInFunc(s)
	}
	return s
}

// mentions reports whether any of the expressions uses the name.
func mentions(list []ast.Expr, name string) bool {
	found := false
	for _, e := range list {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// packageVars gives the unit's initialised package-level variables their written types and
// moves their initialisation, in Go's initialisation order, into d.inits: the start of a
// snippet's statements, or of a program's main. It changes nothing unless every such variable
// can be moved (a variable left behind could read one moved, before its assignment).
func (d *Pass) packageVars(f *ast.File) {
	if len(d.info.InitOrder) == 0 || d.u.Program && !d.u.HasMain {
		return
	}
	specs := map[*types.Var]ast.Expr{} // variable -> written type
	for _, init := range d.info.InitOrder {
		for _, v := range init.Lhs {
			if te := d.typeExpr(v.Type(), v.Pos()); te != nil {
				specs[v] = te
			} else {
				return
			}
		}
	}
	var assigns []ast.Stmt
	for _, init := range d.info.InitOrder {
		lhs := make([]ast.Expr, len(init.Lhs))
		for i, v := range init.Lhs {
			lhs[i] = ident(v.Name(), init.Rhs.Pos())
		}
		assigns = append(assigns, &ast.AssignStmt{Lhs: lhs, TokPos: init.Rhs.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{d.expr(init.Rhs)}})
	}
	keep := f.Decls[:0]
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			keep = append(keep, decl)
			continue
		}
		var out []ast.Spec
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				out = append(out, vs)
				continue
			}
			for _, n := range vs.Names {
				v, _ := d.info.Defs[n].(*types.Var)
				if te, ok := specs[v]; ok {
					out = append(out, &ast.ValueSpec{Names: []*ast.Ident{n}, Type: te})
				} else if n.Name == "_" {
					continue // a blank variable: its initialiser is an assignment to _ above
				}
			}
		}
		if g.Specs = out; len(out) > 0 {
			keep = append(keep, g)
		}
	}
	f.Decls = keep
	d.inits = assigns
	if !d.u.Program && d.u.Body == nil {
		d.u.Body = &ast.BlockStmt{Lbrace: f.Pos(), Rbrace: f.Pos()}
	}
}

// yaegi v0.16.1 loses assignments of a tuple assignment with a call among its values:
// a, b = h, len(h) leaves a unchanged. Such an assignment is made the two phases the spec
// describes, one statement each: the operands (index operands and pointers on the left, values
// on the right, calls in order) into temporaries, then the assignments, left to right:
//
//	i, xs[i] = 1, len(xs)   ->   { _c1 := i; _c2 := len(xs); i = 1; xs[_c1] = _c2 }

// tuplePlan is the rewrite of one tuple assignment.
type tuplePlan struct {
	lhsTemp []ast.Expr // per target: the operand to evaluate first (index, pointer), or nil
	rhsTemp []bool     // per value: evaluated into a temporary (constants and nil stay)
}

// callOperands plans the rewrite of a tuple assignment with a call among its values, before
// its expressions are rewritten; nil when it needs none or cannot have one (a target that is
// neither a name, nor an index, field or pointer of a name).
func (d *Pass) callOperands(s *ast.AssignStmt) *tuplePlan {
	if s.Tok != token.ASSIGN || len(s.Lhs) < 2 || len(s.Lhs) != len(s.Rhs) || d.tc == nil {
		return nil
	}
	p := &tuplePlan{lhsTemp: make([]ast.Expr, len(s.Lhs)), rhsTemp: make([]bool, len(s.Rhs))}
	call := false
	for i, r := range s.Rhs {
		tv := d.info.Types[r]
		p.rhsTemp[i] = tv.Value == nil && !tv.IsNil()
		call = call || hasCall(r)
	}
	if !call {
		return nil
	}
	for i, l := range s.Lhs {
		switch x := ast.Unparen(l).(type) {
		case *ast.Ident:
		case *ast.IndexExpr:
			if _, ok := x.X.(*ast.Ident); !ok {
				return nil
			}
			p.lhsTemp[i] = x.Index
		case *ast.StarExpr:
			if _, ok := x.X.(*ast.Ident); !ok {
				return nil
			}
		case *ast.SelectorExpr:
			if _, ok := x.X.(*ast.Ident); !ok {
				return nil
			}
		default:
			return nil
		}
	}
	return p
}

// hasCall reports a call in e, outside function literals.
func hasCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.CallExpr:
			found = true
		case *ast.FuncLit:
			return false
		}
		return !found
	})
	return found
}

// parallel rewrites the (already rewritten) tuple assignment s as planned.
func (d *Pass) parallel(s *ast.AssignStmt, p *tuplePlan) ast.Stmt {
	if p == nil {
		return s
	}
	var list []ast.Stmt
	temp := func(e ast.Expr) ast.Expr {
		t := d.temp("c")
		list = append(list, define(t, e))
		return ident(t, e.Pos())
	}
	names := map[string]bool{}
	for _, n := range identNames(s.Lhs) {
		names[n] = true
	}
	for i, l := range s.Lhs { // phase one, left: the operands of indexes and indirections
		switch x := ast.Unparen(l).(type) {
		case *ast.IndexExpr:
			if base := x.X.(*ast.Ident); names[base.Name] {
				x.X = temp(base)
			}
			if p.lhsTemp[i] != nil {
				x.Index = temp(x.Index)
			}
		case *ast.StarExpr:
			if base := x.X.(*ast.Ident); names[base.Name] {
				x.X = temp(base)
			}
		case *ast.SelectorExpr:
			if base := x.X.(*ast.Ident); names[base.Name] && d.isPointerVar(base) {
				x.X = temp(base)
			}
		}
	}
	for i, r := range s.Rhs { // phase one, right: the values, in order
		if p.rhsTemp[i] {
			s.Rhs[i] = temp(r)
		}
	}
	for i := range s.Lhs { // phase two: the assignments, left to right
		list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{s.Lhs[i]}, TokPos: s.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{s.Rhs[i]}})
	}
	return &ast.BlockStmt{Lbrace: s.Pos(), List: list, Rbrace: s.End()}
}

// isPointerVar reports a name whose value is a pointer (a field of it is set through it).
func (d *Pass) isPointerVar(id *ast.Ident) bool {
	t := d.typeOf(id)
	if t == nil {
		return true
	}
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}
