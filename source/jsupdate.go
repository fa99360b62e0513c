package source

// goja's parser reads a yield's operand again when the operand parses to an error it returns
// as a bad expression, and the one such error decided after the whole operand is read is a
// prefix ++ or -- whose operand is no reference: yield ++f(x), yield ++[x], yield --function(){x}.
// Nested in x, that doubles per level (2^k). A reference is a name with member accesses after
// it (x, a.b, a[i], f(x).y); anything else is a syntax error, so the pre-scan rejects it.

// updOperand follows the operand of one prefix ++ or --.
type updOperand struct {
	depth int  // the brackets open at the operator
	want  bool // the name that must start the operand comes next
	ref   bool // the operand so far is a reference
	dot   bool // a property name comes next
	opt   bool // ?. came: an optional chain is no reference
}

// updStart follows the operand of a prefix ++ or -- from here.
func (l *jsLexer) updStart() {
	l.upd = append(l.upd, updOperand{depth: len(l.kinds), want: true})
}

// updToken applies the next token to the operands followed: kind is 'w' for a word, 'p' for a
// punctuator p, 't' for a template and 'o' for a string, number or regex.
func (l *jsLexer) updToken(kind byte, p string, at int) {
	d := len(l.kinds)
	if p == ")" || p == "]" || p == "}" {
		d--
		if p == "}" && len(l.braces) > 0 && l.braces[len(l.braces)-1] != flagNo {
			return // the end of a template substitution: the template goes on
		}
	}
	for len(l.upd) > 0 {
		u := &l.upd[len(l.upd)-1]
		if d > u.depth {
			return // inside a bracket of the operand
		}
		if d == u.depth && u.step(kind, p, l.dot) {
			return
		}
		if !u.ref {
			l.badToken(at, badUpdate)
		}
		l.upd = l.upd[:len(l.upd)-1]
	}
}

// step applies a token at the operand's own level; false: the operand ended before it.
func (u *updOperand) step(kind byte, p string, dot bool) bool {
	switch {
	case u.want:
		u.want = false
		u.ref = kind == 'w' && !dot && isArrowParam(p)
		return kind == 'w' && (u.ref || p == "this" || p == "super")
	case u.dot:
		u.dot = false
		u.ref = kind == 'w' && !u.opt
		return kind == 'w'
	case p == "." || p == "?.":
		u.dot, u.opt = true, u.opt || p == "?."
		return true
	case p == "[" || p == "(" || kind == 't':
		u.ref = false // until the ']' that closes a member access
		return true
	case p == "]":
		u.ref = !u.opt
		return true
	case p == ")":
		return true // a call's result is no reference
	}
	return false
}

// updEnd checks the operands the source ends in.
func (l *jsLexer) updEnd() {
	for _, u := range l.upd {
		if !u.ref {
			l.badToken(len(l.src), badUpdate)
		}
	}
	l.upd = l.upd[:0]
}
