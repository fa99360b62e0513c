package tools

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

type toolError struct {
	kind  error
	msg   string
	cause error // the system's error behind it, where a caller may ask (a missing file)
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.kind }

// Is matches the system's error behind e: errors.Is(err, fs.ErrNotExist).
func (e *toolError) Is(target error) bool { return e.cause != nil && errors.Is(e.cause, target) }

func invalidf(format string, args ...any) error {
	return &toolError{kind: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}

func limitf(format string, args ...any) error {
	return &toolError{kind: ErrLimit, msg: fmt.Sprintf(format, args...)}
}

func (l Limits) validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"PeekChars", l.PeekChars}, {"SearchResults", l.SearchResults}, {"LineChars", l.LineChars},
		{"Chunks", l.Chunks}, {"TallyResults", l.TallyResults}, {"TextChars", l.TextChars}} {
		if f.v < 0 {
			return invalidf("Limits.%s is %d; use 0 for the default or a positive cap", f.name, f.v)
		}
	}
	return nil
}

func (d *Doc) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	err := unmapFile(d.data)
	d.data = nil
	return err
}

// begin locks the mapping for reading; the caller must call d.mu.RUnlock
// when it returns no error.
func (d *Doc) begin() error {
	d.mu.RLock()
	if d.closed {
		d.mu.RUnlock()
		return &toolError{kind: ErrClosed, msg: "the context store is closed"}
	}
	return nil
}

func (d *Doc) ref(start, end int64) string { return Ref(d.name, start, end) }

func (d *Doc) peek(off, n int64) (Slice, error) {
	if err := d.begin(); err != nil {
		return Slice{}, err
	}
	defer d.mu.RUnlock()
	lim, length := d.store.lim, d.Length()
	switch {
	case n < 0:
		return Slice{}, invalidf("peek length %d is negative; ask for 0 to %d characters", n, lim.PeekChars)
	case n > int64(lim.PeekChars):
		return Slice{}, limitf("peek length %d exceeds %d; peek smaller slices or search first", n, lim.PeekChars)
	case off < 0:
		return Slice{}, invalidf("peek offset %d is negative; offsets count characters from 0 to %d", off, length)
	case off > length: // past the end reads as empty, so "peek until empty" loops end
		return Slice{Ref: d.ref(length, length), Start: length, End: length}, nil
	}
	end := min(off+n, length)
	var text string
	err := guard(func() {
		text = d.idx.text(d.data, d.idx.byteAt(d.data, off), d.idx.byteAt(d.data, end))
	})
	if err != nil {
		return Slice{}, err
	}
	return Slice{Ref: d.ref(off, end), Start: off, End: end, Text: text}, nil
}

func (d *Doc) text() (string, error) {
	if err := d.begin(); err != nil {
		return "", err
	}
	defer d.mu.RUnlock()
	if n, max := d.Length(), int64(d.store.lim.TextChars); n > max {
		return "", limitf("text(%s): the context is %d characters, more than text returns (%d); read it in pieces: "+
			"peek(ctx, offset, %d) in a loop over offsets, or chunk(ctx, size, overlap) and peek each slice; search and count scan it whole",
			d.name, n, max, d.store.lim.PeekChars)
	}
	var text string
	err := guard(func() { text = decodeText(d.data) })
	return text, err
}

// engine compiles pattern and picks its engine over this document.
func (d *Doc) engine(pattern string) (engine, error) {
	pt, err := compilePattern(pattern)
	if err != nil {
		return nil, err
	}
	return newEngine(pt, d.data, defaultEngineConfig, parallel)
}

func (d *Doc) count(pattern string) (int64, error) {
	if err := d.begin(); err != nil {
		return 0, err
	}
	defer d.mu.RUnlock()
	var n int64
	err := guarded(func() error {
		e, err := d.engine(pattern)
		if err == nil {
			n, err = countMatches(e, d.data)
		}
		return err
	})
	return n, err
}

// countMatches counts all matches of e in data.
func countMatches(e engine, data []byte) (int64, error) {
	counts, err := partCounts(e, data, e.parts(data))
	total := int64(0)
	for _, n := range counts {
		total += n
	}
	return total, err
}

// firstMatches returns the first max matches (byte offsets) and the total.
func firstMatches(e engine, data []byte, max int) ([][2]int, int64, error) {
	ps := e.parts(data)
	found := make([][][2]int, len(ps))
	counts := make([]int64, len(ps))
	err := scanAll(e, data, ps, func(k int) func(s, e int) {
		return func(s, e int) {
			if len(found[k]) < max {
				found[k] = append(found[k], [2]int{s, e})
			}
			counts[k]++
		}
	})
	var out [][2]int
	total := int64(0)
	for i := range ps {
		total += counts[i]
		for _, m := range found[i] {
			if len(out) < max {
				out = append(out, m)
			}
		}
	}
	return out, total, err
}

// pageMatches returns matches number from to from+max-1 (byte offsets) and
// the total. The first page takes one scan; a later one counts the matches
// of every part, then scans again only the parts that hold the page.
func pageMatches(e engine, data []byte, from int64, max int) ([][2]int, int64, error) {
	if from == 0 {
		return firstMatches(e, data, max)
	}
	ps := e.parts(data)
	counts, err := partCounts(e, data, ps)
	if err != nil {
		return nil, 0, err
	}
	lo, hi, before, total := -1, -1, int64(0), int64(0) // parts [lo, hi] hold the page
	for k, n := range counts {
		if total+n > from && total < from+int64(max) {
			if lo < 0 {
				lo, before = k, total
			}
			hi = k
		}
		total += n
	}
	if lo < 0 {
		return nil, total, nil
	}
	// Parts are scanned concurrently: each keeps the matches of the page it
	// holds, numbered from the count of the parts before it.
	sub := ps[lo : hi+1]
	found := make([][][2]int, len(sub))
	err = scanAll(e, data, sub, func(k int) func(s, e int) {
		rank := before
		for _, n := range counts[lo : lo+k] {
			rank += n
		}
		return func(s, e int) {
			if rank >= from && rank < from+int64(max) {
				found[k] = append(found[k], [2]int{s, e})
			}
			rank++
		}
	})
	var out [][2]int
	for _, f := range found {
		out = append(out, f...)
	}
	return out, total, err
}

// partCounts counts the matches of e in each part.
func partCounts(e engine, data []byte, ps []part) ([]int64, error) {
	counts := make([]int64, len(ps))
	if c, fast := e.(interface{ count([]byte, part) int }); fast {
		err := parallel(len(ps), func(i int) { counts[i] = int64(c.count(data, ps[i])) })
		return counts, err
	}
	err := scanAll(e, data, ps, func(k int) func(s, e int) {
		return func(s, e int) { counts[k]++ }
	})
	return counts, err
}

func (d *Doc) search(pattern string, from int64) (SearchResult, error) {
	if from < 0 {
		return SearchResult{}, invalidf("search from %d is negative; pass 0 for the first page, or the number of matches already seen", from)
	}
	if err := d.begin(); err != nil {
		return SearchResult{}, err
	}
	defer d.mu.RUnlock()
	var res SearchResult
	err := guarded(func() error {
		e, err := d.engine(pattern)
		if err != nil {
			return err
		}
		ms, total, err := pageMatches(e, d.data, from, d.store.lim.SearchResults)
		if err != nil {
			return err
		}
		res = SearchResult{Matches: make([]Match, 0, len(ms)), From: from, Total: total, Capped: total > from+int64(len(ms))}
		for _, m := range ms {
			start, end := d.idx.charAt(d.data, m[0]), d.idx.charAt(d.data, m[1])
			res.Matches = append(res.Matches, Match{
				Ref: d.ref(start, end), Start: start, End: end,
				Line:     d.idx.lineAt(d.data, m[0]),
				Text:     matchText(d.data[m[0]:m[1]], d.store.lim.LineChars),
				LineText: lineText(d.data, m[0], d.store.lim.LineChars),
			})
		}
		return nil
	})
	if err != nil {
		return SearchResult{}, err
	}
	return res, nil
}

// matchText returns the matched bytes as text (invalid UTF-8 as U+FFFD),
// cut to max characters with "…" when longer.
func matchText(b []byte, max int) string {
	out := make([]rune, 0, min(len(b), max))
	for len(b) > 0 {
		if len(out) == max {
			return string(out) + "…"
		}
		r, size := utf8.DecodeRune(b) // an invalid byte decodes as U+FFFD of size 1
		out = append(out, r)
		b = b[size:]
	}
	return string(out)
}

// lineText returns the line that holds byte s, without its "\n" or "\r\n".
// A line longer than max characters is cut to a window of max characters:
// from the line start if s lies within its first max*4/5 characters, else
// from max/5 characters before s; "…" marks each cut end.
func lineText(data []byte, s, max int) string {
	back := max * 4 / 5
	ls, clipStart := s, false
	for n := 0; ls > 0 && data[ls-1] != '\n'; n++ {
		if n == back {
			clipStart = true
			break
		}
		_, w := utf8.DecodeLastRune(data[:ls])
		ls -= w
	}
	if clipStart {
		ls = s
		for n := 0; n < max/5; n++ {
			_, w := utf8.DecodeLastRune(data[:ls])
			ls -= w
		}
	}
	le, n := ls, 0
	for ; le < len(data) && data[le] != '\n' && n < max; n++ {
		_, w := utf8.DecodeRune(data[le:])
		le += w
	}
	clipEnd := le < len(data) && data[le] != '\n'
	if !clipEnd && le > ls && data[le-1] == '\r' {
		le--
	}
	text := decodeText(data[ls:le])
	if clipStart {
		text = "…" + text
	}
	if clipEnd {
		text += "…"
	}
	return text
}
