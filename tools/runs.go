package tools

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// runClass recognises the patterns whose matches are runs of one character class C, the way
// models write words and tokens: C+ (greedy; \w+, \S+, [a-z]+, .+), and \bC+\b where C holds
// every ASCII word character (\b\w+\b, \b[\w-]+\b), either possibly captured whole. It returns
// C's ranges and whether the pattern is the \b form; nil if the pattern is of neither form.
func runClass(re *syntax.Regexp) (class []rune, bounded bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat && len(re.Sub) == 3 && re.Sub[0].Op == syntax.OpWordBoundary && re.Sub[2].Op == syntax.OpWordBoundary {
		c, inner := runClass(re.Sub[1])
		if c == nil || inner || !holdsWord(c) {
			return nil, false
		}
		return c, true
	}
	if re.Op != syntax.OpPlus || re.Flags&syntax.NonGreedy != 0 {
		return nil, false
	}
	switch s := re.Sub[0]; s.Op {
	case syntax.OpCharClass:
		return s.Rune, false
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, false
	}
	return nil, false
}

// holdsWord reports whether the class ranges hold every ASCII word character.
func holdsWord(ranges []rune) bool {
	for c := 0; c < utf8.RuneSelf; c++ {
		if isWordByte(byte(c)) && !inRanges(ranges, rune(c)) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// inRanges reports whether r is in the sorted ranges [lo0, hi0, lo1, hi1, …].
func inRanges(ranges []rune, r rune) bool {
	i, _ := slices.BinarySearch(ranges, r)
	return i%2 == 1 || i < len(ranges) && ranges[i] == r
}

// runEngine searches a run pattern (runClass): its leftmost-first matches are the maximal runs
// of characters in the class, which a loop over a byte table finds without regexp, as package
// regexp reads the text (an invalid byte is U+FFFD). In the \b form, a run of ASCII word
// characters only is a match as it is; any other run is handed to regexp with one character of
// context each side, which is all \b looks at.
type runEngine struct {
	pt      *pattern
	ascii   [utf8.RuneSelf]bool // the class, for ASCII
	ranges  []rune              // the class
	bounded bool                // the \b form
	onePart bool                // the class holds '\n': a run may cross lines
	cfg     engineConfig
}

func newRunEngine(pt *pattern, cfg engineConfig) *runEngine {
	e := &runEngine{pt: pt, ranges: pt.class, bounded: pt.bounded, cfg: cfg}
	for c := range e.ascii {
		e.ascii[c] = inRanges(pt.class, rune(c))
	}
	e.onePart = e.ascii['\n']
	return e
}

func (e *runEngine) parts(data []byte) []part {
	if e.onePart {
		return []part{{0, len(data)}}
	}
	return lineParts(data, e.cfg.partSize)
}

func (e *runEngine) scan(data []byte, ps []part, emit []func(s, e int)) {
	for k, p := range ps {
		e.runs(data, p, emit[k])
	}
}

func (e *runEngine) count(data []byte, p part) int {
	n := 0
	e.runs(data, p, func(int, int) { n++ })
	return n
}

// runs reports the matches that start in p. A part ends at a '\n' (or the end of the data), so
// a class without '\n' has no run across it.
func (e *runEngine) runs(data []byte, p part, emit func(s, e int)) {
	end := p.hi
	if e.onePart {
		end = len(data)
	}
	for i := p.lo; i < end; {
		if w, in := e.at(data[i:end]); !in {
			i += w
			continue
		}
		s, pure := i, true
		for i < end {
			c := data[i]
			if c < utf8.RuneSelf && e.ascii[c] {
				pure = pure && isWordByte(c)
				i++
				continue
			}
			w, in := e.at(data[i:end])
			if !in {
				break
			}
			pure = false
			i += w
		}
		if !e.bounded || pure {
			emit(s, i)
		} else {
			e.verify(data, s, i, emit)
		}
	}
}

// at reports the width of the character that starts b and whether the class holds it.
func (e *runEngine) at(b []byte) (int, bool) {
	if c := b[0]; c < utf8.RuneSelf {
		return 1, e.ascii[c]
	}
	r, w := utf8.DecodeRune(b)
	return w, inRanges(e.ranges, r)
}

// verify reports the matches regexp finds in the run [s, t], seeing one byte each side: a byte
// of a character outside ASCII reads as U+FFFD, which is not a word character either.
func (e *runEngine) verify(data []byte, s, t int, emit func(s, e int)) {
	a, b := max(0, s-1), min(len(data), t+1)
	for _, m := range e.pt.re.FindAllIndex(data[a:b], -1) {
		if a+m[0] >= s && a+m[1] <= t {
			emit(a+m[0], a+m[1])
		}
	}
}
