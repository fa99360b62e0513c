// Package termsafe makes text that rlm did not write itself inert on a terminal and in a file
// that is later printed to one: model replies, a cell's output, its FINAL value, error messages
// that quote either, and the worker's crash line.
//
// Such text may carry bytes a terminal obeys: ESC sequences (OSC 0 sets the window title, OSC 52
// writes the clipboard, CSI 8m hides text, "\r" plus CSI K overwrites a line), BEL, the 8-bit C1
// controls (0x9b is CSI on its own), and Unicode bidi controls (U+202E shows text backwards). It
// may carry characters that show nothing: zero-width spaces and joiners, tag characters (ASCII
// a reader never sees), variation selectors, Hangul fillers, and line and paragraph separators
// (U+2028, U+2029) that an editor or a log viewer breaks a line at. And it may carry a line that
// reads like one of rlm's own: "⟫ FINAL: 42" written with a look-alike of the mark ("≫", "》"),
// or "[agent:rlm] finished" with Cyrillic letters. String and Writer escape:
//
//   - C0 controls except '\t' and '\n', and DEL: "\a", "\b", "\f", "\r", "\v", else "\x1b" style
//     ("\r" directly before '\n' is kept: a CRLF line end moves nothing);
//   - C1 controls U+0080–U+009F, the format controls (Unicode category Cf: the bidi controls,
//     U+200B–U+200F, U+2060–U+2064, U+FEFF, U+00AD, the tag characters…), the line and
//     paragraph separators (Zl, Zp), the variation selectors, the tag block U+E0000–U+E007F,
//     the Hangul fillers, U+034F, U+17B4, U+17B5, U+2800, and Mark: "\u200b" style, "\U000e0041"
//     beyond U+FFFF;
//   - a byte that is not part of valid UTF-8: "\xc2" style;
//   - the first character of a line that starts like one of rlm's own lines (OwnStarts: "⟫",
//     "[agent:", "[batch]", "[worker]", "[eval]", "rlm:", "rlm mcp:"), compared as they read:
//     up to 8 blanks before it are passed over (spaces and tabs, every other Unicode space,
//     and characters that show nothing), and so are combining marks, wherever they stand; each
//     character counts as its skeleton, what it reads as: a table generated from Unicode's
//     data (the confusables of UTS #39, compatibility decompositions, and the characters whose
//     names say they point right or are square brackets; internal/skeletongen) maps "≫", "▶",
//     "˃" to the mark, "ℓ", "Ɩ", "1" to "l", "ꓽ" to ":", "⟦" to "[", "m" and "rn" alike, and
//     fullwidth and mathematical letters to ASCII.
//
// Ordinary text stays readable: accents, CJK, emoji, and the invisible characters that are part
// of them: a variation selector after a non-ASCII character ("⚠️"), a zero-width joiner inside
// an emoji sequence ("👩‍💻"), a joiner or non-joiner between two letters of a script that
// spells with them (Persian, the Indic scripts). Such a character anywhere else is escaped.
//
// Everything else, backslashes included, is written as it is. The escapes use the forms of Go
// string literals; the "\u" forms are also JSON escapes, which JSON relies on.
//
// Mark begins rlm's own lines in the REPL (the FINAL line, errors, notes). Text from a cell or a
// model never contains it once escaped, nor starts a line with what reads like it, so such a
// line cannot be forged by a cell.
//
// cmd/rlm wraps its stdout in a Writer and its stderr in a message Writer (NewMessageWriter)
// once, so every sink is covered. On stderr every line rlm writes is a message of its own,
// written by one Write; a line that begins inside a message (the code and output --verbose
// shows, an error that quotes a cell) begins with Indent, so text from a cell or a model never
// starts a line where rlm's progress lines start. What rlm writes itself and has already escaped
// (a Mark line, JSON from JSON, an answer the user asked to get raw) goes through Raw.
package termsafe
