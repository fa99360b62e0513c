// Package standin is the native stand-in of rlm's model API for Go cells (taskbench): length,
// peek, text, search, count, chunk, FINAL and print, the types Context, Match and Slice, and
// the handles context, ctx0, ctx1, …, written in plain Go over each input read into memory.
// It has rlm's semantics (tools/doc.go): offsets and lengths count characters (code points),
// search's matches are regexp.FindAllIndex's over the whole input, numbered from 0, in pages of
// 200 with their line, text and line text cut at 500 characters, and the same caps.
//
// taskbench copies this file into each native program as package main (the cell's own
// package), so its names are unexported, as the cell sees them; the input files are the
// program's arguments, in --ctx order, and _emitFinal writes the recorded answer to the file
// named by $RLMBENCH_FINAL. Its own names begin with _, which rlm's validator refuses in model
// code, so that no name of a cell collides with them.
package standin

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The caps of rlm's defaults (package limits).
const (
	_peekChars     = 16_000
	_searchResults = 200
	_matchChars    = 500
	_chunks        = 5_000
	_textChars     = 32_000_000
)

// Context is a handle to one input.
type Context struct{ Name string }

// Match is one search hit, as rlm's Go prelude has it.
type Match struct {
	Start, End, Line int
	Text             string
	LineText         string
	Ref              string
	Path             string
	Index, Total     int
}

// Slice describes a chunk of an input.
type Slice struct{ Index, Start, End int }

var context = Context{Name: "ctx0"}

var (
	ctx0 = Context{Name: "ctx0"}
	ctx1 = Context{Name: "ctx1"}
	ctx2 = Context{Name: "ctx2"}
	ctx3 = Context{Name: "ctx3"}
)

// _blockChars is the stride of a document's character index.
const _blockChars = 4096

// _doc is one input: its text (valid UTF-8: an invalid byte reads as U+FFFD, one character, as
// in rlm) and, built when first needed, the byte offset of every _blockChars-th character and
// the line count before every 64 KiB.
type _doc struct {
	name   string
	data   string
	ascii  bool
	length int
	marks  []int // marks[k]: byte offset of character k*_blockChars
}

var (
	_inputs = os.Args[1:] // the input files, in --ctx order
	_docs   = map[string]*_doc{}
)

func _load(c Context) *_doc {
	name := c.Name
	if name == "context" || name == "" {
		name = "ctx0"
	}
	if d := _docs[name]; d != nil {
		return d
	}
	i, err := strconv.Atoi(strings.TrimPrefix(name, "ctx"))
	if err != nil || !strings.HasPrefix(name, "ctx") || i < 0 || i >= len(_inputs) {
		panic(fmt.Errorf("no context named %q; the contexts are ctx0 … ctx%d", name, len(_inputs)-1))
	}
	b, err := os.ReadFile(_inputs[i])
	if err != nil {
		panic(err)
	}
	d := &_doc{name: name, data: _decode(b)}
	d.index()
	_docs[name] = d
	return d
}

// _decode returns b as a string, each invalid byte replaced by U+FFFD.
func _decode(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[w:]
	}
	return sb.String()
}

// index counts the characters and marks every _blockChars-th one (none for ASCII text).
func (d *_doc) index() {
	d.ascii = true
	for i := 0; i < len(d.data); i++ {
		if d.data[i] >= utf8.RuneSelf {
			d.ascii = false
			break
		}
	}
	if d.ascii {
		d.length = len(d.data)
		return
	}
	n := 0
	for i := range d.data { // i steps over characters
		if n%_blockChars == 0 {
			d.marks = append(d.marks, i)
		}
		n++
	}
	d.length = n
}

// byteAt is the byte offset of character k (0 ≤ k ≤ length).
func (d *_doc) byteAt(k int) int {
	if d.ascii {
		return k
	}
	if k >= d.length {
		return len(d.data)
	}
	b := d.marks[k/_blockChars]
	for range k % _blockChars {
		_, w := utf8.DecodeRuneInString(d.data[b:])
		b += w
	}
	return b
}

// charAt is the character offset of byte b, a character boundary.
func (d *_doc) charAt(b int) int {
	if d.ascii {
		return b
	}
	k := sort.Search(len(d.marks), func(i int) bool { return d.marks[i] > b }) - 1
	return k*_blockChars + utf8.RuneCountInString(d.data[d.marks[k]:b])
}

func (d *_doc) ref(start, end int) string {
	return d.name + "[" + strconv.Itoa(start) + ":" + strconv.Itoa(end) + "]"
}

func length(c Context) int { return _load(c).length }

func peek(c Context, offset, n int) string {
	d := _load(c)
	switch {
	case n < 0:
		panic(fmt.Errorf("peek length %d is negative; ask for 0 to %d characters", n, _peekChars))
	case n > _peekChars:
		panic(fmt.Errorf("peek length %d exceeds %d; peek smaller slices or search first", n, _peekChars))
	case offset < 0:
		panic(fmt.Errorf("peek offset %d is negative; offsets count characters from 0 to %d", offset, d.length))
	case offset > d.length:
		return ""
	}
	return d.data[d.byteAt(offset):d.byteAt(min(offset+n, d.length))]
}

func text(c Context) string {
	d := _load(c)
	if d.length > _textChars {
		panic(fmt.Errorf("text(%s): the context is %d characters, more than text returns (%d)", d.name, d.length, _textChars))
	}
	return d.data
}

func count(c Context, regex string) int {
	return len(regexp.MustCompile(regex).FindAllStringIndex(_load(c).data, -1))
}

func search(c Context, regex string, from ...int) []Match {
	d := _load(c)
	if len(from) > 1 {
		panic(fmt.Errorf("search takes at most one from, got %d", len(from)))
	}
	f := 0
	if len(from) == 1 {
		f = from[0]
	}
	if f < 0 {
		panic(fmt.Errorf("search from %d is negative; pass 0 for the first page, or the number of matches already seen", f))
	}
	all := regexp.MustCompile(regex).FindAllStringIndex(d.data, -1)
	page := all[min(f, len(all)):min(f+_searchResults, len(all))]
	out := make([]Match, 0, len(page))
	line, lineFrom := 1, 0 // the line of byte lineFrom
	for i, m := range page {
		line += strings.Count(d.data[lineFrom:m[0]], "\n")
		lineFrom = m[0]
		start, end := d.charAt(m[0]), d.charAt(m[1])
		out = append(out, Match{Start: start, End: end, Line: line, Text: _clip(d.data[m[0]:m[1]], _matchChars),
			LineText: _lineText(d.data, m[0], _matchChars), Ref: d.ref(start, end), Index: f + i, Total: len(all)})
	}
	return out
}

// _clip cuts s to max characters, "…" marking a cut.
func _clip(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// _lineText is the line that holds byte s, without its "\n" or "\r\n"; a line longer than max
// characters is cut to a window of max characters: from the line start if s lies within its
// first max*4/5 characters, else from max/5 characters before s; "…" marks each cut end.
func _lineText(data string, s, max int) string {
	ls := strings.LastIndexByte(data[:s], '\n') + 1
	le := strings.IndexByte(data[s:], '\n')
	if le < 0 {
		le = len(data)
	} else {
		le += s
	}
	clipStart := utf8.RuneCountInString(data[ls:s]) > max*4/5
	if clipStart {
		ls = s
		for range max / 5 {
			_, w := utf8.DecodeLastRuneInString(data[:ls])
			ls -= w
		}
	}
	text := strings.TrimSuffix(_clip(data[ls:le], max), "\r") // a cut line ends in "…"
	if clipStart {
		text = "…" + text
	}
	return text
}

func chunk(c Context, size, overlap int) []Slice {
	d := _load(c)
	switch {
	case size < 1:
		panic(fmt.Errorf("chunk size %d must be at least 1 character", size))
	case overlap < 0 || overlap >= size:
		panic(fmt.Errorf("chunk overlap %d must be at least 0 and less than the size %d", overlap, size))
	}
	var out []Slice
	for start := 0; start < d.length; start += size - overlap {
		end := min(start+size, d.length)
		out = append(out, Slice{Index: len(out), Start: start, End: end})
		if len(out) > _chunks {
			panic(fmt.Errorf("chunk(size=%d, overlap=%d) on %s (%d characters) makes more than %d chunks", size, overlap, d.name, d.length, _chunks))
		}
		if end == d.length {
			break
		}
	}
	return out
}

// _final is the recorded answer: a string as it is, anything else as JSON.
var _final *string

func FINAL(value any) {
	s, ok := value.(string)
	if !ok {
		b, err := json.Marshal(value)
		if err != nil {
			panic(fmt.Errorf("FINAL: cannot serialise a %T as JSON: %v", value, err))
		}
		s = string(b)
	}
	_final = &s
}

func print(values ...any) { fmt.Println(values...) }

// _emitFinal writes the recorded answer, if any, to the file $RLMBENCH_FINAL names.
func _emitFinal() {
	path := os.Getenv("RLMBENCH_FINAL")
	if _final == nil || path == "" {
		return
	}
	if err := os.WriteFile(path, []byte(*_final), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
}
