package typecheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/scanner"
	"go/token"
	"strings"
)

// The interpreter keeps the first definition of a type and of each method for the whole
// session: a later declaration of the same type or method is ignored, so code would silently
// run the old one. A cell may therefore repeat a declaration word for word (a cell run again),
// and the repeat is dropped; a changed type or method, or a method added to an earlier cell's
// type, is an error that says so.

// redeclarations drops the unit's repeated type and method declarations, records the texts of
// the others, and reports changed ones.
func (c *Cell) redeclarations() List {
	var errs List
	f := c.u.Decls
	keep := f.Decls[:0]
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				errs = append(errs, c.typeSpecs(d)...)
				if len(d.Specs) == 0 {
					continue
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil {
				drop, err := c.method(d)
				if err != nil {
					errs = append(errs, *err)
				}
				if drop {
					continue
				}
			}
		}
		keep = append(keep, d)
	}
	f.Decls = keep
	return errs
}

// typeSpecs handles the type declarations of one group, removing repeated ones from it.
func (c *Cell) typeSpecs(g *ast.GenDecl) List {
	var errs List
	specs := g.Specs[:0]
	for _, sp := range g.Specs {
		ts := sp.(*ast.TypeSpec)
		name := ts.Name.Name
		text := c.text(ts)
		switch old, ok := c.s.decls[name]; {
		case !ok || name == "_":
		case old == preludeDecl:
			errs = append(errs, Error{Pos: ts.Pos(), Msg: fmt.Sprintf("type %s is declared by rlm's API (see the prompt); give your type another name", name)})
			continue
		case old == text:
			continue
		default:
			errs = append(errs, Error{Pos: ts.Pos(), Msg: fmt.Sprintf(
				"type %s is already declared by an earlier cell, differently; a type cannot change in a session (the interpreter keeps its first definition): give the new type another name, such as %s2", name, name)})
			continue
		}
		c.decls[name] = text
		specs = append(specs, ts)
	}
	g.Specs = specs
	return errs
}

// method handles a method declaration: drop reports a repeat of an earlier cell's.
func (c *Cell) method(fd *ast.FuncDecl) (drop bool, err *Error) {
	base := recvBase(fd.Recv)
	if base == "" {
		return false, nil
	}
	key := base + "." + fd.Name.Name
	text := c.text(fd)
	old, seen := c.s.decls[key]
	_, earlierType := c.s.decls[base]
	switch {
	case seen && old == text:
		return true, nil
	case seen:
		return false, &Error{Pos: fd.Pos(), Msg: fmt.Sprintf(
			"method %s is already declared by an earlier cell, differently; a method cannot change in a session (the interpreter keeps its first definition): declare a function instead, or a new type with its methods", key)}
	case earlierType && c.decls[base] == "":
		return false, &Error{Pos: fd.Pos(), Msg: fmt.Sprintf(
			"cannot add method %s: type %s was declared by an earlier cell, and a type's methods must be declared in the cell that declares it; declare a function instead, or a new type with its methods", fd.Name.Name, base)}
	}
	c.decls[key] = text
	return false, nil
}

// recvBase is the name of a receiver's base type: T in (t *T) or (s Stack[T]).
func recvBase(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) != 1 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// text is a declaration as its tokens (comments are not parsed; layout and semicolons do not
// count), so that a declaration repeated with other line breaks is the same.
func (c *Cell) text(n ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, c.u.Fset, n); err != nil {
		return fmt.Sprintf("%p", n) // never equal to another declaration's
	}
	src := b.Bytes()
	var sc scanner.Scanner
	sc.Init(token.NewFileSet().AddFile("", -1, len(src)), src, nil, 0)
	var toks []string
	for {
		_, tok, lit := sc.Scan()
		switch {
		case tok == token.EOF:
			return strings.Join(toks, " ")
		case tok == token.SEMICOLON:
		case lit != "":
			toks = append(toks, lit)
		default:
			toks = append(toks, tok.String())
		}
	}
}
