package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/source"
)

// The desugaring pass rewrites the validated and type-checked AST, in place and before
// compilation, so that modern Go which yaegi v0.16.1 rejects or runs wrongly behaves as the Go
// spec says. It decides from the types go/types inferred (typecheck.Cell), never by guessing:
//
//   - a snippet's top-level variables (x := f()[0], var n = len(xs)) are declared with their
//     type written out and assigned by a plain statement: yaegi's global type analysis fails
//     on := whose type comes from an index or a call ("constant definition loop") and gives a
//     package-level variable initialised by a generic call its zero value;
//   - calls of generic functions get their type arguments written out: yaegi infers type
//     arguments positionally, cannot infer from compiled functions, and fails on variadic type
//     parameters ("undefined type for T");
//   - for i := range n (an integer) becomes a counting loop;
//   - ranging over an iterator function (range-over-func) becomes a call of the iterator with
//     the loop body as the yield function (break, continue and return work as in Go); a body
//     with goto, defer or a jump to an outer loop ranges over the values collected first;
//   - min and max of constants are folded (Go makes them constants), of variables they call
//     generic prelude helpers; clear calls a host shim;
//   - loop variables captured by closures get a fresh copy per iteration (Go 1.22 semantics);
//   - deferred calls get their arguments evaluated at the defer statement;
//   - a snippet's top-level loops, ifs and switches run inside a function literal, where
//     yaegi compiles `n, err := f()` and friends correctly (at top level it does not);
//   - print becomes fmt.Println, and the values printing calls get in interfaces, slices and
//     maps are boxed so that the String and Error methods of the cell's types run (yaegi drops
//     the methods there; see desugar_box.go);
//   - a value of the cell's types converted implicitly to the empty interface (in a composite
//     literal, by append) is converted explicitly, which yaegi stores right;
//   - errors.As and errors.Is also see interpreted error types;
//   - a whole program's main is renamed, and called once by the engine.
//
// Names the pass introduces start with "_", which model code cannot use while the validator is
// on. A construct whose types cannot be written at its place (a type of a package the file
// does not import) is left as it is.

// session is what the pass keeps across cells.
type session struct {
	vars    map[string]bool // variables declared at top level by cells
	imports map[string]bool // imports already compiled, by file (see importKey)
	temps   int             // counter for the pass's temporary names
	mains   int             // counter for renamed main functions
}

func newSession() *session {
	return &session{vars: map[string]bool{}, imports: map[string]bool{}}
}

// desugarer rewrites one unit.
type desugarer struct {
	s      *session
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

// newDesugarer returns the pass for a unit checked as tc; with tc nil (a cell run unchecked, to
// test the lower layers alone) the pass does only what needs no types.
func newDesugarer(s *session, u *source.GoUnit, gen uint64, tc *typecheck.Cell) *desugarer {
	d := &desugarer{s: s, u: u, gen: gen, tc: tc, info: &types.Info{}, bodyNames: map[string]bool{}}
	if tc != nil {
		d.info = tc.Info
	}
	return d
}

// commit records the unit's top-level variables in the session once its declarations have
// compiled; the names its statements define only when body is true (they compiled too).
func (d *desugarer) commit(body bool) {
	for _, n := range d.vars {
		if body || !d.bodyNames[n] {
			d.s.vars[n] = true
		}
	}
}

func (d *desugarer) temp(prefix string) string {
	d.s.temps++
	return fmt.Sprintf("_%s%d", prefix, d.s.temps)
}

// typeOf is the type go/types inferred for e, or nil.
func (d *desugarer) typeOf(e ast.Expr) types.Type { return d.info.TypeOf(e) }

// typeExpr writes t as it is named at pos, or returns nil (see typecheck.Cell.TypeExpr).
func (d *desugarer) typeExpr(t types.Type, pos token.Pos) ast.Expr {
	if d.tc == nil || t == nil {
		return nil
	}
	return d.tc.TypeExpr(t, pos)
}

// prior is the package-level object an earlier cell declared under name, or nil.
func (d *desugarer) prior(name string) types.Object {
	if d.tc == nil {
		return nil
	}
	return d.tc.Prior(name)
}

// preludeObj is the prelude's object of that name, or nil.
func (d *desugarer) preludeObj(name string) types.Object {
	if d.tc == nil {
		return nil
	}
	return d.tc.Prelude(name)
}

// importName is the name the cell's file imports p under at pos, or "".
func (d *desugarer) importName(p string, pos token.Pos) string {
	if d.tc == nil {
		return ""
	}
	return d.tc.ImportName(p, pos)
}

// importPkg imports p into the cell's file, if its name is free at pos.
func (d *desugarer) importPkg(p string, pos token.Pos) bool {
	return d.tc != nil && d.tc.Import(p, pos)
}

// file rewrites the unit's declarations and returns the new name of a whole program's main.
func (d *desugarer) file(f *ast.File) (mainName string) {
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

func (d *desugarer) funcDecl(fd *ast.FuncDecl) {
	if fd.Body == nil {
		return
	}
	sig, _ := d.info.Defs[fd.Name].Type().(*types.Signature)
	d.sigs = append(d.sigs, sig)
	d.stmtList(fd.Body.List)
	d.sigs = d.sigs[:len(d.sigs)-1]
}

// body rewrites a snippet's statements; they run at top level, so their definitions persist.
// Before each statement it puts a call _at(gen, i), so that a panic's position is known to the
// statement (yaegi's own panic positions are approximate), and a cancelled cell cannot go on.
func (d *desugarer) body(b *ast.BlockStmt) {
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

func (d *desugarer) stmtList(list []ast.Stmt) {
	for i, s := range list {
		list[i] = d.stmt(s)
	}
}

func (d *desugarer) block(b *ast.BlockStmt) {
	if b != nil {
		d.stmtList(b.List)
	}
}

func (d *desugarer) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		calls := d.callOperands(s)
		d.exprs(s.Rhs)
		if s.Tok != token.DEFINE {
			d.exprs(s.Lhs)
		}
		return d.parallel(s, calls)
	case *ast.ExprStmt:
		s.X = d.expr(s.X)
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
func (d *desugarer) compound(s ast.Stmt) ast.Stmt {
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

func (d *desugarer) optStmt(s ast.Stmt) ast.Stmt {
	if s == nil {
		return nil
	}
	return d.stmt(s)
}

func (d *desugarer) exprs(list []ast.Expr) {
	for i := range list {
		list[i] = d.expr(list[i])
	}
}

// clauses walks the case clauses of a switch or select (of a type switch: no expressions).
func (d *desugarer) clauses(body *ast.BlockStmt, typeSwitch bool) {
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
