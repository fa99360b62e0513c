package termsafe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Mark begins rlm's own lines in the REPL. String escapes it, so untrusted text never holds it.
const Mark = '⟫'

// Indent begins each line of a message after its first (see Message and NewMessageWriter): a
// line of text from a cell or a model in one of rlm's messages never starts at column 0, where
// rlm's own lines start.
const Indent = "  | "

// String returns s with every character a terminal would act on, or that shows nothing,
// escaped, and the first character of a line that starts like one of rlm's own lines escaped
// (see the package doc). Text with nothing to escape is returned as it is, without copying.
func String(s string) string {
	if clean(s) {
		return s
	}
	st := state{bol: true}
	return st.all(s)
}

// Message returns s escaped as String does, for one of rlm's own messages: every line after the
// first begins with Indent.
func Message(s string) string {
	st := state{bol: true, indent: Indent}
	return st.all(s)
}

func (st *state) all(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	st.escape(&b, s, true)
	return b.String()
}

// clean reports whether s is printable ASCII, tabs and newlines, with no line that starts like
// one of rlm's own lines.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c >= 0x7f {
			return false
		}
	}
	return !startsOwn(s)
}

// JSON escapes, in JSON text, the characters String escapes that encoding/json writes as they
// are (DEL, C1, the format controls, separators and other invisible characters, Mark), as
// "\u009b"-style JSON escapes (a surrogate pair beyond U+FFFF): the result decodes to the same
// values. json.Marshal already escapes the other C0 controls and replaces invalid UTF-8, every
// such character can only occur inside a JSON string, and no line of indented JSON starts with
// text from a string, so nothing else needs escaping.
func JSON(b []byte) []byte {
	s := string(b)
	if clean(s) {
		return b
	}
	var out strings.Builder
	out.Grow(len(b) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < 0x7f || !escapes(r): // an invalid byte (never in encoding/json's output) too
			out.WriteString(s[i : i+n])
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		i += n
	}
	return []byte(out.String())
}

// Writer escapes what is written to it (see String) and writes it to the writer under it. It is
// safe for concurrent use; each Write is escaped and written whole, except for its end when the
// next Write may change how it is escaped (a UTF-8 sequence cut short, a '\r', a joiner, the
// start of a line): that waits for the next Write, and Flush writes it out.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	pend []byte
	st   state
}

// NewWriter returns a Writer that writes escaped text to w: for a stream that carries text from
// a cell or a model as it is (stdout: a cell's output, an answer).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, st: state{bol: true}} }

// NewMessageWriter returns a Writer for a stream of rlm's own lines (stderr: progress, notes,
// errors), each written by one Write that starts a line: a line that begins inside a Write is
// part of the message, and begins with Indent. So text from a cell or a model that a message
// quotes (the code and output --verbose shows, an error) never starts a line there.
func NewMessageWriter(w io.Writer) *Writer {
	return &Writer{w: w, st: state{bol: true, indent: Indent}}
}

// Write escapes p and writes it. It returns len(p) when the escaped text was written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(w.pend) + string(p)
	w.st.own = w.st.indent != "" && w.st.bol && len(w.pend) == 0 // a message starts
	var b strings.Builder
	b.Grow(len(s) + 16)
	took := w.st.escape(&b, s, false)
	w.pend = append(w.pend[:0], s[took:]...)
	if _, err := io.WriteString(w.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
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
	w.st.escape(&b, string(w.pend), true)
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
	if len(p) > 0 {
		t.w.st = state{bol: p[len(p)-1] == '\n', indent: t.w.st.indent}
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
