package typecheck

import (
	"go/ast"
	"go/token"

	"github.com/rlm-sandbox/rlm/source"
)

// HoistVars moves a snippet's var declarations whose initial values use variables its
// statements define (x := 1; var y = x + 1) from the declarations, which run first, into the
// statements, at their place in the source, which is where a REPL runs them. Check does it first;
// a cell run unchecked needs it too.
func HoistVars(u *source.GoUnit) {
	if u.Body == nil || u.Program {
		return
	}
	defined := map[string]bool{}
	for _, s := range u.Body.List {
		for _, id := range DefinedIdents(s) {
			defined[id.Name] = true
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
			insertStmt(u, &ast.DeclStmt{Decl: g})
			for _, id := range DefinedIdents(&ast.DeclStmt{Decl: g}) {
				defined[id.Name] = true
			}
			moved = true
			break
		}
	}
}

func insertStmt(u *source.GoUnit, s ast.Stmt) {
	off := u.Position(s.Pos()).Offset
	list := u.Body.List
	i := 0
	for i < len(list) && u.Position(list[i].Pos()).Offset < off {
		i++
	}
	u.Body.List = append(list[:i], append([]ast.Stmt{s}, list[i:]...)...)
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
