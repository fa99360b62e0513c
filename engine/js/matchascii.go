package js

import (
	"reflect"
	"regexp"
	"regexp/syntax"
	"strconv"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/unistring"
)

// goja runs a global match over text it holds in UTF-16 (any text with a character outside
// ASCII, such as a book with curly quotes) with regexp2, a backtracking engine:
// text.toLowerCase().match(/[a-z]+/g) over a 4 MB book spent about 340 ms there. The rewrite
// below turns X.match(/P/g), when P is a pattern that can only match ASCII characters and
// means the same in Go's regexp package (asciiMatcherOf), into __rlm_matchOf(X, /P/g, "P"),
// which matches a string in Go and calls X.match for anything else.
//
// Why Go over that form gives the same matches: such a pattern matches no character outside
// ASCII, so no UTF-16 code unit of one (a surrogate included) is ever part of a match. The
// text is matched as its ASCII projection (asciiProjection): ASCII characters as they are,
// each other code unit as the byte 0x80, which Go reads as one character outside ASCII. The
// matches are the same runs of ASCII characters. A pattern that can match the empty string
// is left to goja: after a match, JS tries an empty match where it ended and Go does not. \b and \B are left to goja, which reads them over
// UTF-16 text with Unicode's word characters (JS and Go read them with ASCII's).

// matchOfName is the JS wrapper the rewritten calls call.
const matchOfName = "__rlm_matchOf"

// maxMatchers bounds the compiled patterns an engine keeps; past it, patterns are compiled per
// call.
const maxMatchers = 64

// asciiMatcher finds the matches of one pattern: runs of a set of ASCII bytes, for a pattern
// that is one class repeated greedily ([a-z]+, \w+), or with Go's regexp, whose program has
// insts instructions.
type asciiMatcher struct {
	set   *[128]bool
	re    *regexp.Regexp
	insts int
}

// maxMatchWork bounds the text length × program size matched with Go's regexp, which a cell's
// deadline cannot stop (goja's own matching of UTF-16 text times out after a second); past it
// the call goes to goja. About a second at worst; [a-z]+ing over 10 MB is within it.
const maxMatchWork = 1 << 27

// installMatchASCII defines __rlm_matchOf.
func (e *Engine) installMatchASCII() error {
	var mu sync.Mutex
	matchers := map[string]*asciiMatcher{}
	native := e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		s, ok := call.Argument(0).(goja.String)
		src, ok2 := call.Argument(1).Export().(string)
		if !ok || !ok2 {
			return goja.Undefined()
		}
		mu.Lock()
		m, ok := matchers[src]
		mu.Unlock()
		if !ok {
			if m, ok = asciiMatcherOf(src); !ok {
				return goja.Undefined()
			}
			mu.Lock()
			if len(matchers) < maxMatchers {
				matchers[src] = m
			}
			mu.Unlock()
		}
		return m.match(e.vm, s)
	})
	fn, err := e.wrap(`(native) => (x, re, src) => { if (typeof x === "string") { const r = native(x, src); if (r !== undefined) return r } return x.match(re) }`, native)
	if err != nil {
		return err
	}
	return e.vm.Set(matchOfName, fn)
}

// match is s.match(/P/g): the array of matches, or null for none; undefined (the caller then
// calls match) past maxMatchWork.
func (m *asciiMatcher) match(vm *goja.Runtime, s goja.String) goja.Value {
	text := asciiProjection(s)
	if m.re != nil && len(text)*m.insts > maxMatchWork {
		return goja.Undefined()
	}
	var out []any
	if m.set != nil {
		for i := 0; i < len(text); {
			if c := text[i]; c >= 128 || !m.set[c] {
				i++
				continue
			}
			j := i + 1
			for j < len(text) && text[j] < 128 && m.set[text[j]] {
				j++
			}
			out = append(out, vm.ToValue(text[i:j]))
			i = j
		}
	} else {
		for _, loc := range m.re.FindAllStringIndex(text, -1) {
			out = append(out, vm.ToValue(text[loc[0]:loc[1]]))
		}
	}
	if out == nil {
		return goja.Null()
	}
	return vm.NewArray(out...)
}

// asciiProjection is s with its ASCII characters as they are and each other character as one
// or more bytes from 0x80 up: one per UTF-16 code unit for text goja holds in UTF-16, the
// UTF-8 bytes for text it holds in UTF-8.
func asciiProjection(s goja.String) string {
	if reflect.TypeOf(s).Kind() != reflect.Slice { // ASCII, or imported from Go in UTF-8
		v, _ := s.Export().(string)
		return v
	}
	units := reflect.ValueOf(s).Convert(uint16sType).Interface().([]uint16)[1:] // [0] marks UTF-16
	b := make([]byte, len(units))
	for i, u := range units {
		b[i] = 0x80
		if u < 0x80 {
			b[i] = byte(u)
		}
	}
	return string(b)
}

var uint16sType = reflect.TypeOf([]uint16(nil))

// asciiMatcherOf compiles src, the source of a JS regexp with the flag g alone, when it is in
// the subset whose syntax means the same in JS and in Go (asciiSubset), it can match only
// ASCII characters and it cannot match the empty string.
func asciiMatcherOf(src string) (*asciiMatcher, bool) {
	if !asciiSubset(src) {
		return nil, false
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || !asciiOnly(re) || minLen(re) == 0 {
		return nil, false
	}
	if set := runSet(re.Simplify()); set != nil {
		return &asciiMatcher{set: set}, true
	}
	c, err := regexp.Compile(src)
	prog, err2 := syntax.Compile(re.Simplify())
	if err != nil || err2 != nil {
		return nil, false
	}
	return &asciiMatcher{re: c, insts: len(prog.Inst)}, true
}

// asciiOnly reports whether re matches only ASCII characters, case-sensitively, with no
// assertion but the start and the end of the text.
func asciiOnly(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r >= 128 {
				return false
			}
		}
	case syntax.OpCharClass:
		for i := 1; i < len(re.Rune); i += 2 {
			if re.Rune[i] >= 128 {
				return false
			}
		}
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText:
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat, syntax.OpConcat, syntax.OpAlternate:
	default:
		return false
	}
	for _, sub := range re.Sub {
		if !asciiOnly(sub) {
			return false
		}
	}
	return true
}

// minLen is the length of the shortest text re matches.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := minLen(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			n = min(n, minLen(sub))
		}
		return n
	}
	return 0 // the empty match, the assertions, * and ?
}

// runSet is the set of bytes of a pattern that is one class (or one character) repeated
// greedily at least once, whose matches are the maximal runs of the set; nil for any other.
func runSet(re *syntax.Regexp) *[128]bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpPlus || re.Flags&syntax.NonGreedy != 0 {
		return nil
	}
	c := re.Sub[0]
	var set [128]bool
	switch {
	case c.Op == syntax.OpCharClass:
		for i := 0; i+1 < len(c.Rune); i += 2 {
			for r := c.Rune[i]; r <= c.Rune[i+1]; r++ {
				set[r] = true
			}
		}
	case c.Op == syntax.OpLiteral && len(c.Rune) == 1:
		set[c.Rune[0]] = true
	default:
		return nil
	}
	return &set
}

// asciiSubset reports whether src keeps to a syntax that JS (without the flag u) and Go's
// regexp read alike: ASCII letters, digits and plain punctuation; \d, \w, \t, \n, \r, \f, \v
// and escaped punctuation; classes not negated, of such characters, ranges of two plain
// characters, \d and \w; groups, non-capturing groups, |, ^, $; and the quantifiers *, +, ?
// and {n}, {n,}, {n,m} (each at most 1,000), greedy or lazy, after an atom. Anything else
// (., \s, \b, negated classes, lookaround, back-references, named groups) is left to goja.
func asciiSubset(src string) bool {
	p := subsetParser{src: src}
	return p.alternation() && p.i == len(src) && p.depth == 0
}

type subsetParser struct {
	src   string
	i     int
	depth int
}

func (p *subsetParser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

// alternation reads terms separated by | up to a ) or the end.
func (p *subsetParser) alternation() bool {
	for {
		for p.i < len(p.src) && p.peek() != '|' && p.peek() != ')' {
			if !p.term() {
				return false
			}
		}
		if p.peek() != '|' {
			return true
		}
		p.i++
	}
}

// term reads one atom and its quantifier.
func (p *subsetParser) term() bool {
	c := p.peek()
	quantifiable := true
	switch {
	case c == '^' || c == '$':
		p.i++
		quantifiable = false
	case c == '(':
		p.i++
		if p.peek() == '?' {
			if p.i+1 >= len(p.src) || p.src[p.i+1] != ':' {
				return false
			}
			p.i += 2
		}
		p.depth++
		if !p.alternation() || p.peek() != ')' {
			return false
		}
		p.i++
		p.depth--
	case c == '[':
		if !p.class() {
			return false
		}
	case c == '\\':
		if p.escape() == 0 {
			return false
		}
	case plainChar(c):
		p.i++
	default:
		return false
	}
	return p.quantifier(quantifiable)
}

// quantifier reads an optional quantifier, allowed only after an atom that may repeat.
func (p *subsetParser) quantifier(allowed bool) bool {
	switch p.peek() {
	case '*', '+', '?':
		p.i++
	case '{':
		if !p.braces() {
			return false
		}
	default:
		return true
	}
	if !allowed {
		return false
	}
	if p.peek() == '?' {
		p.i++
	}
	switch p.peek() {
	case '*', '+', '?', '{':
		return false
	}
	return true
}

// braces reads {n}, {n,} or {n,m} with n ≤ m ≤ 1000.
func (p *subsetParser) braces() bool {
	p.i++
	n, ok := p.number()
	if !ok {
		return false
	}
	m := n
	if p.peek() == ',' {
		p.i++
		if p.peek() == '}' {
			m = 1000
		} else if m, ok = p.number(); !ok || m < n {
			return false
		}
	}
	if p.peek() != '}' || n > 1000 || m > 1000 {
		return false
	}
	p.i++
	return true
}

// number reads a decimal number of at most four digits without a leading zero (Go reads {00}
// as literal text).
func (p *subsetParser) number() (int, bool) {
	start, n := p.i, 0
	for p.i < len(p.src) && p.peek() >= '0' && p.peek() <= '9' {
		n = n*10 + int(p.peek()-'0')
		p.i++
		if p.i-start > 4 || p.src[start] == '0' && p.i-start > 1 {
			return 0, false
		}
	}
	return n, p.i > start
}

// class reads a class that is not negated and not empty. A - stands for itself only first or
// last; elsewhere it joins two characters other than - into a range.
func (p *subsetParser) class() bool {
	p.i++
	if c := p.peek(); c == '^' || c == ']' {
		return false
	}
	first := true
	for p.i < len(p.src) && p.peek() != ']' {
		lo := p.peek()
		switch {
		case lo == '\\':
			if e := p.escape(); e == 0 || p.peek() == '-' && (e == 'd' || e == 'w') {
				return false
			}
		case lo == '-':
			if !first && p.i+1 < len(p.src) && p.src[p.i+1] != ']' {
				return false
			}
			p.i++
		case !classChar(lo):
			return false
		default:
			p.i++
			if p.peek() == '-' && p.i+1 < len(p.src) && p.src[p.i+1] != ']' {
				hi := p.src[p.i+1]
				if !classChar(hi) || hi == '-' || hi < lo {
					return false
				}
				p.i += 2
			}
		}
		first = false
	}
	if p.peek() != ']' {
		return false
	}
	p.i++
	return true
}

// escape reads a backslash escape of the subset and returns its letter or character, or 0.
func (p *subsetParser) escape() byte {
	if p.i+1 >= len(p.src) {
		return 0
	}
	e := p.src[p.i+1]
	switch {
	case e == 'd' || e == 'w' || e == 't' || e == 'n' || e == 'r' || e == 'f' || e == 'v':
	case escapable(e):
	default:
		return 0
	}
	p.i += 2
	return e
}

// plainChar: an ASCII character that stands for itself outside a class in both syntaxes.
func plainChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == ' ' || c == '_' || c == '-' || c == ',' || c == ':' || c == ';' || c == '\'' ||
		c == '"' || c == '@' || c == '#' || c == '%' || c == '&' || c == '=' || c == '!' ||
		c == '<' || c == '>' || c == '~' || c == '/' || c == '`'
}

// classChar: a character that stands for itself inside a class in both syntaxes.
func classChar(c byte) bool {
	return plainChar(c) || c == '.' || c == '*' || c == '+' || c == '?' || c == '(' || c == ')' ||
		c == '{' || c == '}' || c == '|' || c == '$'
}

// escapable: punctuation that a backslash makes literal in both syntaxes.
func escapable(c byte) bool {
	switch c {
	case '\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '/', '-':
		return true
	}
	return false
}

// rewriteMatchASCII rewrites, in place, the calls X.match(/P/g) below body whose pattern
// asciiMatcherOf accepts into __rlm_matchOf(X, /P/g, "P").
func rewriteMatchASCII(body []ast.Statement) {
	rewriteMethodCalls(body, "match", func(c *ast.CallExpression, recv ast.Expression, at file.Idx) ast.Expression {
		re, ok := c.ArgumentList[0].(*ast.RegExpLiteral)
		if !ok || re.Flags != "g" {
			return nil
		}
		if _, ok := asciiMatcherOf(re.Pattern); !ok {
			return nil
		}
		return callOf(matchOfName, at, recv, re, stringLit(re.Pattern, at))
	})
}

// stringLit is a string literal of s.
func stringLit(s string, at file.Idx) *ast.StringLiteral {
	return &ast.StringLiteral{Idx: at, Literal: strconv.Quote(s), Value: unistring.NewFromString(s)}
}
