package engine

import (
	"strconv"
	"unicode/utf8"
)

// Var is one of a session's top-level variables as a cell left it, for the REPL's variables
// view (the trace's locals, the controller's feedback): its name, its type as a model would
// write it, a short rendering of its value, and its length.
//
// The engines compute it cheaply whatever the value holds: a prefix of a long string, the
// first elements of a slice or map, never more of a large value than one pass over a string
// to count its characters, and never by running model code (no String, toString or getter is
// called).
type Var struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"` // Go: "[]string", "map[string]int", "Match"; JS: "string", "Array", "Map", "Object"
	Repr string `json:"repr,omitempty"` // e.g. `["a" "b" … 48211 more]`, at most MaxReprChars characters
	// Len is the value's length: of a string, its characters (Unicode code points) in both
	// languages, as the prompt and the API count them (not len's bytes in Go, nor .length's
	// UTF-16 units in JS); of a slice, array, map or channel (Go), an Array, Map, Set or typed
	// array (JS), its elements; -1 for a value without one.
	Len int `json:"len"`
}

// Label is the variable as the feedback and the REPL's :vars list it: its name, its type, and
// its length in parentheses when it has one ("lines []string(48213)", "counts Map(17)", "n int").
func (v Var) Label() string {
	switch {
	case v.Type == "":
		return v.Name
	case v.Len >= 0:
		return v.Name + " " + v.Type + "(" + strconv.Itoa(v.Len) + ")"
	}
	return v.Name + " " + v.Type
}

// Bounds of a session's Vars.
const (
	MaxLocals    = 100 // variables described, in the order of the session's variable names
	MaxReprChars = 200 // characters of one Repr
	MaxTypeChars = 80  // characters of one Type
	MaxNameChars = 100 // characters of one Name
)

// Bound returns v with Name, Type and Repr cut to their caps, a cut marked with "…".
func (v Var) Bound() Var {
	v.Name, v.Type, v.Repr = cut(v.Name, MaxNameChars), cut(v.Type, MaxTypeChars), cut(v.Repr, MaxReprChars)
	return v
}

// cut keeps the first n characters of s; of a longer s, the first n-1 and "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1 && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	if _, w := utf8.DecodeRuneInString(s[i:]); i+w >= len(s) {
		return s // n characters exactly
	}
	return s[:i] + "…"
}

// ReprWriter builds a Repr of at most a given number of characters: what does not fit is cut
// and marked with "…", and an element of a list that does not fit is replaced by the count of
// the elements left ("… 48211 more"). An engine's rendering of a value writes into one and
// stops reading the value once Cut reports true, so its work is bounded by the output.
type ReprWriter struct {
	buf  []byte
	room int
	cut  bool
}

// NewReprWriter returns a writer of at most room characters.
func NewReprWriter(room int) *ReprWriter { return &ReprWriter{room: room} }

// String is what was written, with "…" at the end when something was cut.
func (w *ReprWriter) String() string {
	if w.cut {
		return string(w.buf) + "…"
	}
	return string(w.buf)
}

// Cut reports whether the output is full: nothing more is written.
func (w *ReprWriter) Cut() bool { return w.cut }

// Room is the characters left.
func (w *ReprWriter) Room() int { return w.room }

// Write appends s, or as much of it as fits, keeping one character for the "…".
func (w *ReprWriter) Write(s string) {
	if w.cut {
		return
	}
	if n := utf8.RuneCountInString(s); n <= w.room {
		w.buf = append(w.buf, s...)
		w.room -= n
		return
	}
	for _, r := range s {
		if w.room <= 1 {
			break
		}
		w.buf = utf8.AppendRune(w.buf, r)
		w.room--
	}
	w.cut = true
}

// summaryRoom is kept free while an element is written, for the " … 999999 more]" that replaces
// it if it does not fit.
const summaryRoom = 24

// Element writes the i-th of n elements of a list with write, after sep unless it is the first.
// An element that does not fit is taken back and the count of the elements left written
// instead ("… 48211 more", or "…" when n < 0: the count is not known). It reports whether to go
// on with the next element.
func (w *ReprWriter) Element(i, n int, sep string, write func()) bool {
	mark, room := len(w.buf), w.room
	if i > 0 {
		w.Write(sep)
	}
	w.room -= summaryRoom
	write()
	w.room += summaryRoom
	if !w.cut {
		return true
	}
	w.buf, w.room, w.cut = w.buf[:mark], room, false
	if i > 0 {
		w.Write(sep)
	}
	if n < 0 {
		w.Write("…")
	} else {
		w.Write("… " + strconv.Itoa(n-i) + " more")
	}
	return false
}
