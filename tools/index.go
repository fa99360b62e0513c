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

// releaseBlocks is how many blocks (2 MiB) buildIndex scans before it unmaps
// their pages.
const releaseBlocks = 64

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

// countCharsASCII is countChars, and whether b holds ASCII bytes only. It
// runs through ASCII text up to 32 bytes at a time (as utf8.Valid does) and
// steps over each other sequence by its width (seqWidth), so that a valid
// multi-byte character counts once and each other byte once.
func countCharsASCII(b []byte) (int, bool) {
	p := b[:len(b):len(b)]  // lets the compiler drop the bounds checks below
	extra, ascii := 0, true // extra: the bytes after the first of each multi-byte character
	for len(p) > 0 {
		if p[0] < utf8.RuneSelf {
			p = p[1:]
			if len(p) > 8 && word(p)&hiBits == 0 {
				p = p[8:]
				if len(p) > 16 && (word(p)|word(p[8:]))&hiBits == 0 {
					p = p[16:]
					for len(p) > 32 && (word(p)|word(p[8:])|word(p[16:])|word(p[24:]))&hiBits == 0 {
						p = p[32:]
					}
				}
			}
			continue
		}
		ascii = false
		// seqWidth, inlined by hand: a valid sequence's bytes after the first
		// are extra; an invalid byte is a character of its own.
		lead := leads[p[0]]
		n := int(lead & 7)
		if n < 2 || len(p) < n {
			p = p[1:]
			continue
		}
		if r := seconds[lead>>4]; p[1] < r[0] || p[1] > r[1] || n > 2 && p[2]&0xC0 != 0x80 || n > 3 && p[3]&0xC0 != 0x80 {
			p = p[1:]
			continue
		}
		extra += n - 1
		p = p[n:]
	}
	return len(b) - extra, ascii
}

func word(p []byte) uint64 { return binary.LittleEndian.Uint64(p) }

// seqWidth is the width of the valid UTF-8 sequence that starts p (whose
// first byte is not ASCII), or 1 if none does: the step utf8.DecodeRune
// takes, without building the rune.
func seqWidth(p []byte) int {
	lead := leads[p[0]]
	n := int(lead & 7)
	if n < 2 || len(p) < n {
		return 1
	}
	if r := seconds[lead>>4]; p[1] < r[0] || p[1] > r[1] {
		return 1
	}
	for _, c := range p[2:n] {
		if c&0xC0 != 0x80 {
			return 1
		}
	}
	return n
}

// leads describes each byte as the first of a UTF-8 sequence (RFC 3629): the
// low bits hold the sequence's width (0: not a lead byte), the high bits the
// range its second byte must be in (seconds), which excludes overlong forms,
// surrogates and code points past U+10FFFF.
var leads = func() (t [256]byte) {
	for c := 0xC2; c <= 0xDF; c++ {
		t[c] = 2
	}
	for c := 0xE0; c <= 0xEF; c++ {
		t[c] = 3
	}
	for c := 0xF0; c <= 0xF4; c++ {
		t[c] = 4
	}
	t[0xE0] |= 1 << 4
	t[0xED] |= 2 << 4
	t[0xF0] |= 3 << 4
	t[0xF4] |= 4 << 4
	return t
}()

// seconds are the ranges of a sequence's second byte that leads refers to.
var seconds = [5][2]byte{{0x80, 0xBF}, {0xA0, 0xBF}, {0x80, 0x9F}, {0x90, 0xBF}, {0x80, 0x8F}}

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
// block. With mapped set, data is a read-only shared file mapping, and the
// pages of each scanned segment are unmapped again (releasePages), so that
// indexing a large file does not leave it all in the process's RSS. A memory
// fault (the file shrank) is an ErrChanged error.
func buildIndex(data []byte, workers int, mapped bool) (*index, error) {
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
				start, seg := boundaryAtOrAfter(data, lo*blockSize), lo
				for k := lo; k < hi; k++ {
					if mapped && k-seg == releaseBlocks {
						releasePages(data[seg*blockSize : k*blockSize])
						seg = k
					}
					end := boundaryAtOrAfter(data, (k+1)*blockSize)
					x.starts[k] = int64(start)
					b := data[start:end]
					start = end
					n, ascii := countCharsASCII(b)
					x.chars[k+1], x.ascii[k] = int64(n), ascii
					x.lines[k+1] = int64(bytes.Count(b, nl))
				}
				if mapped {
					releasePages(data[seg*blockSize : min(hi*blockSize, len(data))])
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
