package typecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"

	"github.com/rlm-sandbox/rlm/source"
)

// A Session type-checks the cells of one REPL session, in order, each against the declarations
// of the cells before it. It is not safe for concurrent use.
type Session struct {
	lib     *Library
	allowed map[string]bool   // import paths cells may import
	byName  map[string]string // allowed import path by package name ("" when two share a name)
	prelude string            // source of the trusted prelude, package main
	hidden  map[string]bool   // packages only the prelude may import

	base    map[string]types.Object      // package-level objects of the prelude
	objs    map[string]types.Object      // package-level objects of the prelude and earlier cells
	imports map[string]map[string]string // per file name: import name -> path, of earlier cells
	decls   map[string]string            // "T" and "T.M" -> text of earlier types and methods
	depths  map[string]int               // estimated depths of earlier types (see typeDepths)
	loaded  bool
}

// NewSession returns a session whose cells may import the packages of imports (import paths)
// that lib has, and see the declarations of prelude (the source of a file of package main, which
// may import the packages listed in hidden).
func NewSession(lib *Library, imports []string, prelude string, hidden ...string) *Session {
	s := &Session{
		lib: lib, allowed: map[string]bool{}, byName: map[string]string{}, prelude: prelude,
		hidden: map[string]bool{}, base: map[string]types.Object{}, objs: map[string]types.Object{},
		imports: map[string]map[string]string{}, decls: map[string]string{}, depths: map[string]int{},
	}
	for _, ip := range imports {
		s.allowed[ip] = true
		n := baseName(ip)
		if _, dup := s.byName[n]; dup {
			s.byName[n] = ""
		} else {
			s.byName[n] = ip
		}
	}
	for _, h := range hidden {
		s.hidden[h] = true
	}
	return s
}

// loadPrelude checks the prelude once, on the first cell: a session that never runs a cell
// never pays for it.
func (s *Session) loadPrelude() error {
	if s.loaded {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "rlm_prelude.go", s.prelude, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("the prelude: %w", err)
	}
	imp := importerFunc(func(p string) (*types.Package, error) {
		if !s.allowed[p] && !s.hidden[p] {
			return nil, fmt.Errorf("package %q is not allowed", p)
		}
		return s.lib.Import(p)
	})
	conf := types.Config{Importer: imp, GoVersion: goVersion}
	pkg, err := conf.Check("main", fset, []*ast.File{f}, nil)
	if err != nil {
		return fmt.Errorf("the prelude: %w", err)
	}
	for _, n := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(n)
		s.objs[n], s.base[n] = obj, obj
		if _, ok := obj.(*types.TypeName); ok {
			s.decls[n] = preludeDecl
		}
	}
	s.loaded = true
	return nil
}

// preludeDecl marks the prelude's types in Session.decls: no cell can redeclare them.
const preludeDecl = "\x00prelude"

// A Cell is a checked unit: its type information, valid until the unit's AST is changed, and
// what the check changed in the unit.
type Cell struct {
	Info  *types.Info
	Added []string // import paths added to the unit's declarations: used, not imported

	s        *Session
	u        *source.GoUnit
	pkg      *types.Package
	file     string            // the cell's file name: imports persist per file name
	body     *ast.FuncDecl     // the snippet's statements, checked as the body of func _()
	own      map[string]bool   // package-level names the cell's declarations declare
	extra    []ast.Spec        // imports of earlier cells the cell uses (checked, not compiled again)
	named    map[string]string // import name -> path in the cell's file, this cell's and earlier
	decls    map[string]string // texts of the cell's types and methods
	depths   map[string]int    // estimated depths of the cell's types
	bodyVars []*types.Var      // variables the snippet's top-level statements define
	prior    map[string]types.Object
	early    []ast.Decl // package-level declarations of body variables the cell's functions use (see declareEarly)
}

// Check type-checks a validated unit against the session: it adds imports the unit uses but
// lacks (allowed packages, and those earlier cells of the same file imported), drops
// declarations that repeat earlier ones word for word (the interpreter keeps a type's first
// definition), and returns the cell, or the errors (a List) gc would report, minus those a REPL
// should not be stopped by. It never panics and reads no file.
func (s *Session) Check(u *source.GoUnit) (c *Cell, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("internal error in the Go type checker: %v", r)
		}
	}()
	if c := s.importsOnly(u); c != nil {
		return c, nil
	}
	if err := s.loadPrelude(); err != nil {
		return nil, fmt.Errorf("internal error in the Go type checker: %w", err)
	}
	HoistVars(u)
	c = &Cell{
		s: s, u: u, file: filepath.Base(u.Fset.Position(u.Decls.Pos()).Filename),
		own: map[string]bool{}, named: map[string]string{}, decls: map[string]string{}, depths: map[string]int{},
		prior: s.objs,
	}
	if errs := c.redeclarations(); len(errs) > 0 {
		return nil, errs
	}
	if errs := c.typeDepths(); len(errs) > 0 {
		return nil, errs
	}
	c.collectOwn()
	if u.Body != nil && !u.Program {
		c.body = &ast.FuncDecl{Name: ast.NewIdent("_"), Type: &ast.FuncType{Func: u.Body.Lbrace, Params: &ast.FieldList{}}, Body: u.Body}
	}
	for n, p := range s.imports[c.file] {
		c.named[n] = p
	}
	c.ownImports()
	c.addImports(c.qualifiers(false))
	errs := c.check()
	if len(errs) > 0 && c.addImports(c.qualifiers(true)) {
		errs = c.check()
	}
	if len(errs) > 0 && c.declareEarly(errs) {
		errs = c.check()
	}
	if l := c.report(errs); len(l) > 0 {
		return nil, l
	}
	c.collectBodyVars()
	return c, nil
}

// importsOnly returns the checked cell of a unit made of imports of allowed packages only (a
// session's first cell often is: import "fmt"), without loading the prelude or any package:
// nothing in it can be wrong, and a session's start stays as cheap as without the checker.
// It returns nil for any other unit.
func (s *Session) importsOnly(u *source.GoUnit) *Cell {
	if u.Body != nil || u.Program {
		return nil
	}
	for _, d := range u.Decls.Decls {
		if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
			return nil
		}
	}
	for _, sp := range u.Decls.Imports {
		p, err := unquote(sp.Path.Value)
		if err != nil || !s.allowed[p] || !s.lib.Has(p) {
			return nil
		}
	}
	return &Cell{
		Info: &types.Info{}, s: s, u: u, pkg: types.NewPackage("main", "main"),
		file:  filepath.Base(u.Fset.Position(u.Decls.Pos()).Filename),
		decls: map[string]string{}, depths: map[string]int{}, prior: s.objs,
	}
}

// collectOwn records the package-level names the cell's declarations declare: they replace
// earlier ones of the same name.
func (c *Cell) collectOwn() {
	for _, d := range c.u.Decls.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				c.own[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					c.own[sp.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						c.own[n.Name] = true
					}
				}
			}
		}
	}
}

// ownImports records the cell's own imports under their names.
func (c *Cell) ownImports() {
	for _, sp := range c.u.Decls.Imports {
		if p, err := unquote(sp.Path.Value); err == nil {
			c.named[importName(sp, p)] = p
		}
	}
}

// check runs go/types over the cell, with the earlier cells' objects in the package scope.
func (c *Cell) check() []types.Error {
	c.pkg = types.NewPackage("main", "main")
	scope := c.pkg.Scope()
	for n, o := range c.s.objs {
		if !c.own[n] {
			scope.Insert(o)
		}
	}
	c.Info = &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Instances: map[*ast.Ident]types.Instance{},
		Scopes: map[ast.Node]*types.Scope{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	var errs []types.Error
	conf := types.Config{
		Importer:  importerFunc(c.importPackage),
		GoVersion: goVersion,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				errs = append(errs, te)
			}
		},
	}
	_ = types.NewChecker(&conf, c.u.Fset, c.pkg, c.Info).Files([]*ast.File{c.checkFile()})
	return errs
}

func (c *Cell) importPackage(p string) (*types.Package, error) {
	if !c.s.allowed[p] {
		return nil, fmt.Errorf("package %q is not allowed", p)
	}
	return c.s.lib.Import(p)
}

// checkFile is the unit as one file: the imports of earlier cells it uses, its declarations,
// and a snippet's statements as the body of func _().
func (c *Cell) checkFile() *ast.File {
	f := *c.u.Decls
	decls := make([]ast.Decl, 0, len(f.Decls)+2)
	if len(c.extra) > 0 {
		decls = append(decls, &ast.GenDecl{TokPos: f.Package, Tok: token.IMPORT, Specs: c.extra})
	}
	decls = append(decls, c.early...)
	decls = append(decls, f.Decls...)
	if c.body != nil {
		decls = append(decls, c.body)
	}
	f.Decls = decls
	return &f
}

// collectBodyVars records the variables a snippet's top-level statements define, in order.
func (c *Cell) collectBodyVars() {
	if c.body == nil {
		return
	}
	for _, st := range c.body.Body.List {
		for _, id := range DefinedIdents(st) {
			if v, ok := c.Info.Defs[id].(*types.Var); ok {
				c.bodyVars = append(c.bodyVars, v)
			}
		}
	}
}

// DefinedIdents returns the identifiers a top-level statement declares: the left side of :=
// (those new and those reused) and the names of a var declaration.
func DefinedIdents(st ast.Stmt) []*ast.Ident {
	var out []*ast.Ident
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					out = append(out, id)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, sp := range g.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}

// Prior returns the package-level object an earlier cell (or the prelude) declared under name.
func (c *Cell) Prior(name string) types.Object { return c.prior[name] }

// Prelude returns the prelude's package-level object of that name, or nil.
func (c *Cell) Prelude(name string) types.Object { return c.s.base[name] }

// TypeNames returns the non-generic defined types the cells declared (not the prelude's) that
// are in scope at package level in this cell, sorted by name.
func (c *Cell) TypeNames() []*types.TypeName {
	var out []*types.TypeName
	scope := c.pkg.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() || c.s.base[n] == tn {
			continue
		}
		if named, ok := tn.Type().(*types.Named); ok && named.TypeParams().Len() == 0 {
			out = append(out, tn)
		}
	}
	return out
}

// Commit records the cell in the session once its declarations ran: its imports, types,
// functions, constants and package-level variables, and, when body is true (its statements
// compiled), the variables its statements define.
func (c *Cell) Commit(body bool) {
	s := c.s
	if s.imports[c.file] == nil {
		s.imports[c.file] = map[string]string{}
	}
	for _, sp := range c.u.Decls.Imports {
		if p, err := unquote(sp.Path.Value); err == nil {
			s.imports[c.file][importName(sp, p)] = p
		}
	}
	scope := c.pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if obj.Pkg() != c.pkg || c.u.Program && n == "main" {
			continue // an earlier cell's, or a program's main (renamed when it runs)
		}
		s.objs[n] = obj
	}
	for k, v := range c.decls {
		s.decls[k] = v
	}
	for k, v := range c.depths {
		s.depths[k] = v
	}
	if body {
		for _, v := range c.bodyVars {
			s.objs[v.Name()] = types.NewVar(v.Pos(), c.pkg, v.Name(), v.Type())
		}
	}
}
