package monitor

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pretokenize splits text into pieces that resemble BPE tokens: a word with
// its leading space, digit groups of up to three, newline plus indentation,
// runs of one punctuation character, common operator pairs, and long words
// in pieces of four to six letters. The generator and the real-text test use
// it; it only has to be plausible, not faithful to any tokenizer.
func pretokenize(s string) []string {
	var out []string
	for len(s) > 0 {
		n := nextPiece(s)
		out = append(out, splitLong(s[:n])...)
		s = s[n:]
	}
	return out
}

var digraphs = []string{":=", "!=", "==", "<=", ">=", "&&", "||", "->", "//", "\":", "\",", "},", "{\"", "]}", "[]"}

func nextPiece(s string) int {
	c := s[0]
	switch {
	case c == '\n' || c == '\r':
		i := 1
		for i < len(s) && i < 3 && (s[i] == '\n' || s[i] == '\r') {
			i++
		}
		for i < len(s) && i < 10 && (s[i] == '\t' || s[i] == ' ') {
			i++
		}
		return i
	case c == ' ' && len(s) > 1 && isWordStart(s[1:]):
		return 1 + wordLen(s[1:])
	case c == ' ' || c == '\t':
		i := 1
		for i < len(s) && i < 16 && s[i] == c {
			i++
		}
		if i == 1 && len(s) > 1 && strings.IndexByte("{}()[]<>=:;,.!?\"'`+-*/&|", s[1]) >= 0 {
			return 2
		}
		return i
	case isWordStart(s):
		return wordLen(s)
	}
	if c >= utf8.RuneSelf {
		_, n := utf8.DecodeRuneInString(s)
		return n
	}
	i := 1
	for i < len(s) && i < 16 && s[i] == c {
		i++
	}
	if i > 2 {
		return i // "====", "----": one token per run, as BPE vocabularies have
	}
	for _, d := range digraphs {
		if strings.HasPrefix(s, d) {
			return len(d)
		}
	}
	return i
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// wordLen is the length of the letter run (or digit group of ≤3) at s.
func wordLen(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if r < utf8.RuneSelf && unicode.IsDigit(r) {
		i := 1
		for i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	if r >= utf8.RuneSelf && !unicode.Is(unicode.Latin, r) {
		// Non-Latin scripts: one or two characters per token.
		if r2, n2 := utf8.DecodeRuneInString(s[n:]); n2 > 0 && unicode.IsLetter(r2) && r2 >= utf8.RuneSelf {
			return n + n2
		}
		return n
	}
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsLetter(r) || r == '_') || (r >= utf8.RuneSelf && !unicode.Is(unicode.Latin, r)) {
			break
		}
		i += n
	}
	return max(i, n)
}

// splitLong cuts a word longer than eight bytes into pieces whose sizes
// depend only on the word, so a word always tokenizes the same way.
func splitLong(w string) []string {
	if len(w) <= 8 || !utf8.ValidString(w) || strings.ContainsAny(w, "\n\t") {
		return []string{w}
	}
	var out []string
	h := hashString(w)
	for len(w) > 8 {
		k := 4 + int(h%3)
		h /= 3
		for k < len(w) && !utf8.RuneStart(w[k]) {
			k++
		}
		out = append(out, w[:k])
		w = w[k:]
	}
	return append(out, w)
}
