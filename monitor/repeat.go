package monitor

import (
	"compress/flate"
	"io"
	"sync"
	"unicode/utf8"
)

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashString is FNV-1a; it does not allocate.
func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// periodDetector tracks, for every period p ≤ maxP, how many of the most
// recent tokens equal the token p positions earlier. The tail of length
// run[p]+p is then exactly periodic with period p. O(maxP) per token, in
// one pass that also finds the smallest period whose span reaches need[p].
type periodDetector struct {
	buf  []uint64 // token hashes, compacted to the last maxP when full
	used int
	run  []int32 // run[p] for p = 1..maxP; run[0] unused
	need []int32 // need[p]: span that makes period p a loop
	loop int     // smallest p with span(p) ≥ need[p] after the last push, or 0
}

func (d *periodDetector) init(maxP int, need func(p int) int) {
	d.buf = make([]uint64, 4*maxP)
	d.run = make([]int32, maxP+1)
	d.need = make([]int32, maxP+1)
	for p := 1; p <= maxP; p++ {
		d.need[p] = int32(need(p))
	}
}

func (d *periodDetector) maxPeriod() int { return len(d.run) - 1 }

func (d *periodDetector) push(h uint64) {
	maxP := d.maxPeriod()
	if d.used == len(d.buf) {
		d.used = copy(d.buf, d.buf[d.used-maxP:d.used])
	}
	lim := min(maxP, d.used)
	hist := d.buf[d.used-lim : d.used] // hist[lim-p] is the token p back
	run, need := d.run[1:lim+1], d.need[1:lim+1]
	d.loop = 0
	for i := range run {
		if hist[lim-1-i] != h {
			run[i] = 0
			continue
		}
		run[i]++
		if d.loop == 0 && run[i]+int32(i+1) >= need[i] {
			d.loop = i + 1
		}
	}
	d.buf[d.used] = h
	d.used++
}

// span is the length of the exactly p-periodic tail (p itself when the last
// token does not repeat the one p back).
func (d *periodDetector) span(p int) int { return int(d.run[p]) + p }

const (
	maxNgram    = 8
	ngramWindow = 64 // n-grams in the repetition window
	ngramSlots  = 256
)

// ngramCounter keeps the distinct n-grams among the last ngramWindow in a
// small open-addressing table, so the ratio 1 - distinct/total is O(1) per
// token and never allocates.
type ngramCounter struct {
	n        int
	last     [maxNgram]uint64
	seen     int
	win      [ngramWindow]uint64
	next     int
	filled   int
	distinct int
	keys     [ngramSlots]uint64 // 0 = empty
	counts   [ngramSlots]int32
}

func (c *ngramCounter) init(n int) { c.n = n }

func (c *ngramCounter) push(h uint64) {
	copy(c.last[:c.n-1], c.last[1:c.n])
	c.last[c.n-1] = h
	if c.seen++; c.seen < c.n {
		return
	}
	g := uint64(fnvOffset)
	for _, x := range c.last[:c.n] {
		g = (g ^ x) * fnvPrime
		g ^= g >> 29
	}
	g |= 1 // keep 0 for "empty"
	if c.filled == ngramWindow {
		c.remove(c.win[c.next])
	} else {
		c.filled++
	}
	c.win[c.next] = g
	c.next = (c.next + 1) % ngramWindow
	c.add(g)
}

func (c *ngramCounter) slot(g uint64) int {
	i := int(g>>56) % ngramSlots
	for c.keys[i] != 0 && c.keys[i] != g {
		i = (i + 1) % ngramSlots
	}
	return i
}

func (c *ngramCounter) add(g uint64) {
	i := c.slot(g)
	if c.keys[i] == 0 {
		c.keys[i] = g
		c.distinct++
	}
	c.counts[i]++
}

// remove decrements g and deletes it at zero with backward-shift deletion.
func (c *ngramCounter) remove(g uint64) {
	i := c.slot(g)
	if c.counts[i]--; c.counts[i] > 0 {
		return
	}
	c.distinct--
	for j := (i + 1) % ngramSlots; c.keys[j] != 0; j = (j + 1) % ngramSlots {
		home := int(c.keys[j]>>56) % ngramSlots
		// Move j into the hole at i unless its home lies cyclically in (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			c.keys[i], c.counts[i] = c.keys[j], c.counts[j]
			i = j
		}
	}
	c.keys[i], c.counts[i] = 0, 0
}

// ratio is 1 - distinct/total over the n-grams in the window.
func (c *ngramCounter) ratio() float64 {
	if c.filled == 0 {
		return 0
	}
	return 1 - float64(c.distinct)/float64(c.filled)
}

func (c *ngramCounter) full() bool { return c.filled == ngramWindow }

const (
	textWindow      = 2048 // bytes kept for the byte-level checks
	checkEvery      = 256  // bytes between byte-period and script checks
	compressEvery   = 1024 // bytes between compression checks (flate: 20–40 µs per 2 KiB)
	compressMinText = 1024 // no compression ratio below this many bytes
	maxBytePeriod   = textWindow / 2
	minByteSpan     = 160  // bytes of exact repetition (≥ 2 copies) for a text loop
	chunkRing       = 8    // sentences remembered by the chunk-hash detector
	chunkSpanBytes  = 512  // ... counted only if they ended within this many bytes
	minChunkBytes   = 32   // shorter sentences (non-space bytes) are ignored
	maxChunkBytes   = 512  // a chunk without a boundary is cut here
	scriptBytes     = 1024 // text examined by the script-mixing check
)

// textState runs the detectors that need only text: the sentence-hash loop
// detector (per byte); every checkEvery bytes, in text-only streams, the
// exact byte-level tail period and the script-mixing count; and every
// compressEvery bytes the flate compression ratio of the last textWindow
// bytes.
type textState struct {
	buf        [2 * textWindow]byte // the text's tail, compacted when full
	used       int
	total      int
	sinceCheck int
	lastHigh   int  // total at the last non-ASCII byte
	lastFlate  int  // total at the last compression check
	textOnly   bool // run the byte-period and script checks (set by the Monitor)
	rev        [textWindow]byte
	z          [textWindow]int32
	cw         countWriter
	ratio      float64 // last compression ratio, 0 before the first
	ratioBytes int
	bytePeriod int // smallest exact text period found at the last check, 0 if none
	byteSpan   int
	switches   int // alphabet changes inside words in the last scriptBytes

	chunkHash    uint64
	chunkLen     int
	chunkHead    [2]byte // first two non-space bytes (to skip comment lines)
	lastNonSpace byte
	afterTerm    bool
	chunks       [chunkRing]uint64
	chunkEnds    [chunkRing]int // t.total when each sentence ended
	chunkNext    int
	chunkRepeats int // occurrences of the latest sentence among the remembered ones
}

func (t *textState) init() { t.chunkHash = fnvOffset }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (t *textState) write(s string) {
	for rest := s; len(rest) > 0; {
		if t.used == len(t.buf) {
			t.used = copy(t.buf[:], t.buf[len(t.buf)-textWindow:])
		}
		k := copy(t.buf[t.used:], rest)
		t.used += k
		rest = rest[k:]
	}
	for i := 0; i < len(s); i++ {
		t.scan(s[i])
	}
	if t.sinceCheck >= checkEvery {
		t.check(false)
	}
}

// scan advances the per-byte state: counters and sentence boundaries.
func (t *textState) scan(c byte) {
	t.total++
	t.sinceCheck++
	if c >= 0x80 {
		t.lastHigh = t.total
	}
	switch {
	case c == '\n' || (t.afterTerm && isSpace(c)):
		t.endChunk()
	case !isSpace(c):
		if t.chunkLen < 2 {
			t.chunkHead[t.chunkLen] = c
		}
		t.lastNonSpace = c
		t.chunkHash = (t.chunkHash ^ uint64(c)) * fnvPrime
		if t.chunkLen++; t.chunkLen >= maxChunkBytes {
			t.endChunk()
		}
	}
	t.afterTerm = c == '.' || c == '!' || c == '?'
}

// endChunk closes the current line or sentence. A prose sentence (ending in
// . ! or ?, not a comment line) of at least minChunkBytes non-space bytes is
// hashed, and chunkRepeats counts its occurrences among the last chunkRing
// sentences that ended within chunkSpanBytes. Lines of code are not
// counted: real code repeats lines often.
func (t *textState) endChunk() {
	term := t.lastNonSpace == '.' || t.lastNonSpace == '!' || t.lastNonSpace == '?'
	comment := t.chunkHead == [2]byte{'/', '/'} || t.chunkHead[0] == '#' || t.chunkHead[0] == '*'
	if t.chunkLen >= minChunkBytes && term && !comment {
		h := t.chunkHash | 1
		count := 1
		for i, x := range t.chunks {
			if x == h && t.total-t.chunkEnds[i] <= chunkSpanBytes {
				count++
			}
		}
		t.chunks[t.chunkNext], t.chunkEnds[t.chunkNext] = h, t.total
		t.chunkNext = (t.chunkNext + 1) % chunkRing
		t.chunkRepeats = count
	}
	t.chunkHash, t.chunkLen, t.lastNonSpace = fnvOffset, 0, 0
}

// check runs the byte-level checks on the last textWindow bytes; final
// forces a compression check (end of the generation).
func (t *textState) check(final bool) {
	n := min(t.used, textWindow)
	if n < minByteSpan || (t.sinceCheck == 0 && !final) {
		return
	}
	t.sinceCheck = 0
	text := t.buf[t.used-n : t.used]
	if n >= compressMinText && (t.total-t.lastFlate >= compressEvery || final) {
		t.lastFlate = t.total
		t.ratio, t.ratioBytes = compressRatio(text, &t.cw), n
	}
	if !t.textOnly {
		return
	}
	t.switches = 0
	if t.total-t.lastHigh < scriptBytes {
		t.switches = scriptSwitches(text[max(0, n-scriptBytes):])
	}
	rev := t.rev[:n]
	for i := range rev {
		rev[i] = text[n-1-i]
	}
	t.bytePeriod, t.byteSpan = smallestPeriod(rev, t.z[:n], maxBytePeriod, minByteSpan)
}

// smallestPeriod treats rev as a text read backwards from its end and
// returns the smallest p ≤ maxP such that the text's tail of length
// span ≥ max(2p, minSpan) is p-periodic, using the Z-function of rev.
func smallestPeriod(rev []byte, z []int32, maxP, minSpan int) (p, span int) {
	n := len(rev)
	zFunction(rev, z)
	for p := 1; p <= min(maxP, n/2); p++ {
		s := p + int(z[p])
		if s >= 2*p && s >= minSpan {
			return p, s
		}
	}
	return 0, 0
}

// zFunction sets z[i] to the length of the longest common prefix of s and
// s[i:] (z[0] = len(s)). Linear time.
func zFunction(s []byte, z []int32) {
	n := len(s)
	if n == 0 {
		return
	}
	z[0] = int32(n)
	l, r := 0, 0
	for i := 1; i < n; i++ {
		k := 0
		if i < r {
			k = min(r-i, int(z[i-l]))
		}
		for i+k < n && s[k] == s[i+k] {
			k++
		}
		z[i] = int32(k)
		if i+k > r {
			l, r = i, i+k
		}
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

var flatePool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
	return w
}}

// compressRatio is len(flate(b))/len(b) at flate.BestSpeed.
func compressRatio(b []byte, cw *countWriter) float64 {
	if len(b) == 0 {
		return 0
	}
	w := flatePool.Get().(*flate.Writer)
	cw.n = 0
	w.Reset(cw)
	_, _ = w.Write(b)
	_ = w.Close()
	w.Reset(io.Discard)
	flatePool.Put(w)
	return float64(cw.n) / float64(len(b))
}

type script uint8

const (
	scriptSpace script = iota // whitespace: ends a word
	scriptNone                // digits, punctuation, symbols: part of a word, no alphabet
	scriptLatin
	scriptCyrillic
	scriptHebrew
	scriptArabic
	scriptIndic
	scriptThai
	scriptMixes // Greek, Han, kana, Hangul: mixed with Latin inside words legitimately (λx, 使用Go)
	scriptOther
)

// scriptOf classifies a rune by coarse Unicode block.
func scriptOf(r rune) script {
	switch {
	case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		return scriptSpace
	case r < 0xC0 || r == 0xD7 || r == 0xF7:
		if r|0x20 >= 'a' && r|0x20 <= 'z' {
			return scriptLatin
		}
		return scriptNone // ASCII and Latin-1 punctuation, digits, symbols (µ, ×)
	case r <= 0x2AF || r >= 0x1E00 && r <= 0x1EFF:
		return scriptLatin // Latin-1 letters, Extended-A/B, IPA, Vietnamese
	case r <= 0x36F || r >= 0x1AB0 && r <= 0x1AFF || r >= 0x1DC0 && r <= 0x1DFF ||
		r >= 0x660 && r <= 0x669 || r >= 0x6F0 && r <= 0x6F9:
		return scriptNone // modifier letters, combining marks, Arabic-Indic digits
	case r >= 0x370 && r <= 0x3FF:
		return scriptMixes
	case r >= 0x400 && r <= 0x52F:
		return scriptCyrillic
	case r >= 0x590 && r <= 0x5FF:
		return scriptHebrew
	case r >= 0x600 && r <= 0x6FF || r >= 0x750 && r <= 0x77F:
		return scriptArabic
	case r >= 0x900 && r <= 0xDFF:
		return scriptIndic
	case r >= 0xE00 && r <= 0xE7F:
		return scriptThai
	case r >= 0x2E80 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7AF || r >= 0xFF00 && r <= 0xFFEF:
		return scriptMixes
	case r >= 0x2000 && r <= 0x2BFF || r >= 0xE000 && r <= 0xF8FF || r >= 0xFE00 && r <= 0xFE0F ||
		r >= 0x1F000 || r == utf8.RuneError:
		return scriptNone // punctuation, arrows, math, box drawing, private use, emoji, bad UTF-8
	}
	return scriptOther
}

// scriptSwitches counts alphabet changes between letters of the same word
// (no whitespace between them), ignoring changes to or from Greek and CJK,
// which mix with Latin inside words legitimately ("Δt", "使用Go"). Real text almost never
// switches alphabet inside a word; tokens sampled from a flat distribution
// over a multilingual vocabulary do so constantly.
func scriptSwitches(b []byte) int {
	prev, n := scriptSpace, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch s := scriptOf(r); s {
		case scriptSpace:
			prev = scriptSpace
		case scriptNone:
		default:
			if prev > scriptNone && s != prev && s != scriptMixes && prev != scriptMixes {
				n++
			}
			prev = s
		}
	}
	return n
}
