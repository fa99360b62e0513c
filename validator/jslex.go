package validator

import (
	"bytes"
	"unicode/utf8"
)

// jsScan estimates the nesting of a JS source without parsing it, and counts its arrows.
//
// It is a lexer, not a parser: it skips strings, template text, comments and regex literals, and
// decides between a regex and a division from the previous token, as parsers do for most inputs.
// Where that guess differs from goja's grammar, the estimate can be off within one line; the size
// cap bounds the worst case (SECURITY.md, "What the validator cannot see").
func jsScan(src []byte, limit int) (n nest, arrows int) {
	n.limit = limit
	l := jsLexer{src: src, regexOK: true}
	for l.i < len(l.src) && !n.over() {
		l.step(&n, &arrows)
	}
	return n, arrows
}

type jsLexer struct {
	src     []byte
	i       int
	regexOK bool   // a '/' here starts a regex literal
	exprEnd bool   // the previous token can end an expression
	newline bool   // a line break since the previous token
	parens  []bool // for each open '(': whether it is the head of if/while/for/with
	braces  []bool // for each open '{': whether it is a template substitution ${
	head    bool   // the previous token is if, while, for or with
	open    bool   // the source ends inside a template literal or a block comment
}

func (l *jsLexer) step(n *nest, arrows *int) {
	c := l.src[l.i]
	switch {
	case c == '\n' || c == '\r':
		l.newline = true
		l.i++
	case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		l.i++
	case c == '/' && l.at(1) == '/':
		l.skipLine()
	case c == '/' && l.at(1) == '*':
		l.skipBlockComment()
	case c == '"' || c == '\'':
		l.token(n, false)
		l.skipString(c)
		l.after(false)
	case c == '`':
		l.token(n, false)
		l.i++
		l.skipTemplate(n)
	case c == '/' && l.regexOK:
		l.token(n, false)
		l.skipRegex()
		l.after(false)
	case isJSIdentStart(c):
		l.word(n)
	case c >= '0' && c <= '9' || c == '.' && l.at(1) >= '0' && l.at(1) <= '9':
		l.token(n, false)
		l.skipNumber()
		l.after(false)
	default:
		l.punct(n, arrows)
	}
}

func (l *jsLexer) at(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

// token is called at the start of every token: a line break between an expression's end and a
// token that starts a new expression is where automatic semicolon insertion ends a statement.
func (l *jsLexer) token(n *nest, continues bool) {
	if l.newline && l.exprEnd && !continues {
		n.reset()
	}
	l.newline = false
}

// after records what the finished token allows next.
func (l *jsLexer) after(regexOK bool) {
	l.regexOK, l.exprEnd, l.head = regexOK, !regexOK, false
}

var jsRegexAfterWord = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true, "extends": true,
}

var jsChainWord = map[string]bool{
	"typeof": true, "void": true, "delete": true, "await": true, "new": true, "yield": true,
	"if": true, "for": true, "while": true, "with": true, "do": true,
}

func (l *jsLexer) word(n *nest) {
	start := l.i
	l.i++ // the first byte may be '#', which only starts a name
	for l.i < len(l.src) && isJSIdentPart(l.src[l.i]) {
		l.i++
	}
	w := l.src[start:l.i]
	l.token(n, string(w) == "in" || string(w) == "instanceof" || string(w) == "of")
	chain := jsChainWord[string(w)]
	if chain {
		n.bump(start)
	}
	l.after(jsRegexAfterWord[string(w)] || chain)
	l.head = isJSHeadWord(string(w))
}

func (l *jsLexer) punct(n *nest, arrows *int) {
	start := l.i
	p := jsPunct(l.src[l.i:])
	l.i += len(p)
	l.token(n, true)
	switch p {
	case "(":
		l.parens = append(l.parens, l.head)
		l.chainStep(n, start)
		n.open(start)
		l.after(true)
	case "[":
		l.chainStep(n, start)
		n.open(start)
		l.after(true)
	case "{", "${":
		l.braces = append(l.braces, p == "${")
		n.open(start)
		l.after(true)
	case ")":
		head := pop(&l.parens)
		n.close()
		l.after(head)
	case "]":
		n.close()
		l.after(false)
	case "}":
		l.closeBrace(n)
	case ";", ",":
		n.reset()
		l.after(true)
	case "++", "--":
		if l.regexOK { // prefix
			n.bump(start)
		}
		l.after(!l.exprEnd)
	case "=>":
		*arrows++
		n.bump(start)
		l.after(true)
	default:
		l.operator(n, p, start)
	}
}

// chainStep counts a call or index that follows an expression, f()()() or a[0][1]: each one
// nests the tree one level deeper.
func (l *jsLexer) chainStep(n *nest, at int) {
	if l.exprEnd {
		n.bump(at)
	}
}

func (l *jsLexer) closeBrace(n *nest) {
	template := pop(&l.braces)
	n.close()
	if template {
		l.skipTemplate(n)
		return
	}
	l.after(true)
}

// operator counts every other punctuator: prefix and right-associative operators make the
// parser recurse, and binary operators and member dots make the tree deeper even where the
// parser loops.
func (l *jsLexer) operator(n *nest, p string, start int) {
	n.bump(start)
	l.after(true)
}

func pop(s *[]bool) bool {
	if len(*s) == 0 {
		return false
	}
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v
}

func isJSHeadWord(w string) bool {
	return w == "if" || w == "while" || w == "for" || w == "with"
}

// jsPuncts is ordered longest first.
var jsPuncts = []string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", "<<", ">>", "**", "${",
}

// punctsByFirst indexes jsPuncts by first byte; oneByte holds every ASCII byte as a string, so
// that lexing allocates nothing per token.
var punctsByFirst, oneByte = func() (by [128][]string, one [128]string) {
	for _, p := range jsPuncts {
		by[p[0]] = append(by[p[0]], p)
	}
	for i := range one {
		one[i] = string(rune(i))
	}
	return by, one
}()

func jsPunct(b []byte) string {
	c := b[0]
	if c >= 0x80 {
		_, size := utf8.DecodeRune(b)
		return string(b[:size])
	}
	for _, p := range punctsByFirst[c] {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			if p == "?." && len(b) > 2 && b[2] >= '0' && b[2] <= '9' {
				continue // a ? .5 : b
			}
			return p
		}
	}
	return oneByte[c]
}

func (l *jsLexer) skipLine() {
	for l.i < len(l.src) && l.src[l.i] != '\n' && l.src[l.i] != '\r' {
		l.i++
	}
}

func (l *jsLexer) skipBlockComment() {
	end := bytes.Index(l.src[l.i+2:], []byte("*/"))
	if end < 0 {
		l.i = len(l.src)
		l.open = true
		return
	}
	if bytes.ContainsAny(l.src[l.i:l.i+2+end], "\n\r") {
		l.newline = true
	}
	l.i += end + 4
}

// skipString skips a quoted string. A line break ends it (an unterminated string is a syntax error
// the parser will report), so a mistaken guess cannot hide more than one line.
func (l *jsLexer) skipString(q byte) {
	l.i++
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i += 2
		case c == q:
			l.i++
			return
		case c == '\n' || c == '\r':
			return
		default:
			l.i++
		}
	}
}

// skipTemplate skips template text up to the closing backquote or a ${ substitution.
func (l *jsLexer) skipTemplate(n *nest) {
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i += 2
		case c == '`':
			l.i++
			l.after(false)
			return
		case c == '$' && l.at(1) == '{':
			l.braces = append(l.braces, true)
			n.open(l.i)
			l.i += 2
			l.after(true)
			return
		default:
			l.i++
		}
	}
	l.open = true
}

func (l *jsLexer) skipRegex() {
	l.i++
	class := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\\':
			l.i += 2
			continue
		case c == '\n' || c == '\r':
			return
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.i++
			for l.i < len(l.src) && isJSIdentPart(l.src[l.i]) {
				l.i++
			}
			return
		}
		l.i++
	}
}

func (l *jsLexer) skipNumber() {
	for l.i < len(l.src) {
		c := l.src[l.i]
		if isJSIdentPart(c) || c == '.' {
			l.i++
			continue
		}
		if (c == '+' || c == '-') && (l.src[l.i-1] == 'e' || l.src[l.i-1] == 'E') {
			l.i++
			continue
		}
		return
	}
}

func isJSIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || c == '#' || c >= 0x80 ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isJSIdentPart(c byte) bool {
	return isJSIdentStart(c) && c != '#' || c >= '0' && c <= '9'
}
