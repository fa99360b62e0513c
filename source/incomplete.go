package source

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Incomplete reports whether src is an unfinished block that a REPL should keep reading: it has
// unclosed brackets, or ends inside a raw string, a template literal or a block comment. It never
// parses, so it is safe on any input.
func Incomplete(lang Lang, src []byte) bool {
	if lang == JS {
		l := newJSLexer(src, int(^uint(0)>>1))
		for l.i < len(l.src) {
			l.step()
		}
		return len(l.n.stack) > 0 || l.open
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	open := false
	s.Init(fset.AddFile("", -1, len(src)), src, func(_ token.Position, msg string) {
		open = open || strings.Contains(msg, "not terminated")
	}, 0)
	depth := 0
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return depth > 0 || open
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
	}
}
