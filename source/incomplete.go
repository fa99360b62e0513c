package source

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Incomplete reports whether src is an unfinished block that a REPL should keep reading: it has
// unclosed brackets, ends inside a raw string, a template literal or a block comment, or ends
// with an operator that needs an operand after it (`x := 1 +`, `const s = a ??`, `obj.`). It
// never parses, so it is safe on any input.
func Incomplete(lang Lang, src []byte) bool {
	if lang == JS {
		l := newJSLexer(src, int(^uint(0)>>1))
		for l.i < len(l.src) {
			l.step()
		}
		return len(l.n.stack) > 0 || l.open || jsContinues[l.last]
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	open := false
	s.Init(fset.AddFile("", -1, len(src)), src, func(_ token.Position, msg string) {
		open = open || strings.Contains(msg, "not terminated")
	}, 0)
	depth, last := 0, token.ILLEGAL
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return depth > 0 || open || goContinues(last)
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if tok != token.COMMENT {
			last = tok
		}
	}
}

// goContinues: a line that ends with tok goes on on the next line: a binary operator, an
// assignment, '.', ',', ':' or '!' (after which Go inserts no semicolon).
func goContinues(tok token.Token) bool {
	switch tok {
	case token.RPAREN, token.RBRACK, token.RBRACE, token.SEMICOLON, token.INC, token.DEC:
		return false
	}
	return tok.IsOperator()
}

// jsContinues are the punctuators a JS line cannot end a statement with: it goes on on the next
// line.
var jsContinues = func() map[string]bool {
	m := map[string]bool{"+": true, "-": true, "/": true, ",": true, "?": true, "=>": true,
		"...": true, "!": true, "~": true, ".": true, "?.": true}
	for p := range jsBinaryOnly {
		m[p] = true
	}
	return m
}()
