package validator

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// goSource runs the Go pipeline: size, one scan (depth, directives, snippet items), parse, check.
func (c *checker) goSource() *GoUnit {
	if c.parseOnly {
		toks, _, _ := goScan(c.src, int(^uint(0)>>1))
		return c.goParse(toks)
	}
	if !c.checkSize() {
		return nil
	}
	toks, comments, n := goScan(c.src, c.pol.MaxDepth)
	if !c.checkDepth(&n) {
		return nil
	}
	c.checkDirectives(comments)
	u := c.goParse(toks)
	if u != nil {
		c.goCheck(u)
	}
	return u
}

// checkDirectives rejects comments that compilers or interpreters act on.
func (c *checker) checkDirectives(comments []goComment) {
	for _, cm := range comments {
		text := cm.text
		body := strings.TrimLeft(text[2:], " \t")
		switch {
		case strings.HasPrefix(text, "//go:"), strings.HasPrefix(text, "/*go:"):
			c.report(cm.off, Directive, fmt.Sprintf("compiler directive %q", firstLine(text)))
		case strings.HasPrefix(text, "//line "), strings.HasPrefix(text, "/*line "):
			c.report(cm.off, Directive, "//line directive (it would change reported positions)")
		case strings.HasPrefix(text, "//export "):
			c.report(cm.off, Directive, "cgo //export directive")
		case hasYaegiDirective(text):
			c.report(cm.off, Directive, "yaegi directive (yaegi reads it from the comment text)")
		case strings.HasPrefix(body, "#cgo"), strings.Contains(text, "\n#cgo"):
			c.report(cm.off, Directive, "#cgo directive")
		}
	}
}

// hasYaegiDirective reports a "yaegi:" line in a comment: yaegi reads directives from the
// comment's text, after the comment markers and leading spaces.
func hasYaegiDirective(comment string) bool {
	text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(comment, "//"), "/*"), "*/")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t*"), "yaegi:") {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// Prefixes that turn snippet parts into parseable files. Offsets past them map back by subtraction.
const (
	declPrefix = "package main;"
	bodyPrefix = "package main;func main(){"
	bodySuffix = "\n}"
)

// goParse parses a whole program as it is, or a snippet as a declarations file plus a body.
func (c *checker) goParse(toks []goToken) *GoUnit {
	fset := c.fset
	if fset == nil {
		fset = token.NewFileSet()
	}
	u := &GoUnit{Fset: fset, pos: c.pos}
	u.pos.shift = map[*token.File]int{}
	if len(toks) > 0 && toks[0].tok == token.PACKAGE {
		return c.goProgram(u)
	}
	decls, stmts := splitSnippet(c.src, toks)
	f := c.goParseFile(u, decls, declPrefix, "")
	if f == nil {
		return nil
	}
	u.Decls = f
	if stmts == nil {
		return u
	}
	bf := c.goParseFile(u, stmts, bodyPrefix, bodySuffix)
	if bf == nil {
		return nil
	}
	u.Body = bf.Decls[0].(*ast.FuncDecl).Body
	return u
}

func (c *checker) goProgram(u *GoUnit) *GoUnit {
	f := c.goParseFile(u, c.src, "", "")
	if f == nil {
		return nil
	}
	u.Decls, u.Program = f, true
	if f.Name.Name != "main" {
		c.report(u.Fset.Position(f.Name.Pos()).Offset, Syntax,
			fmt.Sprintf("package %s: a whole program must be package main", f.Name.Name))
		return nil
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			u.HasMain = true
		}
	}
	return u
}

// goParseFile parses prefix+text+suffix and records the prefix length for position mapping.
// Syntax errors are reported as findings at their positions in the source as written.
func (c *checker) goParseFile(u *GoUnit, text []byte, prefix, suffix string) *ast.File {
	full := make([]byte, 0, len(prefix)+len(text)+len(suffix))
	full = append(append(append(full, prefix...), text...), suffix...)
	f, err := parser.ParseFile(u.Fset, c.pos.name, full, parser.SkipObjectResolution)
	if err != nil {
		c.goSyntax(err, len(prefix))
		return nil
	}
	u.pos.shift[u.Fset.File(f.Pos())] = len(prefix)
	return f
}

func (c *checker) goSyntax(err error, shift int) {
	list, ok := err.(scanner.ErrorList)
	if !ok || len(list) == 0 {
		c.report(0, Syntax, err.Error())
		return
	}
	for i, e := range list {
		if i == 10 {
			break
		}
		c.report(e.Pos.Offset-shift, Syntax, e.Msg)
	}
}

// splitSnippet separates a snippet's top-level items into declarations and statements. Each
// result is the whole source with the other kind's items blanked to spaces (line breaks kept), so
// offsets are unchanged. stmts is nil when the snippet has no statements.
func splitSnippet(src []byte, toks []goToken) (decls, stmts []byte) {
	decls = bytes.Clone(src)
	stmts = bytes.Clone(src)
	hasStmt := false
	depth, start := 0, -1
	for i, t := range toks {
		if start < 0 {
			start = i
		}
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		last := i == len(toks)-1 // an unbalanced item ends here too, so the parser reports it in place
		if !last && (depth != 0 || t.tok != token.SEMICOLON) {
			continue
		}
		end := len(src)
		if i+1 < len(toks) {
			end = int(toks[i+1].off)
		}
		if isDeclItem(toks[start:]) {
			blank(stmts[toks[start].off:end])
		} else {
			blank(decls[toks[start].off:end])
			hasStmt = true
		}
		start = -1
	}
	if !hasStmt {
		stmts = nil
	}
	return decls, stmts
}

// isDeclItem reports whether the item starting at toks[0] is a declaration.
func isDeclItem(toks []goToken) bool {
	switch toks[0].tok {
	case token.IMPORT, token.TYPE, token.CONST, token.VAR:
		return true
	case token.FUNC:
		return len(toks) > 1 && (toks[1].tok == token.IDENT || isMethodDecl(toks[1:]))
	}
	return false
}

// isMethodDecl tells "func (r T) Name(" from a function literal "func (x int) int {": after the
// first parenthesised list, a method has its name followed by '(' or '['.
func isMethodDecl(toks []goToken) bool {
	if toks[0].tok != token.LPAREN {
		return false
	}
	depth := 0
	for i, t := range toks {
		switch t.tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			depth--
			if depth == 0 {
				return i+2 < len(toks) && toks[i+1].tok == token.IDENT &&
					(toks[i+2].tok == token.LPAREN || toks[i+2].tok == token.LBRACK)
			}
		}
	}
	return false
}

// blank replaces every byte but line breaks with a space.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}
