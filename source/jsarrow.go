package source

// An => may only follow an arrow function's parameters, a name or a parenthesised list, where
// an assignment expression starts: after '(', '[', ',', an assignment operator, =>, '?', '${',
// a conditional's ':' or one in braces (an object key's, a label's), return, throw and case
// outside parentheses and brackets, and async after any of these. There goja takes the list and
// the => together and reads the list at most twice. Anywhere else (f(x) => 0, (a) + (b) => 0,
// a ? 0 : (b) + 1 => 0, b a => 0 in parentheses, an => after a line break) the => is a syntax
// error goja recovers from by going back to earlier starts, or, having taken a token for the
// ')' it expected, into brackets it has left: the work multiplies per level of nesting, 3^k
// for yield f(x) => 0 and 2^k for (a) ( b a => 0, in ways no count of brackets follows. Valid
// code has no such =>, but for an arrow function at the start of a statement, which does
// nothing: the pre-scan rejects it.

// arrowToken updates what the token p (a punctuator, or "" for anything else) leaves for an =>
// after it; ok is whether an arrow function could start at p itself.
func (l *jsLexer) arrowToken(p string, ok bool, colonOK bool) {
	l.okNext, l.headOK = false, false
	switch {
	case p == "(":
		l.top().head = ok
		l.okNext = true
	case p == ")":
		l.headOK, l.headWork = l.lastHead, l.lastGroup
	case p == "[" || p == "," || p == "=>" || p == "?" || jsAssignOps[p]:
		l.okNext = true
	case p == ":":
		l.okNext = colonOK
	}
}

// arrowWord updates the same for a word; ok is whether an arrow function could start at it.
func (l *jsLexer) arrowWord(w string, ok bool) {
	l.okNext, l.headOK = false, false
	switch {
	case l.dot:
	case w == "async":
		l.okNext = ok
	case w == "return" || w == "throw" || w == "case":
		l.okNext = !l.inParens()
	default:
		l.headOK, l.headWork = ok && isArrowParam(w), 0
	}
}

// arrowWork counts what an => makes goja read again: after parameters where an arrow function
// may start, the parenthesised list (once more: goja reads it as an expression first); anywhere
// else, see badToken.
func (l *jsLexer) arrowWork(at int) {
	if !l.headOK || l.newline {
		l.badToken(at, badArrow)
		return
	}
	l.addWork(l.headWork)
}

// colonOK reports whether a ':' here may precede an arrow function: a conditional's, or one in
// braces or outside every bracket. In parentheses or brackets, any other ':' is a token goja
// takes for the ')' or ']' it expected.
func (l *jsLexer) colonOK() bool { return l.top().colons > 0 || !l.inParens() }

// inParens reports whether the innermost bracket is a '(' or '['.
func (l *jsLexer) inParens() bool {
	k := len(l.kinds) - 1
	return k >= 0 && (l.kinds[k] == '(' || l.kinds[k] == '[')
}

// isArrowParam reports whether a word can be an arrow function's lone parameter as goja reads
// it: a plain name, not a reserved word, a private name or a spelling with escapes.
func isArrowParam(w string) bool {
	return w != "" && w[0] != '#' && !jsNotIdentifier[w] && !containsByte(w, '\\')
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// Why the pre-scan rejects a source unparsed, besides its bounds.
const (
	badArrow  = 1 + iota // an => after no arrow function's parameters (jsarrow.go)
	badUpdate            // a prefix ++ or -- on no reference (jsupdate.go)
)

// badToken handles a token goja would go back from again and again. In a reading that follows
// the source as written, valid code has none, and the source is rejected. A reading that went
// through goja's skipping after a syntax error (jsrecover.go) may read a template's or a
// string's text as code, where valid code often has such tokens (`if a => b`): there the
// parser's going back is counted instead, as over the window of the innermost bracket,
// 2^(starts+1) times (once, and once more per place to go back to, nested in one another).
func (l *jsLexer) badToken(at, why int) {
	if !l.recovered {
		if l.bad < 0 {
			l.bad, l.badWhy = at, why
		}
		return
	}
	f := l.top()
	l.addWork(satMul(1<<min(f.starts+1, 40)-1, f.win))
}
