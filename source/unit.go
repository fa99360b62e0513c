package source

import (
	"go/ast"
	"go/token"

	jsast "github.com/dop251/goja/ast"
	jsfile "github.com/dop251/goja/file"

	"github.com/rlm-sandbox/rlm/fault"
)

// GoUnit is a parsed Go source.
//
// A source that starts with a package clause is a whole program: it must be package main, and if
// it declares func main the engine runs main once. Any other source is a REPL snippet: imports,
// then any mix of declarations and statements. The snippet's declarations (imports, func, type,
// var, const) form Decls; its statements, in order, form Body. Both are parsed from the original
// text with the other part blanked out, so every position refers to the source as written.
type GoUnit struct {
	Fset    *token.FileSet
	Decls   *ast.File      // package main with the imports and top-level declarations; never nil
	Body    *ast.BlockStmt // the top-level statements of a snippet; nil when there are none
	Program bool           // the source had its own package clause
	HasMain bool           // a whole program that declares func main

	file  *File
	shift map[*token.File]int // per parsed file, the length of the prefix before the source
}

// Position resolves a position from Decls or Body against the source as written.
func (u *GoUnit) Position(p token.Pos) fault.Position {
	f := u.Fset.File(p)
	if f == nil {
		return fault.Position{Filename: u.file.name}
	}
	return u.file.Position(f.Offset(p) - u.shift[f])
}

// Comment is one comment of a Go source, as the pre-scan found it (the parser keeps none).
type Comment struct {
	Offset int    // where it starts in the source as written
	Text   string // with its markers: //... or /*...*/
}

// JSUnit is a parsed JavaScript source.
type JSUnit struct {
	Program *jsast.Program
	file    *File
}

// SyntaxHint is the fix to add to goja's syntax error msg at byte offset off of the source as
// written ("" when rlm knows none): a regex literal with an inline flag, /(?m)^x/.
func (u *JSUnit) SyntaxHint(off int, msg string) string { return inlineFlagHint(u.file.src, off, msg) }

// Position resolves a goja index against the source as written.
func (u *JSUnit) Position(idx jsfile.Idx) fault.Position {
	return u.file.Position(int(idx) - 1)
}
