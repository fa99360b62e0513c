package termsafe

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:generate go run ./internal/skeletongen -ucd /usr/share/unicode/UnicodeData.txt -ucd-version 15.0.0 -confusables confusables.txt -o skeleton_table.go

// OwnStarts are how rlm's own lines begin, on stdout and stderr: the REPL's Mark, the progress
// lines of a run, a batch, a queue worker and an evaluation, and rlm's messages ("rlm: …" and,
// for a command that serves, "rlm mcp: …"). A line of text from a cell or a model never starts
// like one of them: its first character is escaped. Every line rlm writes on stderr starts with
// one of them (TestOwnStartsCoverStderr reads the code for the lines it writes).
var OwnStarts = []string{string(Mark), "[agent:", "[batch]", "[worker]", "[eval]", "rlm:", "rlm mcp:"}

// ownSkeletons are the skeletons of OwnStarts.
var ownSkeletons = func() []string {
	sk := make([]string, len(OwnStarts))
	for i, o := range OwnStarts {
		var b strings.Builder
		for _, r := range o {
			b.WriteString(skeletonOf(r))
		}
		sk[i] = b.String()
	}
	return sk
}()

// maxBlank is how many blanks at the start of a line are looked past: a line indented by a few
// columns still reads like one of rlm's. A blank is a space or tab, any other Unicode space
// (Zs: U+00A0, U+2003, U+3000…), or a character that shows nothing (see invisible).
const maxBlank = 8

// maxMarks is how many combining marks within the start of a line are passed over.
const maxMarks = 16

// skeletonEntry is one row of skeletons (skeleton_table.go).
type skeletonEntry struct {
	r rune
	s string
}

// skeletonOf is what the character r reads as: printable ASCII text, or Mark, by the table
// generated from Unicode's data (internal/skeletongen: the confusables of Unicode Technical
// Standard #39, compatibility decompositions, and the characters whose names say they point
// right or are square brackets); r itself when it reads as nothing else.
func skeletonOf(r rune) string {
	i := sort.Search(len(skeletons), func(i int) bool { return skeletons[i].r >= r })
	if i < len(skeletons) && skeletons[i].r == r {
		return skeletons[i].s
	}
	return string(r)
}

// blank reports a character that shows as empty space, or as nothing, at the start of a line.
func blank(r rune) bool {
	return r == ' ' || r == '\t' || unicode.Is(unicode.Zs, r) || invisible(r)
}

// mark reports a combining mark: drawn on the character before it, faintly or not at all.
func mark(r rune) bool {
	return r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me)
}

// ownStart reports whether the line that s begins starts like one of rlm's own lines: at is the
// offset in s of its first character that is neither blank nor a combining mark, -1 when it
// does not. The line is compared as it reads: up to maxBlank blanks and maxMarks combining marks
// are passed over, and each character counts as its skeleton (skeletonOf). more is true when s
// ends before that is known (never when final: the text ends there).
func ownStart(s string, final bool) (at int, more bool) {
	at, blanks, marks := -1, 0, 0
	var sk []byte // the skeleton of the line from at
	for i := 0; ; {
		if at >= 0 && !ownPrefix(string(sk)) {
			return -1, false
		}
		if at >= 0 && ownWhole(string(sk)) {
			return at, false
		}
		if i == len(s) || !utf8.FullRuneInString(s[i:]) {
			return -1, !final
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case mark(r):
			if marks++; marks > maxMarks {
				return -1, false
			}
		case at < 0 && blank(r):
			if blanks++; blanks > maxBlank {
				return -1, false
			}
		default:
			if at < 0 {
				at = i
			}
			sk = append(sk, skeletonOf(r)...)
		}
		i += n
	}
}

// ownPrefix reports whether some own start's skeleton may still follow sk: sk is a prefix of
// one, or has one as its prefix.
func ownPrefix(sk string) bool {
	for _, o := range ownSkeletons {
		if strings.HasPrefix(o, sk) || strings.HasPrefix(sk, o) {
			return true
		}
	}
	return false
}

// ownWhole reports whether sk starts with a whole own start's skeleton.
func ownWhole(sk string) bool {
	for _, o := range ownSkeletons {
		if strings.HasPrefix(sk, o) {
			return true
		}
	}
	return false
}

// startsOwn reports whether any line of s, ASCII text, starts like one of rlm's own lines.
func startsOwn(s string) bool {
	for {
		if at, _ := ownStart(s, true); at >= 0 {
			return true
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}
