package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// state is where escaped text stands in the output, across the Writes of a Writer.
type state struct {
	bol    bool   // at the start of a line
	prev   rune   // the character before (0: none, or text rlm wrote itself)
	indent string // written before a line that begins inside one message ("": none)
	cont   bool   // the line start at hand was reached inside the current message
	own    bool   // the line at hand begins a message: rlm's own, not checked
}

// escape appends s to b, escaped, and returns how much of s it took: all of it when final (the
// text ends there), else it stops before what the text still to come may change: a UTF-8
// sequence cut short, a '\r' (kept before '\n'), a joiner or selector (kept by its neighbour),
// the start of a line (escaped when it starts like one of rlm's own lines).
func (st *state) escape(b *strings.Builder, s string, final bool) int {
	force := -1 // the offset of a character escaped because its line starts like rlm's
	for i := 0; i < len(s); {
		if st.bol {
			at, more := -1, false
			if !st.own {
				at, more = ownStart(s[i:], final)
			}
			if more {
				return i
			}
			if st.cont {
				b.WriteString(st.indent)
			}
			st.bol, st.cont, st.own = false, false, false
			if at >= 0 {
				force = i + at
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !final && r == utf8.RuneError && !utf8.FullRuneInString(s[i:]) {
			return i
		}
		next, known := nextRune(s[i+n:])
		if !final && !known && (r == '\r' || needsNext(r)) {
			return i
		}
		st.one(b, s[i:i+n], r, next, i == force)
		if r == '\n' {
			st.bol, st.cont = true, st.indent != "" && i+n < len(s)
		}
		i += n
	}
	return len(s)
}

// one writes the character r (its bytes c), followed by next (0 at the end of the text). The
// character before, for the next one, is r when r is written as it is, else none: what follows
// an escape follows ASCII text.
func (st *state) one(b *strings.Builder, c string, r, next rune, force bool) {
	prev := st.prev
	st.prev = 0
	switch {
	case r == utf8.RuneError && len(c) == 1:
		fmt.Fprintf(b, `\x%02x`, c[0])
	case r == '\r' && next == '\n':
		b.WriteByte('\r')
	case force:
		b.WriteString(quote(r))
	case !escapes(r), invisible(r) && kept(prev, r, next):
		b.WriteString(c)
		st.prev = r
	default:
		b.WriteString(quote(r))
	}
}

// nextRune is the first character of s, if s holds one whole.
func nextRune(s string) (rune, bool) {
	if s == "" || !utf8.FullRuneInString(s) {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r, true
}

// quote is the escape of r in the form of a Go string literal: "\a" for the C0 controls that
// have one, "\x1b" for the other ASCII characters, "\u009b" up to U+FFFF, "\U000e0041" beyond.
func quote(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\r':
		return `\r`
	case '\v':
		return `\v`
	}
	switch {
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}
