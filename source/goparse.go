package source

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// ParseGo checks a Go source against the limits in o and parses it. It returns the unit, or
// nil and the findings (a List) that say why there is none: the source is over the size cap or
// nests too deeply (it is then rejected unparsed), or it does not parse.
//
// comments are the source's comments, found by the pre-scan whether or not the source parses,
// for checks of the text the parser does not keep (the validator's directive check); nil when
// the pre-checks reject the source, or o.Unchecked skips them.
func ParseGo(filename string, src []byte, o Options) (u *GoUnit, comments []Comment, err error) {
	o = o.withDefaults()
	p := newPass(Go, filename, src)
	if o.Unchecked {
		toks, _, _ := goScan(src, int(^uint(0)>>1))
		return p.goParse(toks, o.FileSet), nil, p.err()
	}
	if !p.checkSize(o.MaxBytes) {
		return nil, nil, p.err()
	}
	toks, comments, n := goScan(src, o.MaxDepth)
	if !p.checkDepth(&n, o.MaxDepth) {
		return nil, nil, p.err()
	}
	return p.goParse(toks, o.FileSet), comments, p.err()
}

// Prefixes that turn snippet parts into parseable files. Offsets past them map back by subtraction.
const (
	declPrefix = "package main;"
	bodyPrefix = "package main;func main(){"
	bodySuffix = "\n}"
)

// goParse parses a whole program as it is, or a snippet as a declarations file plus a body.
// It parses into fset, or a new FileSet when fset is nil.
func (p *pass) goParse(toks []goToken, fset *token.FileSet) *GoUnit {
	if fset == nil {
		fset = token.NewFileSet()
	}
	u := &GoUnit{Fset: fset, file: p.file, shift: map[*token.File]int{}}
	if len(toks) > 0 && toks[0].tok == token.PACKAGE {
		return p.goProgram(u)
	}
	decls, stmts := splitSnippet(p.file.src, toks)
	f := p.goParseFile(u, decls, declPrefix, "")
	if f == nil {
		return nil
	}
	u.Decls = f
	if stmts == nil {
		return u
	}
	bf := p.goParseFile(u, stmts, bodyPrefix, bodySuffix)
	if bf == nil {
		return nil
	}
	u.Body = bf.Decls[0].(*ast.FuncDecl).Body
	return u
}

func (p *pass) goProgram(u *GoUnit) *GoUnit {
	f := p.goParseFile(u, p.file.src, "", "")
	if f == nil {
		return nil
	}
	u.Decls, u.Program = f, true
	if f.Name.Name != "main" {
		p.report(u.Fset.Position(f.Name.Pos()).Offset, Syntax,
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
// Syntax errors are reported as findings at their positions in the source as written. When the
// parser stumbled on the suffix rlm added (the text ends inside a statement or a bracket), the
// text is parsed again without it, so that the errors speak of the end of the text, not of a
// '}' or a newline the text does not have.
func (p *pass) goParseFile(u *GoUnit, text []byte, prefix, suffix string) *ast.File {
	f, err := parseJoined(u.Fset, p.file.name, prefix, text, suffix)
	if err == nil {
		u.shift[u.Fset.File(f.Pos())] = len(prefix)
		return f
	}
	if suffix != "" && inSuffix(err, len(prefix)+len(text)) {
		_, bare := parseJoined(token.NewFileSet(), p.file.name, prefix, text, "")
		if bare == nil { // the text's own '}' closed what rlm opened: point at that '}'
			if off := unmatchedBrace(text); off >= 0 {
				p.report(off, Syntax, "this '}' has no matching '{': remove it, or add the '{' it closes")
				return nil
			}
		} else {
			err = bare
		}
	}
	p.goSyntax(err, len(prefix))
	return nil
}

// unmatchedBrace is the offset of the first '}' of text that closes no '{' of text, or -1.
func unmatchedBrace(text []byte) int {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(text)), text, func(token.Position, string) {}, 0)
	depth := 0
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return -1
		case token.LBRACE:
			depth++
		case token.RBRACE:
			if depth--; depth < 0 {
				return fset.Position(pos).Offset
			}
		}
	}
}

func parseJoined(fset *token.FileSet, name, prefix string, text []byte, suffix string) (*ast.File, error) {
	full := make([]byte, 0, len(prefix)+len(text)+len(suffix))
	full = append(append(append(full, prefix...), text...), suffix...)
	return parser.ParseFile(fset, name, full, parser.SkipObjectResolution)
}

// inSuffix reports whether a syntax error lies at or past end, in the suffix rlm added.
func inSuffix(err error, end int) bool {
	list, ok := err.(scanner.ErrorList)
	if !ok {
		return false
	}
	for _, e := range list {
		if e.Pos.Offset >= end {
			return true
		}
	}
	return false
}

func (p *pass) goSyntax(err error, shift int) {
	list, ok := err.(scanner.ErrorList)
	if !ok || len(list) == 0 {
		p.report(0, Syntax, err.Error())
		return
	}
	src := p.file.src
	for i, e := range list {
		if i == 10 {
			break
		}
		off, msg := e.Pos.Offset-shift, e.Msg
		if off >= len(src) { // at the end of the text: just after its last character
			off, msg = len(bytes.TrimRight(src, " \t\r\n")), atEnd(msg)
		}
		p.report(off, Syntax, msg)
	}
}

// atEnd words a parser's error at the end of the text as what it is: the code ends there. The
// parser names the end 'EOF', and a list left open "missing ',' before newline" (the newline
// it inserts at the end).
func atEnd(msg string) string {
	if list, ok := strings.CutPrefix(msg, "missing ',' before newline in "); ok {
		closing := map[string]string{"composite literal": "'}'", "type argument list": "']'"}[list]
		if closing == "" {
			closing = "')'"
		}
		return fmt.Sprintf("the code ends inside %s %s: close it with %s", article(list), list, closing)
	}
	return strings.ReplaceAll(msg, "found 'EOF'", "found the end of the code")
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
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
