package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxPatternLen bounds a search pattern in bytes.
const maxPatternLen = 4096

// pattern is a compiled search pattern with what the engines need to know.
type pattern struct {
	src     string
	re      *regexp.Regexp // the pattern itself, exactly as the caller wrote it
	resume  *regexp.Regexp // \A(?s:.)(?s:.)*?(P)|(?:P): resume a search with one character of left context
	prog    *syntax.Prog   // the program the lazy DFA runs, with empty-width assertions relaxed
	lit     []byte         // non-nil when the pattern is exactly this literal
	req     [][]byte       // every match contains one of these (a prefilter); nil if none is known
	prefix  [][]byte       // every match, even relaxed, starts with one of these; nil if none is known
	nlFree  bool           // no match can contain '\n'
	class   []rune         // non-nil when every match is a run of these characters (runClass)
	bounded bool           // the run pattern is \bC+\b
}

// compilePattern compiles src (RE2 syntax, as package regexp accepts it).
func compilePattern(src string) (*pattern, error) {
	if len(src) > maxPatternLen {
		return nil, invalidf("search pattern is %d bytes, more than %d; use a shorter pattern", len(src), maxPatternLen)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, invalidf("invalid regular expression %q: %v (RE2 syntax: no backreferences or lookaround)", src, unwrapSyntax(err))
	}
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, invalidf("invalid regular expression %q: %v", src, unwrapSyntax(err))
	}
	simple := tree.Simplify()
	prog, err := syntax.Compile(simple)
	if err != nil {
		return nil, invalidf("invalid regular expression %q: %v", src, err)
	}
	// The resume pattern embeds the pattern's text, which must compile to
	// the very same program: the canonical text where it does (it has no
	// flags that leak), else the source in a group of its own.
	canon := tree.String()
	if !sameProgram(canon, prog) {
		canon = "(?:" + src + ")"
		if !sameProgram(canon, prog) {
			return nil, invalidf("regular expression %q cannot be searched: it does not survive canonical printing; write it more simply", src)
		}
	}
	resume, err := regexp.Compile(`\A(?s:.)(?s:.)*?(` + canon + `)|(?:` + canon + `)`)
	if err != nil {
		return nil, invalidf("regular expression %q cannot be searched: %v", src, err)
	}
	p := &pattern{src: src, re: re, resume: resume, prog: prog, nlFree: !progMatchesNewline(prog)}
	p.lit = pureLiteral(simple)
	p.class, p.bounded = runClass(simple)
	p.req = usable(bestSet(analyze(simple).all()))
	p.prefix = usable(bestSet([][]string{prefixes(simple)}))
	return p, nil
}

func sameProgram(src string, prog *syntax.Prog) bool {
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return false
	}
	p, err := syntax.Compile(tree.Simplify())
	return err == nil && p.String() == prog.String()
}

func unwrapSyntax(err error) string {
	if se, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
	}
	return err.Error()
}

// progMatchesNewline reports whether any instruction can consume '\n'.
func progMatchesNewline(prog *syntax.Prog) bool {
	for i := range prog.Inst {
		if instMatches(&prog.Inst[i], '\n') {
			return true
		}
	}
	return false
}

// instMatches reports whether rune instruction i consumes r (false for
// instructions that consume nothing).
func instMatches(i *syntax.Inst, r rune) bool {
	switch i.Op {
	case syntax.InstRune:
		return i.MatchRune(r)
	case syntax.InstRune1:
		return r == i.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// pureLiteral returns the bytes of a pattern that is one case-sensitive
// literal (possibly captured), or nil.
func pureLiteral(re *syntax.Regexp) []byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return nil
	}
	if s, ok := literalString(re); ok && s != "" {
		return []byte(s)
	}
	return nil
}

// literalString returns the text of an OpLiteral when bytes.Index can find
// it: not case-folded, and free of U+FFFD (which also matches invalid bytes).
func literalString(re *syntax.Regexp) (string, bool) {
	var sb strings.Builder
	for _, r := range re.Rune {
		if r == utf8.RuneError {
			return "", false
		}
		if re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r {
			return "", false
		}
		sb.WriteRune(r)
	}
	return sb.String(), true
}

// Literal analysis. For a node, exact (if non-nil) is the complete set of
// strings it matches; req (if non-nil) is a set of which every match
// contains at least one member.
type litInfo struct {
	exact []string
	req   [][]string // candidate required sets; the best is chosen later
}

const (
	maxLitSet    = 16 // strings an analysed set may hold
	maxPrefilter = 8  // strings a prefilter may search for
)

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		if s, ok := literalString(re); ok {
			return litInfo{exact: []string{s}}
		}
	case syntax.OpCharClass:
		return litInfo{exact: classStrings(re.Rune)}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return litInfo{req: analyze(re.Sub[0]).all()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litInfo{req: analyze(re.Sub[0]).all()}
		}
	case syntax.OpConcat:
		return analyzeConcat(re.Sub)
	case syntax.OpAlternate:
		return analyzeAlternate(re.Sub)
	}
	return litInfo{}
}

// all returns every candidate required set of the node, exact included.
func (l litInfo) all() [][]string {
	if l.exact != nil {
		return append([][]string{l.exact}, l.req...)
	}
	return l.req
}

func classStrings(ranges []rune) []string {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxLitSet {
			return nil
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError || len(out) == maxLitSet {
				return nil
			}
			out = append(out, string(r))
		}
	}
	return out
}

func analyzeConcat(subs []*syntax.Regexp) litInfo {
	cur := []string{""}
	allExact := true
	var cands [][]string
	for _, sub := range subs {
		l := analyze(sub)
		if l.exact != nil {
			if next := cross(cur, l.exact); next != nil {
				cands = append(cands, cur) // a shorter run is still required
				cur = next
				continue
			}
			cands = append(cands, cur)
			cur = l.exact
			allExact = false
			continue
		}
		allExact = false
		cands = append(cands, cur)
		cands = append(cands, l.req...)
		cur = []string{""}
	}
	if allExact {
		return litInfo{exact: cur}
	}
	return litInfo{req: append(cands, cur)}
}

func cross(a, b []string) []string {
	if len(a)*len(b) > maxLitSet {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > 256 {
				return nil
			}
			out = append(out, x+y)
		}
	}
	return out
}

func analyzeAlternate(subs []*syntax.Regexp) litInfo {
	var exact, req []string
	exactOK, reqOK := true, true
	for _, sub := range subs {
		l := analyze(sub)
		if l.exact == nil || len(exact)+len(l.exact) > maxLitSet {
			exactOK = false
		} else {
			exact = append(exact, l.exact...)
		}
		if !reqOK {
			continue
		}
		best := bestSet(l.all())
		if best == nil || len(req)+len(best) > maxLitSet {
			reqOK = false
			continue
		}
		for _, b := range best {
			req = append(req, string(b))
		}
	}
	var out litInfo
	if exactOK {
		out.exact = exact
	}
	if reqOK {
		out.req = [][]string{req}
	}
	return out
}

// usable drops literal sets whose shortest member has fewer than two bytes:
// a single frequent byte makes a prefilter slower than none.
func usable(set [][]byte) [][]byte {
	for _, s := range set {
		if len(s) < 2 {
			return nil
		}
	}
	return set
}

// prefixes returns a set of strings one of which starts every match (and
// every relaxed match: assertions contribute nothing), or nil.
func prefixes(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return prefixes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return prefixes(re.Sub[0])
		}
	case syntax.OpConcat:
		cur := []string{""}
		for _, sub := range re.Sub {
			if ex := analyze(sub).exact; ex != nil {
				if next := cross(cur, ex); len(next) > 0 && len(next) <= maxPrefilter {
					cur = next
					continue
				}
			} else if p := prefixes(sub); p != nil {
				if next := cross(cur, p); len(next) > 0 && len(next) <= maxPrefilter {
					cur = next
				}
			}
			break
		}
		return cur
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			p := prefixes(sub)
			if p == nil || len(out)+len(p) > maxLitSet {
				return nil
			}
			out = append(out, p...)
		}
		return out
	}
	return analyze(re).exact
}

// bestSet picks the most selective usable set: no empty member, no
// newline, at most 8 members, longest shortest member.
func bestSet(cands [][]string) [][]byte {
	var best []string
	bestMin := 0
	for _, set := range cands {
		if len(set) == 0 || len(set) > maxPrefilter {
			continue
		}
		m := -1
		for _, s := range set {
			if s == "" || strings.Contains(s, "\n") {
				m = 0
				break
			}
			if m < 0 || len(s) < m {
				m = len(s)
			}
		}
		if m > bestMin || m == bestMin && m > 0 && len(set) < len(best) {
			best, bestMin = set, m
		}
	}
	if best == nil {
		return nil
	}
	out := make([][]byte, 0, len(best))
	seen := map[string]bool{}
	for _, s := range best {
		if !seen[s] {
			seen[s] = true
			out = append(out, []byte(s))
		}
	}
	return dropRedundant(out)
}

// dropRedundant removes members that contain another member: finding the
// shorter one finds every place the longer one occurs.
func dropRedundant(set [][]byte) [][]byte {
	out := set[:0:0]
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && len(t) < len(s) && bytes.Contains(s, t) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}
