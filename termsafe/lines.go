package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ownStarts are how rlm's own lines begin on stdout and stderr: the REPL's Mark, the progress
// lines of a run, of a batch and of a queue worker, and rlm's messages.
var ownStarts = [][]rune{{Mark}, []rune("[agent:"), []rune("[batch]"), []rune("[worker]"), []rune("rlm:")}

// maxBlank is how many spaces and tabs at the start of a line are looked past: a line indented
// by a few columns still reads like one of rlm's.
const maxBlank = 8

// maxMarks is how many combining marks within the start of a line are passed over.
const maxMarks = 16

// lookAlike maps a character to the one it reads as, where the two are hard to tell apart in a
// terminal: the marks that read like Mark, and the letters and colons of other scripts that
// read like those of ownStarts. Fullwidth ASCII is folded by skeleton.
var lookAlike = map[rune]rune{
	// ⟫
	'≫': Mark, '⋙': Mark, '»': Mark, '›': Mark, '》': Mark, '\u3009': Mark, '⟩': Mark, '\u232a': Mark,
	'❯': Mark, '❱': Mark, '❭': Mark, '❫': Mark, '⪢': Mark, '⫸': Mark, '⨠': Mark, '﹥': Mark,
	'＞': Mark, 'ᐳ': Mark, '⦒': Mark, '⧽': Mark, '▸': Mark, '▶': Mark, '►': Mark, '⯈': Mark,
	// [ and ]
	'⁅': '[', '〔': '[', '［': '[', '⁆': ']', '〕': ']', '］': ']',
	// letters: Cyrillic, Greek, Armenian, IPA and number forms that look like Latin ones
	'а': 'a', 'ɑ': 'a', 'α': 'a', 'е': 'e', 'ҽ': 'e', 'ɡ': 'g', 'ց': 'g', 'ո': 'n', 'п': 'n',
	'ӏ': 'l', 'ǀ': 'l', '׀': 'l', '∣': 'l', 'ⅼ': 'l', 'Ӏ': 'l', 'І': 'l', 'ⅿ': 'm', 'м': 'm',
	'г': 'r', 'ᴦ': 'r', 'т': 't', 'τ': 't', 'о': 'o', 'ο': 'o', 'к': 'k', 'κ': 'k', 'в': 'b',
	'һ': 'h', 'Ь': 'b', 'с': 'c', 'ϲ': 'c', 'і': 'i', 'ι': 'i', 'ԝ': 'w', 'ѡ': 'w',
	// colons
	'ː': ':', '꞉': ':', '∶': ':', '׃': ':', '։': ':', '︓': ':', '﹕': ':', '᛬': ':', 'ः': ':', '⁚': ':',
}

// skeleton is the character r reads as.
func skeleton(r rune) rune {
	if m, ok := lookAlike[r]; ok {
		return m
	}
	if r >= 0xff01 && r <= 0xff5e { // fullwidth ASCII
		return r - 0xfee0
	}
	return r
}

// ownStart reports whether the line that s begins starts like one of rlm's own lines: at is the
// offset in s of its first character after up to maxBlank spaces and tabs, -1 when it does not.
// Combining marks are passed over (up to maxMarks): an accent a font draws faintly does not
// make "[agent:" read differently. more is true when s ends before that is known (never when
// final: the text ends there).
func ownStart(s string, final bool) (at int, more bool) {
	at = 0
	for at < len(s) && at < maxBlank && (s[at] == ' ' || s[at] == '\t') {
		at++
	}
	open, marks := ownStarts, 0 // the starts s may still begin
	for i, k := at, 0; len(open) > 0; {
		if i == len(s) || !utf8.FullRuneInString(s[i:]) {
			return -1, !final
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if k > 0 && unicode.In(r, unicode.Mn, unicode.Me) {
			if marks++; marks > maxMarks {
				return -1, false
			}
			continue
		}
		var still [][]rune
		for _, o := range open {
			if o[k] == skeleton(r) {
				if k+1 == len(o) {
					return at, false
				}
				still = append(still, o)
			}
		}
		open = still
		k++
	}
	return -1, false
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
