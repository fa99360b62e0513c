package source

import (
	"fmt"
	"go/scanner"
	"go/token"
)

// nest estimates how deeply a parser will recurse, from tokens alone.
//
// Brackets nest. Between brackets, "chain" tokens (prefix operators, right-associative operators,
// statement keywords that take a statement) each add one level, because parsers recurse on them
// too (!!!!x, a=b=c, x=>y=>z, if(a) if(b) ...). A separator (';' or ',') ends a chain: the depth
// drops back to the level of the innermost open bracket. A closing bracket restores the depth
// that was current before its opening bracket.
type nest struct {
	stack []int
	cur   int
	max   int
	maxAt int
	limit int // scanning may stop once max exceeds it
}

// over reports that the estimate is past the limit, so scanning can stop.
func (n *nest) over() bool { return n.max > n.limit }

func (n *nest) open(off int) {
	n.stack = append(n.stack, n.cur)
	n.bump(off)
}

func (n *nest) close() {
	if len(n.stack) == 0 {
		n.cur = 0
		return
	}
	n.cur = n.stack[len(n.stack)-1]
	n.stack = n.stack[:len(n.stack)-1]
}

func (n *nest) bump(off int) {
	n.cur++
	if n.cur > n.max {
		n.max, n.maxAt = n.cur, off
	}
}

// reset ends the current chain.
func (n *nest) reset() {
	if len(n.stack) == 0 {
		n.cur = 0
		return
	}
	n.cur = n.stack[len(n.stack)-1] + 1
}

// checkSize reports a source over the size cap. Nothing else may run on such a source.
func (p *pass) checkSize(limit int) bool {
	if n := len(p.file.src); n > limit {
		p.report(0, Size, fmt.Sprintf("source is %d bytes, over the limit of %d", n, limit))
		return false
	}
	return true
}

// checkDepth reports a nesting estimate over the cap.
func (p *pass) checkDepth(n *nest, limit int) bool {
	if n.max > limit {
		p.report(n.maxAt, Depth, fmt.Sprintf("nesting reaches depth %d, over the limit of %d", n.max, limit))
		return false
	}
	return true
}

// goToken is one token of a Go source: where it starts and what it is.
type goToken struct {
	off int32
	tok token.Token
}

// goScan tokenizes a Go source once: the tokens (comments excluded) for splitting snippets, the
// comments for the directive check, and the nesting estimate. It never recurses.
func goScan(src []byte, limit int) (toks []goToken, comments []Comment, n nest) {
	n.limit = limit
	toks = make([]goToken, 0, len(src)/4+8)
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) {}, scanner.ScanComments)
	prev := token.ILLEGAL
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF || n.over() {
			return toks, comments, n
		}
		off := file.Offset(pos)
		if tok == token.COMMENT {
			comments = append(comments, Comment{off, lit})
			continue
		}
		toks = append(toks, goToken{int32(off), tok})
		goNest(&n, off, prev, tok)
		prev = tok
	}
}

func goNest(n *nest, off int, prev, tok token.Token) {
	switch {
	case tok == token.LPAREN || tok == token.LBRACE || tok == token.LBRACK:
		if tok != token.LBRACE && goOperandEnd(prev) {
			n.bump(off) // f()()(), a[0][1][2], [][]T: each step nests in the tree
		}
		n.open(off)
	case tok == token.RPAREN || tok == token.RBRACK || tok == token.RBRACE:
		n.close()
	case tok == token.SEMICOLON || tok == token.COMMA:
		n.reset()
	case tok == token.FUNC || tok == token.CHAN || tok == token.MAP || tok == token.PERIOD:
		n.bump(off)
	case tok.IsOperator() && tok != token.COLON && tok != token.ELLIPSIS:
		n.bump(off) // prefix operators nest, and so does every binary operator in a chain
	}
}

// goOperandEnd reports whether a token can end an operand, so that an operator after it is binary.
func goOperandEnd(t token.Token) bool {
	switch t {
	case token.IDENT, token.INT, token.FLOAT, token.IMAG, token.CHAR, token.STRING,
		token.RPAREN, token.RBRACK, token.RBRACE:
		return true
	}
	return false
}
