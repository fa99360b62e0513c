package validator

// goja's parser reads a parenthesised arrow parameter list twice: first as an expression, then,
// when => follows, again as parameters (unless it was a plain sequence and no error came before
// it, which the scan cannot know). A list that holds another such list, (a = (b = ...) => 0) =>
// 0, is read twice per level: 2^k for k levels, 2.5 s at k = 20, minutes at 25, within every
// nesting and arrow limit. So the scan counts the parser's work: each token is one unit, the
// units inside a group ( ... ) that => follows count twice, and a source whose work passes the
// limit is rejected unparsed.

// workFrame is the work inside one open bracket.
type workFrame struct {
	sum    int
	params bool // a '(' where an expression starts, or after async: maybe a parameter list
}

// charge counts the next token (p is its text if it is a punctuator), first settling the group
// that closed just before it: twice its work if p is =>.
func (l *jsLexer) charge(p string) {
	if l.closed {
		if p == "=>" {
			l.pending = satAdd(l.pending, l.pending)
		}
		l.addWork(l.pending)
		l.closed = false
	}
	l.addWork(1)
}

func (l *jsLexer) addWork(n int) {
	if k := len(l.work) - 1; k >= 0 {
		l.work[k].sum = satAdd(l.work[k].sum, n)
		l.maxWork = max(l.maxWork, l.work[k].sum)
		return
	}
	l.workBase = satAdd(l.workBase, n)
	l.maxWork = max(l.maxWork, l.workBase)
}

// openWork starts the work of a bracket; a '(' that may be an arrow's parameter list is marked.
func (l *jsLexer) openWork(paren bool) {
	l.work = append(l.work, workFrame{params: paren && (!l.exprEnd || l.afterAsync)})
}

// closeWork ends the work of a bracket; a marked group's work waits for the next token.
func (l *jsLexer) closeWork() {
	k := len(l.work) - 1
	if k < 0 {
		return
	}
	f := l.work[k]
	l.work = l.work[:k]
	if f.params {
		l.pending, l.closed = f.sum, true
		return
	}
	l.addWork(f.sum)
}

// satAdd adds without overflowing: work saturates far above any limit.
func satAdd(a, b int) int {
	if s := a + b; s >= 0 && s < 1<<40 {
		return s
	}
	return 1 << 40
}

// mergeWork merges two work stacks aligned at the top, keeping the larger sums.
func mergeWork(a, b []workFrame) []workFrame {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]workFrame(nil), a...)
	for k := range out {
		if j := len(b) - len(a) + k; j >= 0 {
			out[k].sum = max(out[k].sum, b[j].sum)
			out[k].params = out[k].params || b[j].params
		}
	}
	return out
}
