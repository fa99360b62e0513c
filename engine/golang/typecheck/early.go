package typecheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// declareEarly lets the functions a snippet declares use the variables its top-level
// statements define, as they can from a later cell:
//
//	lines := strings.Split(text(ctx0), "\n")
//	func count(word string) int { … lines … }
//
// The snippet's statements are checked as the body of func _(), where its functions cannot see
// them ("undefined: lines"). For each such error inside a function declaration that names a
// variable the statements define with a type that can be written there, the check file gets a
// package-level declaration of it (var lines []string), as the desugaring pass declares every
// top-level variable at run time. It reports whether it added any; the caller checks again.
func (c *Cell) declareEarly(errs []types.Error) bool {
	if c.body == nil {
		return false
	}
	defined := map[string]types.Type{}
	for _, st := range c.body.Body.List {
		for _, id := range DefinedIdents(st) {
			if v, ok := c.Info.Defs[id].(*types.Var); ok && v.Type() != types.Typ[types.Invalid] {
				defined[id.Name] = v.Type()
			}
		}
	}
	declared := map[string]bool{}
	added := false
	for _, e := range errs {
		name, ok := strings.CutPrefix(e.Msg, "undefined: ")
		t := defined[name]
		fn := c.funcAt(e.Pos)
		if !ok || t == nil || fn == nil || declared[name] {
			continue
		}
		te := c.TypeExpr(t, fn.Pos())
		if te == nil {
			continue
		}
		declared[name] = true
		c.early = append(c.early, &ast.GenDecl{TokPos: fn.Pos(), Tok: token.VAR, Specs: []ast.Spec{
			&ast.ValueSpec{Names: []*ast.Ident{{NamePos: fn.Pos(), Name: name}}, Type: te}}})
		added = true
	}
	return added
}

// funcAt is the cell's function declaration that holds pos, or nil.
func (c *Cell) funcAt(pos token.Pos) *ast.FuncDecl {
	for _, d := range c.u.Decls.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
			return fd
		}
	}
	return nil
}
