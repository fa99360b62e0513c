package source

// goja's parser does not stop at a syntax error: where an expression must start and another
// token stands, it skips every token up to the next statement keyword (jsResync), closing
// brackets included, and goes on parsing inside the brackets it never closed. Repeated, that
// nests deeper at every error while the brackets look balanced ("do x=[[[[;]]]];" over and
// over). The lexer follows it where the error is certain from two tokens: it stops counting at
// the error, skips as goja does ('/' a division, '`' a plain token, brackets ignored), and
// resumes at the keyword with the brackets that were open.

// operandNext are the punctuators after which an expression must start. (Keywords are left
// out: class A { delete = 1 } and { in: 1 } use them as names.)
var operandNext = func() map[string]bool {
	m := map[string]bool{"(": true, "[": true, ",": true, "?": true, "=>": true, "...": true,
		"!": true, "~": true, "++": true, "--": true}
	for p := range jsBinaryOnly {
		m[p] = true
	}
	return m
}()

// jsBinaryOnly are the punctuators that only join two operands (assignments included): none
// can start an expression.
var jsBinaryOnly = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "**=": true,
	"<<=": true, ">>=": true, ">>>=": true, "&=": true, "|=": true, "^=": true, "&&=": true,
	"||=": true, "??=": true, "*": true, "%": true, "**": true, "==": true, "!=": true,
	"===": true, "!==": true, "<": true, ">": true, "<=": true, ">=": true, "<<": true,
	">>": true, ">>>": true, "&": true, "|": true, "^": true, "&&": true, "||": true, "??": true,
}

// noOperand are the punctuators that cannot start an expression.
var noOperand = func() map[string]bool {
	m := map[string]bool{";": true, ")": true, "]": true, "}": true, ":": true, "?": true,
		"=>": true, "?.": true, ",": true}
	for p := range jsBinaryOnly {
		m[p] = true
	}
	return m
}()

// syntaxError reports whether punctuator p, where it stands, is a syntax error at which goja
// skips tokens: a ';' directly inside [ ] or a call's ( ), or a token that cannot start an
// expression where one must (x = ;, [=], f(a, *)). Empty brackets, elisions and trailing commas
// are not errors.
func (l *jsLexer) syntaxError(p string) bool {
	kind := byte(0)
	if len(l.kinds) > 0 {
		kind = l.kinds[len(l.kinds)-1]
	}
	if p == ";" && (kind == '[' || kind == '(' && len(l.parens) > 0 && l.parens[len(l.parens)-1] == flagNo) {
		return true
	}
	if l.afterKey && p != ":" && p != "(" && p != "," && p != "}" && p != "=" {
		return true // { a b }, { a; }
	}
	if !(operandNext[l.prev] || l.prev == ":" && kind == 'o') || !noOperand[p] {
		return false
	}
	switch {
	case p == ")" && (l.prev == "(" || l.prev == ","),
		(p == "]" || p == ",") && (l.prev == "[" || l.prev == "," && kind == '['),
		p == "}" && (l.prev == "," || l.prev == "{"),
		p == ";" && l.prev == "(" && kind == '(' && len(l.parens) > 0 && l.parens[len(l.parens)-1] != flagNo:
		return false
	}
	return true
}

// skipRead reads one token as goja does while it skips to a statement keyword, and stops
// skipping at one.
func (l *jsLexer) skipRead() {
	c := l.src[l.i]
	l.upd = l.upd[:0] // goja skips the rest of any operand: nothing more to tell of it
	l.recovered = true
	if c > ' ' && c != '/' { // goja reads each skipped token: it counts as work (comments do not)
		l.addWork(1)
	}
	switch {
	case c == '\n' || c == '\r':
		l.newline = true
		l.i++
	case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		l.i++
	case c >= 0x80 && l.unicodeSpace():
	case c == '/' && l.at(1) == '/':
		l.skipLine()
	case c == '/' && l.at(1) == '*':
		l.skipBlockComment()
	case c == '"' || c == '\'':
		l.skipString(c)
	case c >= '0' && c <= '9':
		l.skipNumber()
	case isJSIdentStart(c):
		start := l.i
		l.i++
		for l.i < len(l.src) && l.identPart() {
		}
		if jsResync[string(l.src[start:l.i])] {
			l.skipping = false
			l.resyncAt(start)
		}
	default:
		l.i += len(jsPunct(l.src[l.i:]))
	}
}

// objectKey follows an object literal's property list: after its '{' or a ',' comes a key (a
// name, a string, a number, possibly after get, set, async or *), and after a key only ':',
// '(', ',', '}' or '='. It reports a token that breaks that rule.
func (l *jsLexer) objectKey(modifier, operand bool) bool {
	if l.afterKey {
		return true
	}
	if l.atKey && operand {
		l.atKey = modifier
		l.afterKey = !l.atKey
	}
	return false
}

// objectPunct updates the key state for a punctuator that is not an error.
func (l *jsLexer) objectPunct(p string) {
	inObject := len(l.kinds) > 0 && l.kinds[len(l.kinds)-1] == 'o'
	l.afterKey = false
	l.atKey = inObject && (p == "," || p == "*" && l.atKey)
}
