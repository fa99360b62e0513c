package golang

import (
	"fmt"
	"go/ast"
	"go/token"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/validator"
)

// The desugaring pass rewrites the validated AST, in place and before compilation, so that
// modern Go which yaegi v0.16.1 rejects or runs wrongly behaves as the Go spec says:
//
//   - for i := range n (an integer) becomes a counting loop;
//   - ranging over an iterator function (range-over-func) collects its values first;
//   - min and max become generic prelude helpers (constant arguments are folded), clear a
//     host shim;
//   - loop variables captured by closures get a fresh copy per iteration (Go 1.22 semantics);
//   - deferred calls get their arguments evaluated at the defer statement;
//   - a snippet's top-level loops, ifs and switches run inside a function literal, where
//     yaegi compiles `n, err := f()` and friends correctly (at top level it does not);
//   - values passed to fmt's printing functions are boxed so their String and Error methods
//     run even when the static type is an interface (yaegi drops the methods otherwise);
//   - errors.As and errors.Is also see interpreted error types;
//   - generic functions whose type parameters occur more than once in the parameter list get
//     one type parameter per occurrence (yaegi infers type arguments positionally), and compiled
//     functions passed to generic functions are wrapped in literals so yaegi can infer from them;
//   - a whole program's main is renamed, and called once by the engine.
//
// The pass has no type checker. It tracks a coarse kind for each name (integer, iterator,
// other) from declarations and literals, and leaves a construct alone when it cannot tell.
// Names it introduces start with "_", which model code cannot use while the validator is on.

// kind is what the pass knows about a value's type.
type kind uint8

const (
	kUnknown     kind = iota
	kInt              // an integer
	kIter1            // func(yield func(T) bool), interpreted
	kIter2            // func(yield func(K, V) bool), interpreted
	kIterString       // a compiled iterator of strings (strings.Lines, ...)
	kIterBytes        // a compiled iterator of []byte (bytes.Lines, ...)
	kStringer         // held in an interpreted interface type with a String method
	kErrorer          // held in an interpreted interface type with an Error method
	kStringers        // a slice or array of kStringer values
	kErrorers         // a slice or array of kErrorer values
	kStringerMap      // a map with kStringer values
	kErrorerMap       // a map with kErrorer values
	kOther
)

// elemKind is the kind of the elements of a collection kind.
func elemKind(k kind) kind {
	switch k {
	case kStringers, kStringerMap:
		return kStringer
	case kErrorers, kErrorerMap:
		return kErrorer
	}
	return kUnknown
}

// collectionOf is the kind of a slice (or, with isMap, a map) of elements of kind k.
func collectionOf(k kind, isMap bool) kind {
	switch {
	case k == kStringer && isMap:
		return kStringerMap
	case k == kErrorer && isMap:
		return kErrorerMap
	case k == kStringer:
		return kStringers
	case k == kErrorer:
		return kErrorers
	}
	return kOther
}

// session is what the pass knows across cells.
type session struct {
	vars     map[string]bool  // variables declared at top level by cells
	globals  map[string]kind  // top-level values: their kinds
	funcs    map[string]kind  // top-level functions: the kind of their first result
	declared map[string]bool  // every top-level name cells or the prelude declared
	generics map[string][]int // generic functions: new type parameter -> original index
	ifaces   map[string]kind  // interpreted interface types with a String or Error method
	structs  map[string]bool  // non-generic struct types (see typeNamer)
	imports  map[string]bool  // imports already compiled, by file (see importKey)
	temps    int              // counter for the pass's temporary names
	mains    int              // counter for renamed main functions
}

func newSession() *session {
	s := &session{
		vars: map[string]bool{}, globals: map[string]kind{"context": kOther}, funcs: map[string]kind{},
		declared: map[string]bool{"context": true}, generics: map[string][]int{}, imports: map[string]bool{},
		ifaces: map[string]kind{}, structs: map[string]bool{},
	}
	for _, f := range engine.API {
		s.declared[f.Name] = true
		s.funcs[f.Name] = typeNameKind(f.Result)
	}
	for _, t := range []string{"Context", "Match", "Slice", "FileInfo"} {
		s.declared[t] = true
	}
	return s
}

// desugarer rewrites one unit.
type desugarer struct {
	s        *session
	u        *validator.GoUnit
	scopes   []map[string]kind // innermost last; scopes[0] is the unit's top level
	funcs    map[string]kind   // top-level functions of this unit
	declared map[string]bool   // top-level names of this unit
	generics map[string][]int
	ifaces   map[string]kind
	structs  map[string]bool
	vars     []string    // top-level variables of this unit
	splits   []int       // indices of top-level := statements typed by a generic call (see define.go)
	marks    []token.Pos // positions of the top-level statements, by _at index
	gen      uint64      // the cell's generation (see Engine.at)
	defers   bool        // the snippet defers calls at top level (see topDefer)
	// bodyNames are the names the snippet's top-level statements define.
	bodyNames map[string]bool
}

func newDesugarer(s *session, u *validator.GoUnit, gen uint64) *desugarer {
	d := &desugarer{
		s: s, u: u, gen: gen, scopes: []map[string]kind{{}},
		funcs: map[string]kind{}, declared: map[string]bool{}, generics: map[string][]int{}, ifaces: map[string]kind{},
		structs: map[string]bool{}, bodyNames: map[string]bool{},
	}
	d.hoistVars()
	return d
}

// commit records the unit's top-level names in the session once its declarations have
// compiled; the names its statements define only when body is true (they compiled too).
func (d *desugarer) commit(body bool) {
	for n, k := range d.scopes[0] {
		if body || !d.bodyNames[n] {
			d.s.globals[n] = k
			d.s.declared[n] = true
		}
	}
	for _, n := range d.vars {
		if body || !d.bodyNames[n] {
			d.s.vars[n] = true
		}
	}
	for n, k := range d.funcs {
		d.s.funcs[n] = k
	}
	for n := range d.declared {
		d.s.declared[n] = true
	}
	for n, m := range d.generics {
		d.s.generics[n] = m
	}
	for n, k := range d.ifaces {
		d.s.ifaces[n] = k
	}
	for n := range d.structs {
		d.s.structs[n] = true
	}
}

// structNames returns the struct types of the session and of this unit.
func (d *desugarer) structNames() []string {
	var names []string
	for n := range d.s.structs {
		if !d.structs[n] {
			names = append(names, n)
		}
	}
	for n := range d.structs {
		names = append(names, n)
	}
	return names
}

func (d *desugarer) temp(prefix string) string {
	d.s.temps++
	return fmt.Sprintf("_%s%d", prefix, d.s.temps)
}

func (d *desugarer) push()                       { d.scopes = append(d.scopes, map[string]kind{}) }
func (d *desugarer) pop()                        { d.scopes = d.scopes[:len(d.scopes)-1] }
func (d *desugarer) declare(name string, k kind) { d.scopes[len(d.scopes)-1][name] = k }
func (d *desugarer) declareIdent(e ast.Expr, k kind) {
	if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
		d.declare(id.Name, k)
	}
}

// lookup returns the kind of a value name and whether any scope (or the session) declares it.
func (d *desugarer) lookup(name string) (kind, bool) {
	for i := len(d.scopes) - 1; i >= 0; i-- {
		if k, ok := d.scopes[i][name]; ok {
			return k, true
		}
	}
	if _, ok := d.funcs[name]; ok {
		return kOther, true
	}
	if k, ok := d.s.globals[name]; ok {
		return k, true
	}
	return kUnknown, d.declared[name] || d.s.declared[name]
}

// isBuiltin reports whether name, used here, is the predeclared identifier (or the prelude's).
func (d *desugarer) isBuiltin(name string) bool {
	for i := len(d.scopes) - 1; i >= 1; i-- {
		if _, ok := d.scopes[i][name]; ok {
			return false
		}
	}
	if _, ok := d.scopes[0][name]; ok {
		return false
	}
	if _, ok := d.funcs[name]; ok {
		return false
	}
	return !d.s.vars[name] && (name == "print" || !d.s.declared[name] && !d.declared[name])
}

// isPackage reports whether name refers to an imported package here (no local shadows it).
func (d *desugarer) isPackage(name string) bool {
	_, declared := d.lookup(name)
	return !declared
}

// file rewrites the unit's declarations and returns the new name of a whole program's main.
func (d *desugarer) file(f *ast.File) (mainName string) {
	for _, decl := range f.Decls {
		d.registerTypes(decl)
	}
	for _, decl := range f.Decls {
		d.registerDecl(decl)
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			d.funcDecl(decl)
			if d.u.Program && decl.Recv == nil && decl.Name.Name == "main" {
				d.s.mains++
				decl.Name.Name = fmt.Sprintf("_main%d", d.s.mains)
				mainName = decl.Name.Name
			}
		case *ast.GenDecl:
			d.genDeclValues(decl)
		}
	}
	return mainName
}

// registerDecl records a top-level declaration's names (Go's package scope is order-free).
func (d *desugarer) registerDecl(decl ast.Decl) {
	switch decl := decl.(type) {
	case *ast.FuncDecl:
		if decl.Recv != nil {
			return
		}
		d.declared[decl.Name.Name] = true
		d.funcs[decl.Name.Name] = d.resultKind(decl.Type)
		if decl.Type.TypeParams != nil {
			d.generics[decl.Name.Name] = rewriteGeneric(decl, d.temp)
		}
	case *ast.GenDecl:
		d.declareGen(decl, true)
	}
}

// declareGen declares the names of a var, const or type declaration in the current scope.
func (d *desugarer) declareGen(g *ast.GenDecl, top bool) {
	for _, s := range g.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if top {
				d.declared[s.Name.Name] = true
				if _, ok := s.Type.(*ast.StructType); ok && s.TypeParams == nil {
					d.structs[s.Name.Name] = true
				}
			} else {
				d.declare(s.Name.Name, kOther)
			}
		case *ast.ValueSpec:
			for i, n := range s.Names {
				k := d.typeKind(s.Type)
				if s.Type == nil && i < len(s.Values) && len(s.Values) == len(s.Names) {
					k = d.kindOf(s.Values[i])
				}
				if n.Name == "_" {
					continue
				}
				d.declare(n.Name, k)
				if top && g.Tok == token.VAR {
					d.vars = append(d.vars, n.Name)
				}
			}
		}
	}
}

func (d *desugarer) genDeclValues(g *ast.GenDecl) {
	for _, s := range g.Specs {
		if vs, ok := s.(*ast.ValueSpec); ok {
			for i := range vs.Values {
				vs.Values[i] = d.expr(vs.Values[i])
			}
		}
	}
}

func (d *desugarer) funcDecl(fd *ast.FuncDecl) {
	if fd.Body == nil {
		return
	}
	d.push()
	d.declareFields(fd.Recv)
	d.declareFields(fd.Type.TypeParams)
	d.declareFields(fd.Type.Params)
	d.declareFields(fd.Type.Results)
	d.stmtList(fd.Body.List)
	d.pop()
}

func (d *desugarer) declareFields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			d.declareIdent(n, d.typeKind(f.Type))
		}
	}
}

// body rewrites a snippet's statements; they run at top level, so their definitions persist.
// Before each statement it puts a call _at(gen, i), so that a panic's position is known to the
// statement (yaegi's own panic positions are approximate), and a cancelled cell cannot go on.
func (d *desugarer) body(b *ast.BlockStmt) {
	for i, s := range b.List {
		for _, n := range topLevelNames(s) {
			d.vars = append(d.vars, n)
			d.bodyNames[n] = true
		}
		b.List[i] = d.stmt(s)
		if _, ok := s.(*ast.DeferStmt); ok {
			b.List[i] = topDefer(b.List[i])
			d.defers = true
		}
	}
	list := make([]ast.Stmt, 0, 2*len(b.List))
	for _, s := range b.List {
		if wrappable(s) {
			s = wrapInFunc(s)
		}
		pos := s.Pos()
		list = append(list, &ast.ExprStmt{X: &ast.CallExpr{Fun: ident("_at", pos), Lparen: pos, Args: []ast.Expr{
			&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(d.gen)},
			&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(len(d.marks))}}, Rparen: pos}})
		d.marks = append(d.marks, pos)
		if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && d.genericTyped(as.Rhs) {
			d.splits = append(d.splits, len(list))
		}
		list = append(list, s)
	}
	b.List = list
}

// topLevelNames returns the variables a top-level statement defines.
func topLevelNames(s ast.Stmt) []string {
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return identNames(s.Lhs)
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			var names []string
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						names = append(names, n.Name)
					}
				}
			}
			return names
		}
	}
	return nil
}

// hoistVars moves a snippet's var declarations whose initial values use variables its
// statements define (x := 1; var y = x + 1) from the declarations, which run first, into the
// statements, at their place in the source.
func (d *desugarer) hoistVars() {
	u := d.u
	if u.Body == nil || u.Program {
		return
	}
	defined := map[string]bool{}
	for _, s := range u.Body.List {
		for _, n := range topLevelNames(s) {
			defined[n] = true
		}
	}
	for moved := true; moved; {
		moved = false
		for i, decl := range u.Decls.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR || !mentionsAny(g, defined) {
				continue
			}
			u.Decls.Decls = append(u.Decls.Decls[:i], u.Decls.Decls[i+1:]...)
			d.insertStmt(&ast.DeclStmt{Decl: g})
			for _, n := range topLevelNames(&ast.DeclStmt{Decl: g}) {
				defined[n] = true
			}
			moved = true
			break
		}
	}
}

func (d *desugarer) insertStmt(s ast.Stmt) {
	off := d.u.Position(s.Pos()).Offset
	list := d.u.Body.List
	i := 0
	for i < len(list) && d.u.Position(list[i].Pos()).Offset < off {
		i++
	}
	d.u.Body.List = append(list[:i], append([]ast.Stmt{s}, list[i:]...)...)
}

func mentionsAny(g *ast.GenDecl, names map[string]bool) bool {
	found := false
	for _, spec := range g.Specs {
		for _, v := range spec.(*ast.ValueSpec).Values {
			ast.Inspect(v, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && names[id.Name] {
					found = true
				}
				return !found
			})
		}
	}
	return found
}

func (d *desugarer) stmtList(list []ast.Stmt) {
	for i, s := range list {
		list[i] = d.stmt(s)
	}
}

func (d *desugarer) block(b *ast.BlockStmt) {
	if b == nil {
		return
	}
	d.push()
	d.stmtList(b.List)
	d.pop()
}

func (d *desugarer) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		d.exprs(s.Rhs)
		if s.Tok == token.DEFINE {
			d.defineAll(s.Lhs, s.Rhs)
		} else {
			d.exprs(s.Lhs)
		}
	case *ast.ExprStmt:
		s.X = d.expr(s.X)
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok {
			d.genDeclValues(g)
			d.declareGen(g, false)
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
		d.push()
		s.Init = d.optStmt(s.Init)
		s.Cond = d.expr(s.Cond)
		d.block(s.Body)
		s.Else = d.optStmt(s.Else)
		d.pop()
	case *ast.SwitchStmt:
		d.push()
		s.Init = d.optStmt(s.Init)
		if s.Tag != nil {
			s.Tag = d.expr(s.Tag)
		}
		d.clauses(s.Body, "")
		d.pop()
	case *ast.TypeSwitchStmt:
		d.typeSwitch(s)
	case *ast.SelectStmt:
		d.clauses(s.Body, "")
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

func (d *desugarer) typeSwitch(s *ast.TypeSwitchStmt) {
	d.push()
	s.Init = d.optStmt(s.Init)
	bound := ""
	if as, ok := s.Assign.(*ast.AssignStmt); ok {
		d.exprs(as.Rhs)
		if id, ok := as.Lhs[0].(*ast.Ident); ok {
			bound = id.Name
		}
	} else if es, ok := s.Assign.(*ast.ExprStmt); ok {
		es.X = d.expr(es.X)
	}
	d.clauses(s.Body, bound)
	d.pop()
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

// defineAll declares the left side of a := with the kinds of the right side.
func (d *desugarer) defineAll(lhs, rhs []ast.Expr) {
	var kinds []kind
	if len(lhs) == len(rhs) {
		for _, r := range rhs {
			kinds = append(kinds, d.kindOf(r))
		}
	} else if len(rhs) == 1 {
		kinds = d.resultKinds(rhs[0])
	}
	for i, l := range lhs {
		k := kUnknown
		if i < len(kinds) {
			k = kinds[i]
		}
		d.declareIdent(l, k)
	}
}

// clauses walks the case clauses of a switch or select; bound is a type switch's variable.
func (d *desugarer) clauses(body *ast.BlockStmt, bound string) {
	for _, c := range body.List {
		d.push()
		switch c := c.(type) {
		case *ast.CaseClause:
			if bound == "" {
				d.exprs(c.List)
			} else {
				d.declare(bound, kUnknown)
			}
			d.stmtList(c.Body)
		case *ast.CommClause:
			if c.Comm != nil {
				c.Comm = d.stmt(c.Comm)
			}
			d.stmtList(c.Body)
		}
		d.pop()
	}
}
