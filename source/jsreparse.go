package source

// goja's parser goes back and reads tokens again (it marks its place and restores it):
//
//   - an assignment expression that starts with '(' or async and reaches =>: the parameter list
//     is read again (unless it was a plain sequence and no error came before), and after a
//     syntax error the tokens between the list and the => too;
//   - a yield whose operand parses to an error: the operand is read again as statements.
//
// Each read of a stretch reads again whatever re-reads lie inside it, so nesting multiplies:
// (a = (b = ...) => 0) => 0 costs 2^k for k levels (2.5 s at k = 20), within every nesting and
// arrow limit. So the scan counts the parser's work, bracket by bracket: each token is one unit,
// a bracket adds its work to the enclosing one, and an => after a parameter list where an arrow
// function may start adds the list's work once more (jsarrow.go). An => anywhere else, and a
// ++ or -- on no reference, make goja go back further (jsarrow.go, jsupdate.go): the pre-scan
// rejects them, or, in a reading that went through goja's skipping after a syntax error,
// counts them over a window: the stretch of the bracket since the last place no expression goes
// on past (a ',' or ';', a statement keyword, a name after a line break that automatic
// semicolon insertion ends a statement before, and '=' or => unless a '?' is in the window: a
// conditional's branches end where their own expressions end, and goja takes any one token
// where it expects the ':'), with the places in it goja may go back to: each '(' (after an
// error a statement may start at any token), yield and async. A source whose work passes the
// limit is rejected unparsed.

// workFrame is the work inside one open bracket (or outside every bracket).
type workFrame struct {
	sum    int  // all the work in the bracket so far
	win    int  // the work in the window
	starts int  // places in the window goja may go back to
	colons int  // '?' in the window whose ':' has not come: goja takes any token there
	cond   bool // a '?' in the window: '=' and => do not end it
	head   bool // a '(' where an arrow function may start (jsarrow.go)
}

// top is the innermost open bracket's work.
func (l *jsLexer) top() *workFrame {
	if k := len(l.work) - 1; k >= 0 {
		return &l.work[k]
	}
	return &l.base
}

// addWork counts n units in the innermost bracket.
func (l *jsLexer) addWork(n int) {
	f := l.top()
	f.sum, f.win = satAdd(f.sum, n), satAdd(f.win, n)
	l.maxWork = max(l.maxWork, f.sum)
}

// charge counts the next token, p if it is a punctuator, and what it does to the window.
func (l *jsLexer) charge(p string) {
	l.addWork(1)
	f := l.top()
	switch {
	case p == "=>":
		f.softEnd()
	case p == "," || p == ";":
		f.hardEnd()
	case p == "?":
		f.colons++
		f.cond = true
	case p == ":":
		f.colons = max(0, f.colons-1)
	case jsAssignOps[p]:
		f.softEnd()
	}
}

// hardEnd ends the window: no expression goes on past here, unless goja takes the token for
// a conditional's ':'.
func (f *workFrame) hardEnd() {
	if f.colons > 0 {
		f.colons--
		return
	}
	*f = workFrame{sum: f.sum, head: f.head}
}

// softEnd ends the window at '=' or =>, unless a conditional's branch may end here and leave
// the => to the expression the conditional is in.
func (f *workFrame) softEnd() {
	if !f.cond {
		*f = workFrame{sum: f.sum, head: f.head}
	}
}

// restart counts a place goja may go back to.
func (l *jsLexer) restart() { l.top().starts++ }

// openWork starts the work of a bracket; a '(' is a place goja may go back to.
func (l *jsLexer) openWork(paren bool) {
	if paren {
		l.restart()
	}
	l.work = append(l.work, workFrame{})
}

// closeWork ends the work of a bracket and adds it to the enclosing one.
func (l *jsLexer) closeWork() {
	k := len(l.work) - 1
	if k < 0 {
		return
	}
	n := l.work[k].sum
	l.lastHead, l.lastGroup = l.work[k].head, n
	l.work = l.work[:k]
	l.addWork(n)
}

// jsAssignOps are the assignment operators.
var jsAssignOps = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "**=": true,
	"<<=": true, ">>=": true, ">>>=": true, "&=": true, "|=": true, "^=": true, "&&=": true,
	"||=": true, "??=": true,
}

// satAdd adds without overflowing: work saturates far above any limit.
func satAdd(a, b int) int {
	if s := a + b; s >= 0 && s < 1<<40 {
		return s
	}
	return 1 << 40
}

// satMul multiplies non-negative numbers without overflowing.
func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a >= 1<<40 || b >= 1<<40 || a > (1<<40)/b {
		return 1 << 40
	}
	return a * b
}

// mergeFrame makes a cover b too.
func mergeFrame(a, b workFrame) workFrame {
	return workFrame{sum: max(a.sum, b.sum), win: max(a.win, b.win), starts: max(a.starts, b.starts),
		colons: max(a.colons, b.colons), cond: a.cond || b.cond, head: a.head && b.head}
}

// mergeWork merges two work stacks aligned at the top, keeping the larger counts.
func mergeWork(a, b []workFrame) []workFrame {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]workFrame(nil), a...)
	for k := range out {
		if j := len(b) - len(a) + k; j >= 0 {
			out[k] = mergeFrame(out[k], b[j])
		}
	}
	return out
}
