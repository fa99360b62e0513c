package termsafe

import "unicode"

// Which characters are escaped. Three classes, each decided from the character alone (invisible
// reports the third), and two that depend on their neighbours (kept).

// control reports a character a terminal acts on: C0 controls except '\t' and '\n', DEL, C1.
func control(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f
}

// invisible reports a character that shows nothing, or moves text, where it stands: the format
// controls (Unicode category Cf: bidi controls, zero-width space and joiners, word joiner,
// invisible operators, U+FEFF, soft hyphen, the tag characters U+E0001 and U+E0020–U+E007F…),
// the line and paragraph separators (Zl, Zp), the variation selectors, the rest of the tag
// block, and the code points that print as blank although they are letters or symbols.
func invisible(r rune) bool {
	switch {
	case r < 0xa0:
		return false
	case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector):
		return true
	case r >= 0xe0000 && r <= 0xe007f: // the tag block, unassigned code points included
		return true
	}
	switch r {
	case 0x034f, // combining grapheme joiner
		0x115f, 0x1160, 0x3164, 0xffa0, // Hangul fillers
		0x17b4, 0x17b5, // Khmer inherent vowels, never shown
		0x2800: // Braille blank
		return true
	}
	return false
}

// escapes reports whether r, a decoded rune (or utf8.RuneError for a bad byte), is escaped
// wherever it stands, its neighbours aside (see kept).
func escapes(r rune) bool {
	return control(r) || r == Mark || invisible(r)
}

// kept reports whether the invisible character r, between prev and next (0: none, or not
// known), is part of ordinary text and left as it is:
//   - a variation selector after a visible non-ASCII character (the emoji style of "⚠️", an
//     ideograph's variant), or U+FE0F in a keycap ("1️⃣");
//   - a zero-width joiner inside an emoji sequence ("👩‍💻");
//   - a zero-width joiner or non-joiner between two letters of a script that shapes with them
//     (Persian "می‌خواهم", the Indic conjuncts).
//
// Everywhere else, after ASCII text, at the start of a line or next to another invisible
// character, it is escaped.
func kept(prev, r, next rune) bool {
	switch {
	case unicode.Is(unicode.Variation_Selector, r):
		if prev >= 0x80 && unicode.IsGraphic(prev) && !unicode.IsSpace(prev) && !invisible(prev) && prev != Mark {
			return true
		}
		return r == 0xfe0f && next == 0x20e3 && (prev >= '0' && prev <= '9' || prev == '#' || prev == '*')
	case r == 0x200d && pictographic(next) && (pictographic(prev) || prev == 0xfe0f):
		return true
	case r == 0x200c || r == 0x200d:
		return joining(prev) && joining(next)
	}
	return false
}

// needsNext reports whether kept may depend on the character after r.
func needsNext(r rune) bool {
	return r == 0x200c || r == 0x200d || r == 0xfe0f
}

// pictographic approximates Extended_Pictographic: the blocks emoji are drawn from.
func pictographic(r rune) bool {
	switch {
	case r >= 0x1f000 && r <= 0x1faff, r >= 0x2600 && r <= 0x27bf, r >= 0x2300 && r <= 0x23ff,
		r >= 0x2b00 && r <= 0x2bff, r >= 0x2190 && r <= 0x21ff:
		return true
	}
	return r == 0x00a9 || r == 0x00ae || r == 0x203c || r == 0x2049 || r == 0x2122 || r == 0x2139 || r == 0x3030 || r == 0x303d
}

// joiningScripts are the scripts whose spelling uses the zero-width joiner and non-joiner.
var joiningScripts = []*unicode.RangeTable{unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya, unicode.Tamil,
	unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala, unicode.Khmer, unicode.Myanmar}

func joining(r rune) bool {
	return r >= 0x80 && (unicode.IsLetter(r) || unicode.IsMark(r)) && unicode.In(r, joiningScripts...)
}
