package typecheck

import (
	"go/ast"
	"go/token"
	"strconv"

	"github.com/rlm-sandbox/rlm/source"
)

// Imports the way goimports adds them: a package name used as a qualifier (strings.Split) that
// nothing in scope declares gets an import, when exactly one allowed package has that name or
// an earlier cell of the same file imported it. Earlier cells' imports persist in the
// interpreter, so they are only added to the file the checker sees; a new one is added to the
// unit too, and listed in Cell.Added.

// qualifiers returns the names used as the operand of a selector (x in x.Sel) that may be
// missing packages. Before the first check (after == false) that is every such name the cell
// does not declare anywhere, in any scope; after it, every such name the check left unresolved.
func (c *Cell) qualifiers(after bool) []string {
	var declared map[string]bool
	if !after {
		declared = declaredNames(c.u)
	}
	seen := map[string]bool{}
	var out []string
	visit := func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || seen[id.Name] {
			return true
		}
		if after {
			if c.Info.Uses[id] != nil || c.Info.Defs[id] != nil {
				return true
			}
		} else if declared[id.Name] || c.own[id.Name] || c.s.objs[id.Name] != nil {
			return true
		}
		seen[id.Name] = true
		out = append(out, id.Name)
		return true
	}
	ast.Inspect(c.u.Decls, visit)
	if c.u.Body != nil {
		ast.Inspect(c.u.Body, visit)
	}
	return out
}

// addImports adds imports for the names that stand for packages, and reports whether it added
// any.
func (c *Cell) addImports(names []string) bool {
	added := false
	for _, n := range names {
		if c.importedHere(n) {
			continue
		}
		if p, ok := c.s.imports[c.file][n]; ok {
			c.extra = append(c.extra, importSpec(n, p, c.u.Decls.Package))
			c.named[n] = p
			added = true
			continue
		}
		p := c.s.byName[n]
		if p == "" || !c.s.lib.Has(p) {
			continue
		}
		c.addToUnit(p)
		c.named[n] = p
		added = true
	}
	return added
}

// importedHere reports whether the cell's file already imports a package under the name n, in
// the unit or among the imports the check added.
func (c *Cell) importedHere(n string) bool {
	for _, sp := range c.u.Decls.Imports {
		if p, err := unquote(sp.Path.Value); err == nil && importName(sp, p) == n {
			return true
		}
	}
	for _, sp := range c.extra {
		if sp.(*ast.ImportSpec).Name.Name == n {
			return true
		}
	}
	return false
}

// addToUnit adds import p to the unit's declarations, first, where the interpreter compiles it.
func (c *Cell) addToUnit(p string) {
	f := c.u.Decls
	spec := importSpec("", p, f.Package)
	f.Decls = append([]ast.Decl{&ast.GenDecl{TokPos: f.Package, Tok: token.IMPORT, Specs: []ast.Spec{spec}}}, f.Decls...)
	f.Imports = append(f.Imports, spec)
	c.Added = append(c.Added, p)
}

// importSpec is `import name "p"` (no name when name is "") at pos.
func importSpec(name, p string, pos token.Pos) *ast.ImportSpec {
	sp := &ast.ImportSpec{Path: &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(p)}}
	if name != "" {
		sp.Name = &ast.Ident{NamePos: pos, Name: name}
	}
	return sp
}

func unquote(s string) (string, error) { return strconv.Unquote(s) }

// importName is the name an import spec binds.
func importName(sp *ast.ImportSpec, p string) string {
	if sp.Name != nil {
		return sp.Name.Name
	}
	return baseName(p)
}

// declaredNames returns every name the unit declares, in any scope: a conservative
// over-approximation of the names that could shadow a package.
func declaredNames(u *source.GoUnit) map[string]bool {
	out := map[string]bool{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			out[id.Name] = true
		}
	}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.ValueSpec:
			add(n.Names...)
		case *ast.TypeSpec:
			add(n.Name)
		case *ast.FuncDecl:
			add(n.Name)
		case *ast.Field:
			add(n.Names...)
		}
		return true
	}
	ast.Inspect(u.Decls, visit)
	if u.Body != nil {
		ast.Inspect(u.Body, visit)
	}
	return out
}
