package tools

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// blockSize is the stride of the sparse index in bytes. Each block costs 24
// bytes of index (0.07% of the file); a lookup scans at most one block.
const blockSize = 32 << 10

// index maps character offsets to byte offsets and back, and counts lines.
// Block k starts at byte starts[k], the first character boundary at or after
// k*blockSize; chars[k] and lines[k] count the characters and '\n' bytes
// before it. The arrays end with a sentinel for the end of the data.
// ascii[k] says block k holds ASCII bytes only: its text needs no decoding.
type index struct {
	starts []int64
	chars  []int64
	lines  []int64
	ascii  []bool
}

const hiBits = 0x8080808080808080

// countChars counts characters the way this package defines them: one per
// valid UTF-8 sequence, one per byte of anything else.
func countChars(b []byte) int {
	n, _ := countCharsASCII(b)
	return n
}

// countCharsASCII is countChars, and whether b holds ASCII bytes only.
func countCharsASCII(b []byte) (int, bool) {
	n, i, ascii := 0, 0, true
	for i < len(b) {
		if i+16 <= len(b) && (binary.LittleEndian.Uint64(b[i:])|binary.LittleEndian.Uint64(b[i+8:]))&hiBits == 0 {
			n += 16
			i += 16
			continue
		}
		if b[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		_, w := utf8.DecodeRune(b[i:])
		n++
		i += w
		ascii = false
	}
	return n, ascii
}

// skipChars returns the number of bytes that the first n characters of b
// occupy (all of b if it holds fewer), and how many characters that was.
func skipChars(b []byte, n int) (nbytes, nchars int) {
	i, c := 0, 0
	for c < n && i < len(b) {
		if n-c >= 8 && i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&hiBits == 0 {
			c += 8
			i += 8
			continue
		}
		if b[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRune(b[i:])
			i += w
		}
		c++
	}
	return i, c
}

// boundaryAtOrAfter returns the first character boundary at or after byte s.
// Decoding is self-synchronising: any byte that is not a continuation byte
// starts a character, so at most three bytes need to be looked at backwards.
func boundaryAtOrAfter(data []byte, s int) int {
	if s <= 0 {
		return 0
	}
	if s >= len(data) {
		return len(data)
	}
	if utf8.RuneStart(data[s]) {
		return s
	}
	for p := s - 1; p >= 0 && p >= s-3; p-- {
		if utf8.RuneStart(data[p]) {
			if _, w := utf8.DecodeRune(data[p:]); p+w > s {
				return p + w
			}
			return s
		}
	}
	return s
}

// buildIndex scans data once, in parallel, counting characters and lines per
// block. A memory fault (the file shrank) panics; callers run it guarded.
func buildIndex(data []byte, workers int) (*index, error) {
	nb := (len(data) + blockSize - 1) / blockSize
	x := &index{
		starts: make([]int64, nb+1),
		chars:  make([]int64, nb+1),
		lines:  make([]int64, nb+1),
		ascii:  make([]bool, nb+1),
	}
	x.starts[nb] = int64(len(data))
	if workers > nb {
		workers = nb
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		lo, hi := nb*w/workers, nb*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = guard(func() {
				// Each worker finds its own block starts, so that the first
				// touch of every page happens in parallel too.
				start := boundaryAtOrAfter(data, lo*blockSize)
				for k := lo; k < hi; k++ {
					end := boundaryAtOrAfter(data, (k+1)*blockSize)
					x.starts[k] = int64(start)
					b := data[start:end]
					start = end
					n, ascii := countCharsASCII(b)
					x.chars[k+1], x.ascii[k] = int64(n), ascii
					x.lines[k+1] = int64(bytes.Count(b, nl))
				}
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for k := 1; k <= nb; k++ {
		x.chars[k] += x.chars[k-1]
		x.lines[k] += x.lines[k-1]
	}
	return x, nil
}

var nl = []byte{'\n'}

func (x *index) length() int64   { return x.chars[len(x.chars)-1] }
func (x *index) newlines() int64 { return x.lines[len(x.lines)-1] }

// block returns the block that holds byte pos.
func (x *index) block(pos int) int {
	return sort.Search(len(x.starts), func(k int) bool { return x.starts[k] > int64(pos) }) - 1
}

// charAt converts byte offset pos (a character boundary) to a character offset.
func (x *index) charAt(data []byte, pos int) int64 {
	k := x.block(pos)
	return x.chars[k] + int64(countChars(data[x.starts[k]:pos]))
}

// lineAt returns the 1-based line number of byte offset pos.
func (x *index) lineAt(data []byte, pos int) int64 {
	k := x.block(pos)
	return x.lines[k] + int64(bytes.Count(data[x.starts[k]:pos], nl)) + 1
}

// byteAt converts character offset off (0 ≤ off ≤ length) to a byte offset.
func (x *index) byteAt(data []byte, off int64) int {
	k := sort.Search(len(x.chars), func(k int) bool { return x.chars[k] > off }) - 1
	if k >= len(x.chars)-1 {
		return len(data)
	}
	start := int(x.starts[k])
	if x.chars[k+1]-x.chars[k] == x.starts[k+1]-x.starts[k] {
		// Every byte of the block is a character (ASCII, or an invalid byte): no scan.
		return start + int(off-x.chars[k])
	}
	nb, _ := skipChars(data[start:x.starts[k+1]], int(off-x.chars[k]))
	return start + nb
}

// text returns the characters in bytes [lo, hi) as a string: a copy, decoded
// (see decodeText) unless the blocks it spans hold ASCII bytes only.
func (x *index) text(data []byte, lo, hi int) string {
	if lo >= hi {
		return ""
	}
	for k, last := x.block(lo), x.block(hi-1); k <= last; k++ {
		if !x.ascii[k] {
			return decodeText(data[lo:hi])
		}
	}
	return string(data[lo:hi])
}

// decodeText copies b into a string, each invalid byte becoming U+FFFD, so
// that the result holds exactly countChars(b) characters.
func decodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		if r == utf8.RuneError && w == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:w])
		}
		b = b[w:]
	}
	return sb.String()
}
