// Package termsafe makes text that rlm did not write itself inert on a terminal and in a file
// that is later printed to one: model replies, a cell's output, its FINAL value, error messages
// that quote either, and the worker's crash line.
//
// Such text may carry bytes a terminal obeys: ESC sequences (OSC 0 sets the window title, OSC 52
// writes the clipboard, CSI 8m hides text, "\r" plus CSI K overwrites a line), BEL, the 8-bit C1
// controls (0x9b is CSI on its own), and Unicode bidi controls (U+202E shows text backwards).
// String and Writer replace every such character with a visible escape:
//
//   - C0 controls except '\t' and '\n', and DEL: "\a", "\b", "\f", "\r", "\v", else "\x1b" style
//     ("\r" directly before '\n' is kept: a CRLF line end moves nothing);
//   - C1 controls U+0080–U+009F, the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069) and Mark: "\u009b" style;
//   - a byte that is not part of valid UTF-8: "\xc2" style.
//
// Everything else, backslashes included, is written as it is. The escapes use the forms of Go
// string literals; the "\u" forms are also JSON escapes, which JSON relies on.
//
// Mark begins rlm's own lines in the REPL (the FINAL line, errors, notes). Text from a cell or a
// model never contains it once escaped, so such a line cannot be forged by a cell.
//
// cmd/rlm wraps its stdout and stderr in a Writer once, so every sink is covered; what rlm writes
// itself and has already escaped (a Mark line, JSON from JSON, an answer the user asked to get
// raw) goes through Raw.
package termsafe
