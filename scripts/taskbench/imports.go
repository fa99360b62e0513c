package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/rlm-sandbox/rlm/validator"
)

// allowed maps a package name to the one import path of the packages a Go cell may import that
// has it ("" when two share the name), as rlm's type checker completes a forgotten import.
var allowed = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, p := range (validator.Policy{}).Effective().Go.Imports {
		n := path.Base(p)
		if _, dup := m[n]; dup {
			m[n] = ""
		} else {
			m[n] = p
		}
	}
	return m
})

// standinNames are the stand-in's package-level names, which a cell sees as rlm's prelude.
var standinNames = sync.OnceValue(func() map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "standin.go", standinGo, 0)
	if err != nil {
		panic(err) // a test builds the stand-in
	}
	return declaredNames(f)
})

// fixImports adds the imports of the allowed packages a file uses as qualifiers without
// importing them (when no declaration of the file or the stand-in has the name), and removes
// the imports it never uses, as Go requires and rlm does not.
func fixImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	declared := declaredNames(f)
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	imported := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			g.Specs = pruneImports(g.Specs, used, imported)
		}
	}
	var missing []string
	for name := range used {
		if p := allowed()[name]; p != "" && !imported[name] && !declared[name] && !standinNames()[name] {
			missing = append(missing, strconv.Quote(p))
		}
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return nil, err
	}
	out := b.Bytes()
	if len(missing) > 0 {
		out = bytes.Replace(out, []byte("package main\n"), []byte("package main\n\nimport ("+strings.Join(missing, "; ")+")\n"), 1)
	}
	return format.Source(out)
}

// pruneImports drops the specs whose name is not used, and notes the names kept.
func pruneImports(specs []ast.Spec, used, imported map[string]bool) []ast.Spec {
	var kept []ast.Spec
	for _, sp := range specs {
		is := sp.(*ast.ImportSpec)
		p, _ := strconv.Unquote(is.Path.Value)
		name := path.Base(p)
		if strings.HasPrefix(name, "v") && strings.Contains(p, "/") {
			if _, err := strconv.Atoi(name[1:]); err == nil {
				name = path.Base(path.Dir(p)) // math/rand/v2
			}
		}
		if is.Name != nil {
			name = is.Name.Name
		}
		if used[name] || name == "_" || name == "." {
			kept = append(kept, sp)
			imported[name] = true
		}
	}
	return kept
}

// declaredNames is every name the file declares, in any scope: a package name used as a
// qualifier that is declared somewhere is not taken for a forgotten import.
func declaredNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			out[id.Name] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Name)
		case *ast.Field:
			add(n.Names...)
		case *ast.ValueSpec:
			add(n.Names...)
		case *ast.TypeSpec:
			add(n.Name)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
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
		}
		return true
	})
	return out
}
