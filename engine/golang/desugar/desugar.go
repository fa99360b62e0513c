package desugar

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/source"
)

// Session is what the pass keeps across the cells of one engine session.
type Session struct {
	vars  map[string]bool // variables declared at top level by cells
	temps int             // counter for the pass's temporary names
	mains int             // counter for renamed main functions
}

// NewSession returns the state of a new engine session.
func NewSession() *Session {
	return &Session{vars: map[string]bool{}}
}

// Declared reports whether a cell declared a top-level variable of that name.
func (s *Session) Declared(name string) bool { return s.vars[name] }

// Vars lists the top-level variables the session's cells declared, in no order.
func (s *Session) Vars() []string {
	out := make([]string, 0, len(s.vars))
	for n := range s.vars {
		out = append(out, n)
	}
	return out
}

// Pass rewrites one unit: File, then Body for a snippet; Commit once they compiled.
type Pass struct {
	s      *Session
	u      *source.GoUnit
	tc     *typecheck.Cell
	info   *types.Info
	vars   []string    // top-level variables of this unit
	marks  []token.Pos // positions of the top-level statements, by _at index
	gen    uint64      // the cell's generation (see Engine.at)
	defers bool        // the snippet defers calls at top level (see topDefer)
	// bodyNames are the names the snippet's top-level statements define.
	bodyNames map[string]bool
	// sigs are the signatures of the functions being walked, innermost last.
	sigs []*types.Signature
	// inits are assignments of package-level variables that run before the snippet's
	// statements, or at the start of a program's main (see packageVars).
	inits []ast.Stmt
}

// New returns the pass for a unit checked as tc; with tc nil (a cell run unchecked, to test the
// lower layers alone) the pass does only what needs no types. gen is the cell's generation,
// which the _at calls Body writes pass to the engine.
func New(s *Session, u *source.GoUnit, gen uint64, tc *typecheck.Cell) *Pass {
	d := &Pass{s: s, u: u, gen: gen, tc: tc, info: &types.Info{}, bodyNames: map[string]bool{}}
	if tc != nil {
		d.info = tc.Info
	}
	return d
}

// Marks are the positions of the snippet's top-level statements, by the index Body's _at calls
// pass.
func (d *Pass) Marks() []token.Pos { return d.marks }

// Defers reports whether the snippet defers calls at top level: the engine then calls
// _runDefers after its statements.
func (d *Pass) Defers() bool { return d.defers }

// Commit records the unit's top-level variables in the session once its declarations have
// compiled; the names its statements define only when body is true (they compiled too).
func (d *Pass) Commit(body bool) {
	for _, n := range d.vars {
		if body || !d.bodyNames[n] {
			d.s.vars[n] = true
		}
	}
}

func (d *Pass) temp(prefix string) string {
	d.s.temps++
	return fmt.Sprintf("_%s%d", prefix, d.s.temps)
}

// typeOf is the type go/types inferred for e, or nil.
func (d *Pass) typeOf(e ast.Expr) types.Type { return d.info.TypeOf(e) }

// typeExpr writes t as it is named at pos, or returns nil (see typecheck.Cell.TypeExpr).
func (d *Pass) typeExpr(t types.Type, pos token.Pos) ast.Expr {
	if d.tc == nil || t == nil {
		return nil
	}
	return d.tc.TypeExpr(t, pos)
}

// prior is the package-level object an earlier cell declared under name, or nil.
func (d *Pass) prior(name string) types.Object {
	if d.tc == nil {
		return nil
	}
	return d.tc.Prior(name)
}

// preludeObj is the prelude's object of that name, or nil.
func (d *Pass) preludeObj(name string) types.Object {
	if d.tc == nil {
		return nil
	}
	return d.tc.Prelude(name)
}

// pkgName is the name under which the cell's file imports p at pos, adding a hidden import of
// it (typecheck.Cell.Import) when it has none; "" if neither can be.
func (d *Pass) pkgName(p string, pos token.Pos) string {
	if d.tc == nil {
		return ""
	}
	if name := d.tc.ImportName(p, pos); name != "" {
		return name
	}
	return d.tc.Import(p, pos)
}

// File rewrites the unit's declarations and returns the new name of a whole program's main.
func (d *Pass) File(f *ast.File) (mainName string) {
	d.packageVars(f)
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			d.funcDecl(decl)
			if d.u.Program && decl.Recv == nil && decl.Name.Name == "main" {
				d.s.mains++
				decl.Name.Name = fmt.Sprintf("_main%d", d.s.mains)
				mainName = decl.Name.Name
				if decl.Body != nil && len(d.inits) > 0 {
					decl.Body.List = append(d.inits, decl.Body.List...)
					d.inits = nil
				}
			}
		case *ast.GenDecl:
			for _, s := range decl.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					d.exprs(vs.Values)
					if decl.Tok == token.VAR {
						for _, n := range vs.Names {
							if n.Name != "_" {
								d.vars = append(d.vars, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return mainName
}

func (d *Pass) funcDecl(fd *ast.FuncDecl) {
	if fd.Body == nil {
		return
	}
	sig, _ := d.info.Defs[fd.Name].Type().(*types.Signature)
	d.sigs = append(d.sigs, sig)
	d.stmtList(fd.Body.List)
	d.sigs = d.sigs[:len(d.sigs)-1]
}

// Body rewrites a snippet's statements; they run at top level, so their definitions persist.
// Before each statement it puts a call _at(gen, i), so that a panic's position is known to the
// statement (yaegi's own panic positions are approximate), and a cancelled cell cannot go on.
func (d *Pass) Body(b *ast.BlockStmt) {
	d.sigs = append(d.sigs, types.NewSignatureType(nil, nil, nil, nil, nil, false))
	var groups [][]ast.Stmt
	if len(d.inits) > 0 {
		groups = append(groups, d.inits)
		d.inits = nil
	}
	for _, s := range b.List {
		for _, n := range topLevelNames(s) {
			d.vars = append(d.vars, n)
			d.bodyNames[n] = true
		}
		if group := d.topDefine(s); group != nil {
			groups = append(groups, group)
			continue
		}
		r := d.stmt(s)
		if _, ok := s.(*ast.DeferStmt); ok {
			r = topDefer(r)
			d.defers = true
		}
		if wrappable(r) {
			r = wrapInFunc(r)
		}
		groups = append(groups, []ast.Stmt{r})
	}
	list := make([]ast.Stmt, 0, 2*len(groups))
	for _, g := range groups {
		pos := g[0].Pos()
		list = append(list, &ast.ExprStmt{X: &ast.CallExpr{Fun: ident("_at", pos), Lparen: pos, Args: []ast.Expr{
			&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(d.gen)},
			&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(len(d.marks))}}, Rparen: pos}})
		d.marks = append(d.marks, pos)
		list = append(list, g...)
	}
	b.List = list
	d.sigs = d.sigs[:len(d.sigs)-1]
}

// topLevelNames returns the variables a top-level statement defines.
func topLevelNames(s ast.Stmt) []string {
	var names []string
	for _, id := range typecheck.DefinedIdents(s) {
		names = append(names, id.Name)
	}
	return names
}

func (d *Pass) stmtList(list []ast.Stmt) {
	for i, s := range list {
		list[i] = d.stmt(s)
	}
}

func (d *Pass) block(b *ast.BlockStmt) {
	if b != nil {
		d.stmtList(b.List)
	}
}

func (d *Pass) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		calls := d.callOperands(s)
		d.exprs(s.Rhs)
		if s.Tok != token.DEFINE {
			d.exprs(s.Lhs)
		}
		return d.parallel(s, calls)
	case *ast.ExprStmt:
		sorted := d.sortStmt(s) // reads the types of s as the checker saw it
		s.X = d.expr(s.X)
		if sorted != nil {
			return sorted
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					d.exprs(vs.Values)
				}
			}
		}
	case *ast.IncDecStmt:
		s.X = d.expr(s.X)
	case *ast.SendStmt:
		s.Chan, s.Value = d.expr(s.Chan), d.expr(s.Value)
	case *ast.GoStmt:
		s.Call = d.callStmt(s.Call)
	case *ast.DeferStmt:
		return d.deferStmt(s)
	case *ast.ReturnStmt:
		d.exprs(s.Results)
	default:
		return d.compound(s)
	}
	return s
}

// compound walks statements with blocks of their own.
func (d *Pass) compound(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.BlockStmt:
		d.block(s)
	case *ast.IfStmt:
		s.Init = d.optStmt(s.Init)
		s.Cond = d.expr(s.Cond)
		d.block(s.Body)
		s.Else = d.optStmt(s.Else)
	case *ast.SwitchStmt:
		s.Init = d.optStmt(s.Init)
		if s.Tag != nil {
			s.Tag = d.expr(s.Tag)
		}
		d.clauses(s.Body, false)
	case *ast.TypeSwitchStmt:
		s.Init = d.optStmt(s.Init)
		if as, ok := s.Assign.(*ast.AssignStmt); ok {
			d.exprs(as.Rhs)
		} else if es, ok := s.Assign.(*ast.ExprStmt); ok {
			es.X = d.expr(es.X)
		}
		d.clauses(s.Body, true)
	case *ast.SelectStmt:
		d.clauses(s.Body, false)
	case *ast.ForStmt:
		return d.forStmt(s, nil)
	case *ast.RangeStmt:
		return d.rangeStmt(s, nil)
	case *ast.LabeledStmt:
		switch inner := s.Stmt.(type) {
		case *ast.ForStmt:
			return d.forStmt(inner, s)
		case *ast.RangeStmt:
			return d.rangeStmt(inner, s)
		}
		s.Stmt = d.stmt(s.Stmt)
	}
	return s
}

func (d *Pass) optStmt(s ast.Stmt) ast.Stmt {
	if s == nil {
		return nil
	}
	return d.stmt(s)
}

func (d *Pass) exprs(list []ast.Expr) {
	for i := range list {
		list[i] = d.expr(list[i])
	}
}

// clauses walks the case clauses of a switch or select (of a type switch: no expressions).
func (d *Pass) clauses(body *ast.BlockStmt, typeSwitch bool) {
	for _, c := range body.List {
		switch c := c.(type) {
		case *ast.CaseClause:
			if !typeSwitch {
				d.exprs(c.List)
			}
			d.stmtList(c.Body)
		case *ast.CommClause:
			if c.Comm != nil {
				c.Comm = d.stmt(c.Comm)
			}
			d.stmtList(c.Body)
		}
	}
}
