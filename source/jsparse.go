package source

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja/parser"
)

// ParseJS checks a JS source against the limits in o and parses it with goja's parser, source
// maps disabled. It returns the unit, or nil and the findings (a List) that say why there is
// none: the source is over the size cap, holds a comment that would make the parser read a file,
// or fails the pre-scan (it is then rejected unparsed), or it does not parse (only then are the
// findings of rule Syntax).
func ParseJS(filename string, src []byte, o Options) (*JSUnit, error) {
	o = o.withDefaults()
	p := newPass(JS, filename, src)
	if !o.Unchecked {
		if !p.checkSize(o.MaxBytes) {
			return nil, p.err()
		}
		if loc := findSourceMap(src); loc != nil {
			p.report(loc[0], SourceMap, "sourceMappingURL/sourceURL comment (the parser would load the file it names)")
			return nil, p.err()
		}
		if !p.jsPrescan(o.MaxBytes, o.MaxDepth) {
			return nil, p.err()
		}
	}
	prg, err := parser.ParseFile(nil, filename, string(src), 0, parser.WithDisableSourceMaps)
	if err != nil {
		p.jsSyntax(err)
		return nil, p.err()
	}
	return &JSUnit{Program: prg, file: p.file}, nil
}

// sourceMapComment matches the comments that make goja's parser read a file at parse time.
var sourceMapComment = regexp.MustCompile(`[/][/*][ \t]*[#@][ \t]*source(Mapping)?URL`)

// findSourceMap locates a sourceMappingURL/sourceURL comment; the regex runs only on sources
// that contain the word at all.
func findSourceMap(src []byte) []int {
	if !bytes.Contains(src, []byte("sourceMappingURL")) && !bytes.Contains(src, []byte("sourceURL")) {
		return nil
	}
	return sourceMapComment.FindIndex(src)
}

// jsPrescan bounds what parsing the source will cost (jsread.go), and reports a source that
// passes a bound. The parser's work may be twice the size cap.
func (p *pass) jsPrescan(maxBytes, maxDepth int) bool {
	workLimit := 2 * maxBytes
	s := jsScan(p.file.src, maxDepth, workLimit)
	switch {
	case !s.ok:
		p.report(0, Depth, "the pre-scan cannot bound this source's nesting: too many '/' and '`' that could start a regex or template or not")
	case s.bad >= 0 && s.badWhy == badArrow:
		p.report(s.bad, Depth, "this => follows no arrow function's parameters where an expression starts (after =, (, [, a comma, =>, ?, :, return, throw); the parser would read the code before it again and again: put the arrow function where its value is used, or fix the syntax")
	case s.bad >= 0:
		p.report(s.bad, Depth, "the operand of this ++ or -- is no variable, property or element (x, a.b, a[i]); the parser would read it again and again: assign to a variable instead, or fix the syntax")
	case !p.checkDepth(&s.nest, maxDepth):
	case s.arrows > maxArrows(maxDepth):
		p.report(0, Depth, fmt.Sprintf("%d arrow functions, over the limit of %d (the parser is quadratic in them)", s.arrows, maxArrows(maxDepth)))
	case s.work > workLimit:
		// work saturates at 2^40: %d writes it out in full.
		p.report(0, Depth, fmt.Sprintf("arrow functions nest in one another's parameter lists so deeply that parsing takes %d steps (the parser reads a parameter list again at its =>), over the limit of %d; declare the inner functions first", s.work, workLimit))
	default:
		return true
	}
	return false
}

// jsSyntax reports goja's syntax errors, the first ten.
func (p *pass) jsSyntax(err error) {
	list, ok := err.(parser.ErrorList)
	if !ok || len(list) == 0 {
		p.report(0, Syntax, err.Error())
		return
	}
	for i, e := range list {
		if i == 10 {
			break
		}
		p.report(p.file.offset(e.Position.Line, e.Position.Column), Syntax, e.Message)
	}
}

// inlineFlagHint is the fix for a regex literal that starts with an inline flag, /(?m)^x/,
// which RE2 strings take and JavaScript literals do not (goja: "Invalid group").
func inlineFlagHint(src []byte, at int, msg string) string {
	if !strings.HasPrefix(msg, "Invalid group") || at < 0 || at >= len(src) || src[at] != '/' {
		return ""
	}
	lit := src[at+1:]
	if i := bytes.IndexByte(lit, '\n'); i >= 0 {
		lit = lit[:i]
	}
	if !bytes.Contains(lit, []byte("(?")) {
		return ""
	}
	return ": a JavaScript regex literal takes no inline flags such as (?m); put the flags after it, /^x.*$/m, or pass the pattern as a string, \"(?m)^x.*$\""
}
