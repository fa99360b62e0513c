package termsafe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mark begins rlm's own lines in the REPL. String escapes it, so untrusted text never holds it.
const Mark = '⟫'

// escapes reports whether r (a decoded rune, or utf8.RuneError for a bad byte) is escaped.
func escapes(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r < 0x7f:
		return false
	case r <= 0x9f: // DEL and C1
		return true
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x2066, 0x2067, 0x2068, 0x2069, Mark:
		return true
	}
	return false
}

// String returns s with every character a terminal would act on escaped (see the package doc).
// Text with nothing to escape is returned as it is, without copying.
func String(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	appendEscaped(&b, s)
	return b.String()
}

// clean reports whether s needs no escape at all.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c >= 0x7f {
			return cleanSlow(s[i:])
		}
	}
	return true
}

func cleanSlow(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return false
			}
		}
		if escapes(r) {
			return false
		}
	}
	return true
}

// appendEscaped writes s escaped; a '\r' is kept only directly before a '\n'.
func appendEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\r')
		case !escapes(r):
			b.WriteString(s[i : i+n])
		case r < 0x20 || r == 0x7f:
			b.WriteString(c0Escape(byte(r)))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += n
	}
}

func c0Escape(c byte) string {
	switch c {
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
	return fmt.Sprintf(`\x%02x`, c)
}

// JSON escapes, in JSON text, the characters String escapes that encoding/json writes as they
// are (DEL, C1, the bidi controls, Mark), as "\u009b"-style JSON escapes: the result decodes
// to the same values. json.Marshal already escapes the other C0 controls and replaces invalid
// UTF-8, and every such character can only occur inside a JSON string.
func JSON(b []byte) []byte {
	if clean(string(b)) {
		return b
	}
	var out strings.Builder
	out.Grow(len(b) + 16)
	s := string(b)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if escapes(r) && r >= 0x7f { // an invalid byte (never in encoding/json's output) too
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteString(s[i : i+n])
		}
		i += n
	}
	return []byte(out.String())
}

// Writer escapes what is written to it (see String) and writes it to the writer under it. It is
// safe for concurrent use; each Write is escaped and written whole. An incomplete UTF-8
// sequence or a '\r' at the end of a Write waits for the next one (it may continue there);
// Flush writes it out.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	pend []byte
}

// NewWriter returns a Writer that writes escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it. It returns len(p) when the escaped text was written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(w.pend) + string(p)
	w.pend = w.pend[:0]
	keep := holdBack(s)
	var b strings.Builder
	appendEscaped(&b, s[:len(s)-keep])
	w.pend = append(w.pend, s[len(s)-keep:]...)
	if _, err := io.WriteString(w.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// holdBack is the length of the tail of s that may continue in the next write: a '\r', or the
// start of a UTF-8 sequence cut short.
func holdBack(s string) int {
	if strings.HasSuffix(s, "\r") {
		return 1
	}
	for n := 1; n <= utf8.UTFMax-1 && n <= len(s); n++ {
		c := s[len(s)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRuneInString(s[len(s)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

// Flush writes out what a Write held back, escaped as the end of the text.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if len(w.pend) == 0 {
		return nil
	}
	var b strings.Builder
	appendEscaped(&b, string(w.pend))
	w.pend = w.pend[:0]
	_, err := io.WriteString(w.w, b.String())
	return err
}

// trusted writes text rlm vouches for as it is, after what the Writer held back.
type trusted struct{ w *Writer }

func (t trusted) Write(p []byte) (int, error) {
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	if err := t.w.flushLocked(); err != nil {
		return 0, err
	}
	return t.w.w.Write(p)
}

// Raw returns a writer that writes to the same place as w without escaping: w's underlying
// writer when w is a *Writer (ordered after what w held back), else w itself. Use it only for
// text rlm wrote or escaped itself, and for an answer the user asked to get raw (--raw).
func Raw(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		return trusted{tw}
	}
	return w
}
