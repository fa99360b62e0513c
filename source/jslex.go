package source

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsLexer is one reading of a JS source: it estimates nesting (nest) and counts arrows without
// parsing. It lexes exactly as goja's lexer does (strings, templates, comments, regex bodies,
// line terminators, Unicode white space, a leading #!), and decides between a regex and a
// division from the previous token, as goja's parser does for valid code. With fork set, every
// regex and template it reads, and every '/' the previous token does not decide (after }, yield,
// await or of, or after readings merged), splits off the other reading (jsread.go).
type jsLexer struct {
	src     []byte
	i       int
	slash   slashMode // what a '/' here starts
	exprEnd bool      // the previous token can end an expression
	newline bool      // a line break since the previous token
	head    bool      // the previous token is if, while, for or with (or for await)
	dot     bool      // the previous token is . or ?.: a word here is a property name
	parens  []uint8   // per open '(': flagNo, flagYes (the head of if/while/for/with) or flagEither
	braces  []uint8   // per open '{': flagNo, flagYes (a template substitution ${) or flagEither
	open    bool      // the source ends inside a template literal or a block comment
	n       nest
	arrows  int
	forks   []*jsLexer // readings this step split off; nil: take the likelier reading only
	fork    bool       // collect forks

	kinds    []byte // the open brackets, innermost last: ( [ { and o for an object literal's
	atKey    bool   // an object literal's property key comes next
	afterKey bool   // an object literal's property key came last
	prev     string // the previous token if it is a punctuator or keyword (jsrecover.go)
	last     string // the last token if it is a punctuator, else "" (Incomplete)
	skipping bool   // after a syntax error, skipping to a statement keyword as goja does

	work     []workFrame // the parser's work inside each open bracket (jsreparse.go)
	base     workFrame   // the work outside every bracket
	maxWork  int         // the most work any bracket took
	braceEnd bool        // the previous token is a '}' that ends no template substitution

	okNext    bool         // an arrow function may start at the next token (jsarrow.go)
	headOK    bool         // the previous token ends an arrow function's parameters where one may start
	lastHead  bool         // the '(' of the bracket that closed last was where an arrow function may start
	lastGroup int          // the work inside the bracket that closed last
	headWork  int          // the work inside the parameter list the previous token ends
	bad       int          // where the source is rejected unparsed (badArrow, badUpdate); -1: nowhere yet
	badWhy    int          // why
	upd       []updOperand // the operands of prefix ++ and -- being read (jsupdate.go)
	// recovered: this reading went through goja's skipping after a syntax error, so what it
	// reads as code may be a template's or a string's text to the others (jsarrow.go).
	recovered bool

	lastResync int // where the last statement keyword starts: no reading skips to one after it
}

// slashMode is what a '/' starts after the previous token.
type slashMode uint8

const (
	slashDiv   slashMode = iota // a division
	slashRegex                  // a regex literal
	slashEither
)

// Flags of the paren and brace stacks. flagEither comes from merged readings.
const (
	flagNo uint8 = iota
	flagYes
	flagEither
)

func newJSLexer(src []byte, limit int) *jsLexer {
	l := &jsLexer{src: src, slash: slashRegex, lastResync: lastResync(src), bad: -1,
		parens: make([]uint8, 0, 16), braces: make([]uint8, 0, 16), kinds: make([]byte, 0, 32),
		work: make([]workFrame, 0, 32)}
	l.n.stack = make([]int, 0, 32)
	l.n.limit = limit
	if bytes.HasPrefix(src, []byte("#!")) { // goja skips a leading #! line
		l.skipLine()
	}
	return l
}

// step reads one token, or one stretch of white space, comment, string, template text or regex.
func (l *jsLexer) step() { l.read() }

func (l *jsLexer) read() {
	if l.skipping {
		l.skipRead()
		return
	}
	c := l.src[l.i]
	switch {
	case c == '\n' || c == '\r':
		l.newline = true
		l.i++
	case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		l.i++
	case c >= utf8.RuneSelf && l.unicodeSpace():
	case c == '/' && l.at(1) == '/':
		l.skipLine()
	case c == '/' && l.at(1) == '*':
		l.skipBlockComment()
	case (c == '"' || c == '\'' || c >= '0' && c <= '9' || c == '.' && l.at(1) >= '0' && l.at(1) <= '9') && l.fork && l.objectKey(false, true):
		l.skipping = true
	case c == '"' || c == '\'':
		l.updToken('o', "", l.i)
		l.token(false)
		l.skipString(c)
		l.after(slashDiv)
	case c == '`':
		l.splitSkip()
		l.updToken('t', "", l.i)
		l.token(true) // a template after a line break is tagged by what came before
		l.i++
		l.skipTemplate()
	case c == '/' && l.slash != slashDiv:
		l.splitSkip()
		if l.slash == slashEither {
			l.split(func(d *jsLexer) { d.slash = slashDiv })
		}
		l.updToken('o', "", l.i)
		l.token(false)
		l.skipRegex()
		l.after(slashDiv)
	case isJSIdentStart(c):
		l.word()
	case c >= '0' && c <= '9' || c == '.' && l.at(1) >= '0' && l.at(1) <= '9':
		l.updToken('o', "", l.i)
		l.token(false)
		l.skipNumber()
		l.after(slashDiv)
	default:
		l.punct()
	}
}

// split records a fork: a copy of this reading, changed by f, that goes on from here.
func (l *jsLexer) split(f func(*jsLexer)) {
	if !l.fork {
		return
	}
	d := l.clone()
	f(d)
	l.forks = append(l.forks, d)
}

// skipsFromHere makes d the reading of goja skipping tokens after a syntax error just before the
// regex or template that starts here: to goja, '/' is then a division and '`' a plain token,
// so their text is code up to the next statement keyword (jsrecover.go).
func skipsFromHere(d *jsLexer) { d.skipping = true }

// splitSkip splits off the reading of goja skipping tokens from here, unless no statement
// keyword follows, where such a reading would only skip to the end.
func (l *jsLexer) splitSkip() {
	if l.i < l.lastResync {
		l.split(skipsFromHere)
	}
}

// lastResync returns where the last word spelled as a statement keyword starts, or -1.
func lastResync(src []byte) int {
	for end := len(src); end > 0; end-- {
		start := end
		for start > 0 && src[start-1] >= 'a' && src[start-1] <= 'z' {
			start--
		}
		if start < end && jsResync[string(src[start:end])] {
			return start
		}
		end = start
	}
	return -1
}

// jsResync are the keywords at which goja's parser starts again after a syntax error
// (nextStatement): it skips every token before them, closing brackets included.
var jsResync = map[string]bool{
	"break": true, "continue": true, "for": true, "if": true, "return": true, "switch": true,
	"var": true, "do": true, "try": true, "with": true, "while": true, "throw": true,
	"catch": true, "finally": true,
}

// resyncAt makes l a reading that starts parsing a statement at src[k].
func (l *jsLexer) resyncAt(k int) {
	l.i = k
	l.slash, l.exprEnd, l.newline, l.head, l.dot = slashRegex, false, false, false, false
	l.prev, l.atKey, l.afterKey, l.braceEnd = "", false, false, false
	l.okNext, l.headOK = false, false
}

func (l *jsLexer) clone() *jsLexer {
	d := *l
	d.parens = append([]uint8(nil), l.parens...)
	d.braces = append([]uint8(nil), l.braces...)
	d.n.stack = append([]int(nil), l.n.stack...)
	d.kinds = append([]byte(nil), l.kinds...)
	d.work = append([]workFrame(nil), l.work...)
	d.upd = append([]updOperand(nil), l.upd...)
	d.forks = nil
	return &d
}

// unicodeSpace consumes a non-ASCII white space or line terminator, as goja reads them.
func (l *jsLexer) unicodeSpace() bool {
	r, size := utf8.DecodeRune(l.src[l.i:])
	switch {
	case r == '\u2028' || r == '\u2029':
		l.newline = true
	case r == '\u00a0' || r == '\ufeff' || r != '\u0085' && unicode.IsSpace(r):
	default:
		return false
	}
	l.i += size
	return true
}

func (l *jsLexer) at(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

// token is called at the start of every token: a line break between an expression's end and a
// token that starts a new expression is where automatic semicolon insertion ends a statement.
func (l *jsLexer) token(continues bool) { l.tokenP(continues, "") }

// tokenP is token for a punctuator p.
func (l *jsLexer) tokenP(continues bool, p string) {
	if l.newline && l.exprEnd && !continues {
		l.n.reset()
	}
	asi := l.newline && (l.exprEnd || l.braceEnd) && !continues
	l.newline, l.last = false, p
	l.charge(p)
	if asi { // a name, number or string after a line break: no expression goes on into it
		l.top().hardEnd()
	}
}

// after records what the finished token allows next.
func (l *jsLexer) after(s slashMode) {
	l.slash, l.exprEnd, l.head, l.dot, l.prev, l.braceEnd = s, s == slashDiv, false, false, "", false
	l.okNext, l.headOK = false, false
}

func (l *jsLexer) word() {
	start := l.i
	l.i++ // the first byte may be '#' or '\', which only start a name
	for l.i < len(l.src) && l.identPart() {
	}
	info := jsWords[string(l.src[start:l.i])] // the zero info for any other name
	if l.fork && !l.dot && l.objectKey(info.async || info.getSet, true) {
		l.i, l.skipping = start, true
		return
	}
	l.updToken('w', string(l.src[start:l.i]), start)
	ok := l.okNext
	l.token(info.continues)
	defer l.arrowWord(string(l.src[start:l.i]), ok)
	if l.dot { // a property name: .in, ?.return
		if info.resync { // after a syntax error, goja starts parsing again at it
			l.split(func(d *jsLexer) { d.resyncAt(start) })
		}
		l.after(slashDiv)
		return
	}
	if info.chain {
		l.n.bump(start)
	}
	if info.restart {
		l.restart()
	}
	if info.stmt {
		l.top().hardEnd()
	}
	head := info.head || info.await && l.head // for await (
	switch {
	case info.slash != slashDiv:
		l.after(info.slash)
	case info.chain: // if, for, while, with: a statement follows their head
		l.after(slashRegex)
	default:
		l.after(slashDiv)
	}
	l.head = head
	if info.more { // function and class go on: a name after them is theirs
		l.exprEnd = false
	}
}

// wordInfo is what a word means to the lexer.
type wordInfo struct {
	slash     slashMode // what a '/' after it starts (slashDiv: a division, as after any name)
	chain     bool      // the parser recurses on it: typeof, new, if, ...
	head      bool      // if, while, for, with: a '(' after it holds a statement's head
	resync    bool      // goja's parser starts again here after a syntax error (jsResync)
	continues bool      // in, instanceof, of: a line break before it ends no statement
	await     bool
	async     bool
	getSet    bool // get, set: an object literal key may follow
	restart   bool // yield, async: goja's parser may go back to the token after it (jsreparse.go)
	stmt      bool // a statement starts here: no expression goes on past it
	more      bool // function, class: what follows is theirs, even after a line break
}

// jsWords describes the words that mean more than a name.
var jsWords = func() map[string]wordInfo {
	m := map[string]wordInfo{}
	set := func(words string, f func(*wordInfo)) {
		for _, w := range strings.Fields(words) {
			i := m[w]
			f(&i)
			m[w] = i
		}
	}
	set("return typeof instanceof in new delete void throw case do else extends", func(i *wordInfo) { i.slash = slashRegex })
	set("yield await of", func(i *wordInfo) { i.slash = slashEither })
	set("typeof void delete await new yield if for while with do", func(i *wordInfo) { i.chain = true })
	set("if while for with", func(i *wordInfo) { i.head = true })
	set("in instanceof of", func(i *wordInfo) { i.continues = true })
	for w := range jsResync {
		set(w, func(i *wordInfo) { i.resync = true })
	}
	set("await", func(i *wordInfo) { i.await = true })
	set("async", func(i *wordInfo) { i.async = true })
	set("get set", func(i *wordInfo) { i.getSet = true })
	set("yield async", func(i *wordInfo) { i.restart = true })
	set(`break case catch const continue debugger default do else finally for if return switch
		throw try var while with`, func(i *wordInfo) { i.stmt = true })
	set("function class", func(i *wordInfo) { i.more = true })
	return m
}()

// identPart consumes one identifier character, or reports that there is none.
func (l *jsLexer) identPart() bool {
	c := l.src[l.i]
	if c < utf8.RuneSelf {
		if isJSIdentPart(c) {
			l.i++
			return true
		}
		return false
	}
	r, size := utf8.DecodeRune(l.src[l.i:])
	if r == '\u2028' || r == '\u2029' || r == '\u00a0' || r == '\ufeff' || unicode.IsSpace(r) {
		return false
	}
	l.i += size
	return true
}

func (l *jsLexer) punct() {
	start := l.i
	p := jsPunct(l.src[l.i:])
	if p == "=>" {
		l.arrowWork(start)
	}
	if l.fork && l.syntaxError(p) {
		l.skipping = true
		return
	}
	l.objectPunct(p)
	l.updToken('p', p, start)
	l.i += len(p)
	ok, colonOK := l.okNext, p == ":" && l.colonOK()
	l.tokenP(true, p)
	prefix := (p == "++" || p == "--") && (!l.exprEnd || l.newline)
	l.punctRead(p, start)
	l.arrowToken(p, ok, colonOK)
	if prefix {
		l.updStart()
	}
	if operandNext[p] && (p != "++" && p != "--" || prefix) || p == ":" {
		l.prev = p
	}
}

// punctRead applies a punctuator to the estimate and the lexer's state.
func (l *jsLexer) punctRead(p string, start int) {
	switch p {
	case "(", "[", "{":
		l.openBracket(p, start)
	case ")":
		f := pop(&l.parens)
		l.popKind()
		l.closeWork()
		l.n.close()
		l.after([...]slashMode{slashDiv, slashRegex, slashEither}[f])
	case "]":
		l.popKind()
		l.closeWork()
		l.n.close()
		l.after(slashDiv)
	case "}":
		l.closeBrace()
	case ";", ",":
		l.n.reset()
		l.after(slashRegex)
	case "++", "--":
		if !l.exprEnd || l.newline { // prefix (after a line break too: no ASI exception for postfix)
			l.n.bump(start)
			l.after(slashRegex)
		} else {
			l.after(slashDiv)
		}
	case "=>":
		l.arrows++
		l.n.bump(start)
		l.after(slashRegex)
	case ".", "?.":
		l.n.bump(start)
		l.after(slashRegex)
		l.dot = true
	default:
		// Prefix and right-associative operators make the parser recurse, and binary operators
		// make the tree deeper even where the parser loops.
		l.n.bump(start)
		l.after(slashRegex)
	}
}

// openBracket opens a parenthesis (the head of if, while, for or with, or not), a bracket, or a
// brace (an object literal where an expression must start, else a block).
func (l *jsLexer) openBracket(p string, start int) {
	kind := p[0]
	switch {
	case p == "(":
		f := flagNo
		if l.head {
			f = flagYes
		}
		l.parens = append(l.parens, f)
	case p == "{":
		if operandNext[l.prev] && l.prev != "=>" || l.prev == ":" && len(l.kinds) > 0 && l.kinds[len(l.kinds)-1] == 'o' {
			kind = 'o'
		}
		l.braces = append(l.braces, flagNo)
	}
	l.kinds = append(l.kinds, kind)
	l.openWork(p == "(")
	if p != "{" {
		l.chainStep(start)
	}
	l.n.open(start)
	l.after(slashRegex)
	l.atKey = kind == 'o'
}

// chainStep counts a call or index that follows an expression, f()()() or a[0][1]: each one
// nests the tree one level deeper.
func (l *jsLexer) chainStep(at int) {
	if l.exprEnd {
		l.n.bump(at)
	}
}

// closeBrace ends a block, an object literal or a template substitution. After a block a '/'
// starts a regex; after an object literal, or a function or class expression, it divides: the
// lexer cannot tell them apart, so both readings go on.
func (l *jsLexer) closeBrace() {
	if len(l.braces) > 0 && l.braces[len(l.braces)-1] != flagNo {
		l.splitSkip() // the template text that follows is code to goja skipping tokens
	}
	f := pop(&l.braces)
	l.popKind()
	l.closeWork()
	l.n.close()
	if f == flagEither {
		l.split(func(d *jsLexer) { d.after(slashEither); d.braceEnd = true })
		f = flagYes
	}
	if f == flagYes {
		l.skipTemplate()
		return
	}
	l.after(slashEither)
	l.braceEnd = true
}

func (l *jsLexer) popKind() {
	if len(l.kinds) > 0 {
		l.kinds = l.kinds[:len(l.kinds)-1]
	}
}

func pop(s *[]uint8) uint8 {
	if len(*s) == 0 {
		return flagNo
	}
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v
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
	if c >= utf8.RuneSelf {
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

// isLineEnd reports a line terminator at src[i:], as goja reads them: \n, \r, U+2028, U+2029.
func isLineEnd(src []byte, i int) bool {
	switch src[i] {
	case '\n', '\r':
		return true
	case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
		return i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9)
	}
	return false
}

func (l *jsLexer) skipLine() {
	for l.i < len(l.src) && !isLineEnd(l.src, l.i) {
		l.i++
	}
}

func (l *jsLexer) skipBlockComment() {
	end := bytes.Index(l.src[l.i+2:], []byte("*/"))
	stop := l.i + 2 + end + 2
	if end < 0 {
		stop = len(l.src)
		l.open = true
	}
	for k := l.i; k < stop; k++ {
		if isLineEnd(l.src, k) {
			l.newline = true
			break
		}
	}
	l.i = stop
}

// skipString skips a quoted string. A line break ends it (an unterminated string is a syntax error
// the parser will report), unless a backslash continues it onto the next line; U+2028 and U+2029
// do not end a string.
func (l *jsLexer) skipString(q byte) {
	l.i++
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i++
			l.skipEscaped()
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

// skipEscaped skips the character after a backslash: a whole line break (\r\n too) or one byte
// (the rest of a multi-byte character is never a quote or a line break).
func (l *jsLexer) skipEscaped() {
	switch {
	case l.i >= len(l.src):
	case l.src[l.i] == '\r' && l.at(1) == '\n':
		l.i += 2
	case isLineEnd(l.src, l.i) && l.src[l.i] == 0xE2:
		l.i += 3
	default:
		l.i++
	}
}

// skipTemplate skips template text up to the closing backquote or a ${ substitution.
func (l *jsLexer) skipTemplate() {
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i++
			l.skipEscaped()
		case c == '`':
			l.i++
			l.after(slashDiv)
			return
		case c == '$' && l.at(1) == '{':
			l.braces = append(l.braces, flagYes)
			l.kinds = append(l.kinds, '{')
			l.openWork(false)
			l.n.open(l.i)
			l.i += 2
			l.after(slashRegex)
			l.okNext = true
			return
		default:
			l.i++
		}
	}
	l.open = true
}

// skipRegex skips a regex literal as goja does: up to the first '/' outside a character class,
// and its flags; a line terminator ends it (a syntax error).
func (l *jsLexer) skipRegex() {
	l.i++
	class := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\\':
			l.i++
			if l.i < len(l.src) && !isLineEnd(l.src, l.i) {
				l.i++
			}
			continue
		case isLineEnd(l.src, l.i):
			return
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.i++
			l.skipFlags()
			return
		}
		l.i++
	}
}

// skipFlags skips a regex's flags: the identifier right after it, if goja reads it as an
// identifier (a keyword there, /x/in y, is the next token).
func (l *jsLexer) skipFlags() {
	start := l.i
	for l.i < len(l.src) && l.identPart() {
	}
	if jsNotIdentifier[string(l.src[start:l.i])] {
		l.i = start
	}
}

// jsNotIdentifier are the words goja's lexer never reads as an identifier.
var jsNotIdentifier = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`if in do var for new try this else case void with async while
		break catch throw return typeof delete switch default finally function continue debugger
		instanceof const class enum export extends import super let static await yield false true null`) {
		m[w] = true
	}
	return m
}()

// skipNumber skips a numeric literal as goja reads it; what follows (1if is 1 and if) is a token
// of its own.
func (l *jsLexer) skipNumber() {
	digits := "0123456789_"
	if l.src[l.i] == '0' && bytes.IndexByte([]byte("xXoObB"), l.at(1)) >= 0 {
		digits = "0123456789abcdefABCDEF_"
		l.i += 2
	}
	l.skipAny(digits)
	if l.at(0) == '.' && len(digits) == 11 {
		l.i++
		l.skipAny(digits)
	}
	if (l.at(0) == 'e' || l.at(0) == 'E') && len(digits) == 11 {
		l.i++
		if l.at(0) == '+' || l.at(0) == '-' {
			l.i++
		}
		l.skipAny(digits)
	}
	if l.at(0) == 'n' {
		l.i++
	}
}

func (l *jsLexer) skipAny(set string) {
	for l.i < len(l.src) && strings.IndexByte(set, l.src[l.i]) >= 0 {
		l.i++
	}
}

func isJSIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || c == '#' || c >= utf8.RuneSelf ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isJSIdentPart(c byte) bool {
	return isJSIdentStart(c) && c != '#' && c < utf8.RuneSelf || c >= '0' && c <= '9'
}
