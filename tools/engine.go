package tools

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// A part is a byte range searched on its own: an engine reports exactly the
// matches that start in [lo, hi]. Parts tile the data.
type part struct{ lo, hi int }

// engine finds the leftmost-first, non-overlapping matches of one pattern,
// exactly as regexp.FindAllIndex over the whole data would, but split into
// parts that can be searched concurrently. scan reports the matches of each
// part ps[k], in order, to emit[k]; it is given up to `lanes` consecutive
// parts at a time and is safe for concurrent use.
type engine interface {
	parts(data []byte) []part
	scan(data []byte, ps []part, emit []func(s, e int))
}

// scanAll runs e over parts ps of data on the worker goroutines, lanes parts
// per task; emitFor(k) returns the callback of part k.
func scanAll(e engine, data []byte, ps []part, emitFor func(k int) func(s, e int)) error {
	tasks := (len(ps) + lanes - 1) / lanes
	return parallel(tasks, func(t int) {
		lo, hi := t*lanes, min(len(ps), (t+1)*lanes)
		emits := make([]func(s, e int), 0, hi-lo)
		for k := lo; k < hi; k++ {
			emits = append(emits, emitFor(k))
		}
		e.scan(data, ps[lo:hi], emits)
	})
}

// engineConfig holds knobs that tests turn down to exercise part borders
// and cache flushes on small inputs.
type engineConfig struct {
	partSize  int // bytes per part, rounded up to the next line end
	maxStates int // DFA cache size
}

// defaultEngineConfig sizes parts automatically (partSize 0).
var defaultEngineConfig = engineConfig{maxStates: maxDFAStates}

// autoPartSize gives every worker several tasks of `lanes` parts each, with
// parts between 64 KiB and 8 MiB.
func autoPartSize(n int) int {
	return min(8<<20, max(64<<10, n/(8*lanes*max(1, runtime.GOMAXPROCS(0)))))
}

// lineParts cuts data after a '\n' roughly every size bytes (size 0: auto).
// hi of a part is the position of its last '\n' (or len(data)); the next part
// starts after it.
func lineParts(data []byte, size int) []part {
	if size <= 0 {
		size = autoPartSize(len(data))
	}
	var ps []part
	for lo := 0; lo <= len(data); {
		hi := lo + size
		if hi >= len(data) {
			return append(ps, part{lo, len(data)})
		}
		j := bytes.IndexByte(data[hi:], '\n')
		if j < 0 {
			return append(ps, part{lo, len(data)})
		}
		ps = append(ps, part{lo, hi + j})
		lo = hi + j + 1
	}
	return ps
}

func lineStart(data []byte, lo, pos int) int {
	return lo + bytes.LastIndexByte(data[lo:pos], '\n') + 1
}

func lineEnd(data []byte, pos, hi int) int {
	if j := bytes.IndexByte(data[pos:hi], '\n'); j >= 0 {
		return pos + j
	}
	return hi
}

// literalEngine searches a pattern that is one plain literal.
type literalEngine struct {
	lit needle
	cfg engineConfig
}

func (e *literalEngine) parts(data []byte) []part {
	if bytes.IndexByte(e.lit.lit, '\n') >= 0 {
		return []part{{0, len(data)}}
	}
	return lineParts(data, e.cfg.partSize)
}

// window holds every occurrence that starts in p and nothing else.
func (e *literalEngine) window(data []byte, p part) []byte {
	return data[p.lo:min(len(data), p.hi+len(e.lit.lit))]
}

func (e *literalEngine) scan(data []byte, ps []part, emit []func(s, e int)) {
	for k, p := range ps {
		w := e.window(data, p)
		for i, n := 0, len(e.lit.lit); ; {
			j := e.lit.index(w[i:])
			if j < 0 {
				break
			}
			s := p.lo + i + j
			emit[k](s, s+n)
			i += j + n
		}
	}
}

func (e *literalEngine) count(data []byte, p part) int {
	return e.lit.count(e.window(data, p))
}

// lineEngine searches a pattern whose matches, in this data, never contain a
// '\n': every line can be searched on its own. It finds candidate lines with
// the literal prefilter and/or the relaxed DFA and runs regexp on those only.
type lineEngine struct {
	pt     *pattern
	cfg    engineConfig
	req    []needle // pt.req
	useDFA bool     // the relaxed pattern cannot match the empty string
	pool   sync.Pool
}

func newLineEngine(pt *pattern, cfg engineConfig, freq *[256]uint32) *lineEngine {
	e := &lineEngine{pt: pt, cfg: cfg, req: needles(pt.req, freq)}
	e.pool.New = func() any { return newDFA(pt.prog, false, cfg.maxStates) }
	d := e.pool.Get().(*dfa)
	e.useDFA = !d.accept[d.start]
	e.pool.Put(d)
	return e
}

func (e *lineEngine) parts(data []byte) []part { return lineParts(data, e.cfg.partSize) }

func (e *lineEngine) scan(data []byte, ps []part, emit []func(s, e int)) {
	if !e.useDFA {
		for k, p := range ps {
			e.pt.findAll(data, p.lo, p.hi, emit[k])
		}
		return
	}
	d := e.pool.Get().(*dfa)
	defer e.pool.Put(d)
	ls := make([]*lane, len(ps))
	for k, p := range ps {
		i := p.lo
		if e.req != nil {
			i = e.scanLiterals(data, p, d, emit[k])
		}
		ls[k] = &lane{from: i, i: i, hi: p.hi, base: int(d.start) * dfaRow, emit: emit[k], done: i > p.hi}
	}
	e.runLanes(data, d, ls)
}

// litFinder finds the next occurrence of any of a set of literals in
// data[:limit], remembering each literal's next occurrence between calls.
type litFinder struct {
	lits  []needle
	next  []int // -2 unknown, -1 none left
	limit int
}

func newLitFinder(lits []needle, limit int) *litFinder {
	f := &litFinder{lits: lits, next: make([]int, len(lits)), limit: limit}
	for k := range f.next {
		f.next[k] = -2
	}
	return f
}

// find returns the first occurrence at or after i, or -1.
func (f *litFinder) find(data []byte, i int) int {
	h := -1
	for k, lit := range f.lits {
		if f.next[k] == -2 || f.next[k] >= 0 && f.next[k] < i {
			f.next[k] = -1
			if i <= f.limit {
				if j := lit.index(data[i:f.limit]); j >= 0 {
					f.next[k] = i + j
				}
			}
		}
		if f.next[k] >= 0 && (h < 0 || f.next[k] < h) {
			h = f.next[k]
		}
	}
	return h
}

// scanLiterals visits the lines that contain a required literal. It returns
// where it stopped: past hi when done, or a line start when candidates are
// so dense that the DFA alone is cheaper.
func (e *lineEngine) scanLiterals(data []byte, p part, d *dfa, emit func(s, e int)) int {
	f := newLitFinder(e.req, p.hi)
	cands := 0
	for i := p.lo; i <= p.hi; {
		h := f.find(data, i)
		if h < 0 {
			break
		}
		a, b := lineStart(data, i, h), lineEnd(data, h, p.hi)
		if cands++; cands >= 64 && (b-p.lo)/cands < 256 {
			return a
		}
		if _, _, st := d.run(data, a, b, d.start, false); st != runEnd {
			e.pt.findAll(data, a, b, emit)
		}
		i = b + 1
	}
	return p.hi + 1
}

// seqEngine searches the data as one part: correct for every pattern, at
// regexp's own speed. Used when a match spans lines.
type seqEngine struct {
	pt  *pattern
	cfg engineConfig
}

func (e *seqEngine) parts(data []byte) []part { return []part{{0, len(data)}} }

func (e *seqEngine) scan(data []byte, ps []part, emit []func(s, e int)) {
	d := newDFA(e.pt.prog, false, e.cfg.maxStates)
	if !d.accept[d.start] {
		if _, _, st := d.run(data, 0, len(data), d.start, false); st == runEnd {
			return // not even the relaxed pattern matches anywhere
		}
	}
	for k, p := range ps {
		e.pt.findAll(data, p.lo, p.hi, emit[k])
	}
}

// findBatch bounds the matches one regexp call returns, and so the memory a
// search over a huge line can take.
var findBatch = 1024

// findAll reports the matches that start in [lo, hi], in order, exactly as
// regexp.FindAllIndex over all of data would. lo must be 0 or follow a '\n',
// hi must be len(data) or a '\n', and no match may contain a '\n' unless
// lo == 0 and hi == len(data). The regexp sees data[lo-1:hi+1], one byte of
// context each side, so ^ $ \b \A \z behave as in the whole text; matches at
// lo-1 and hi+1 can only be empty and belong to the neighbouring lines.
func (pt *pattern) findAll(data []byte, lo, hi int, emit func(s, e int)) {
	vlo, vhi := lo, hi
	if vlo > 0 {
		vlo--
	}
	if vhi < len(data) {
		vhi++
	}
	deliver := func(s, e int) {
		if s >= lo && s <= hi {
			emit(s, e)
		}
	}
	ms := pt.re.FindAllIndex(data[vlo:vhi], findBatch)
	for _, m := range ms {
		deliver(vlo+m[0], vlo+m[1])
	}
	if len(ms) < findBatch {
		return
	}
	n, s, e := len(ms), vlo+ms[len(ms)-1][0], vlo+ms[len(ms)-1][1]
	for n == findBatch {
		n, s, e = pt.resumeAfter(data, vlo, vhi, s, e, deliver)
	}
}

// resumeAfter continues a FindAll loop after the match [s, e], as regexp
// would: the next search starts at e, or one character after an empty
// match, and an empty match right at the end of the previous one is dropped.
// Package regexp cannot start a search mid-text with the left context in
// view, so pt.resume does: its first alternative skips one character of
// context and then lazily any text before P; later matches come from the
// second alternative, P itself. It returns the size of the batch and the
// last match in it.
func (pt *pattern) resumeAfter(data []byte, vlo, vhi, s, e int, deliver func(s, e int)) (n, ls, le int) {
	pos, prevEnd := e, e
	if s == e {
		if s >= vhi {
			return 0, 0, 0
		}
		_, w := utf8.DecodeRune(data[s:vhi])
		pos = s + w
	}
	_, w := utf8.DecodeLastRune(data[vlo:pos])
	q := pos - w
	ms := pt.resume.FindAllSubmatchIndex(data[q:vhi], findBatch)
	if len(ms) == 0 || ms[0][2] < 0 {
		return 0, 0, 0 // no match at or after pos (a hit of P at q itself does not count)
	}
	ls, le = q+ms[0][2], q+ms[0][3]
	if ls != le || ls != prevEnd {
		deliver(ls, le)
	}
	for _, m := range ms[1:] {
		ls, le = q+m[0], q+m[1]
		deliver(ls, le)
	}
	return len(ms), ls, le
}

// crossCheck reports whether any relaxed match in data contains a '\n'. A
// part's worker starts fresh at its first byte and runs on past its end until
// its state is the start state again (no thread from its own part left), so
// that a match starting in the part is seen whole. It gives up (true) when
// that takes more than two parts' worth of bytes.
func crossCheck(pt *pattern, data []byte, cfg engineConfig, freq *[256]uint32, run runner) (bool, error) {
	ps := lineParts(data, cfg.partSize)
	prefix := needles(pt.prefix, freq)
	var found atomic.Bool
	var pool sync.Pool
	pool.New = func() any { return newDFA(pt.prog, true, cfg.maxStates) }
	err := run(len(ps), func(k int) {
		if found.Load() {
			return
		}
		d := pool.Get().(*dfa)
		defer pool.Put(d)
		if crossesIn(pt, prefix, d, data, ps[k], cfg.partSize) {
			found.Store(true)
		}
	})
	return found.Load(), err
}

// crossesIn checks the relaxed matches that start in part p. With a prefix
// set, it skips from the start state straight to the next occurrence of a
// prefix, since every match starts with one.
func crossesIn(pt *pattern, prefix []needle, d *dfa, data []byte, p part, partSize int) bool {
	end := min(len(data), p.hi+1)
	limit := min(len(data), end+2*partSize)
	if prefix == nil {
		s, _, st := d.run(data, p.lo, end, d.start, false)
		for i := end; st == runEnd && s != d.start && i < len(data); {
			if i >= limit {
				return true
			}
			j := min(len(data), i+4096)
			s, _, st = d.run(data, i, j, s, false)
			i = j
		}
		return st != runEnd
	}
	f := newLitFinder(prefix, limit)
	s := d.start
	for i := p.lo; i < len(data); {
		if s == d.start {
			if i = f.find(data, i); i < 0 || i >= end {
				return false
			}
		}
		if i >= limit {
			return true
		}
		var st int
		s, i, st = d.run(data, i, limit, s, true)
		if st != runEnd {
			return true
		}
	}
	return false
}

// runner runs fn(0..n-1) on the worker goroutines, turning a memory fault
// (the mapped file shrank) into an error.
type runner func(n int, fn func(i int)) error

// newEngine picks the engine for pt over data.
func newEngine(pt *pattern, data []byte, cfg engineConfig, run runner) (engine, error) {
	if pt.class != nil {
		return newRunEngine(pt, cfg), nil
	}
	freq := byteFreq(data)
	if pt.lit != nil {
		return &literalEngine{lit: newNeedle(pt.lit, freq), cfg: cfg}, nil
	}
	if !pt.nlFree {
		crosses, err := crossCheck(pt, data, cfg, freq, run)
		if err != nil {
			return nil, err
		}
		if crosses {
			return &seqEngine{pt: pt, cfg: cfg}, nil
		}
	}
	return newLineEngine(pt, cfg, freq), nil
}

func needles(lits [][]byte, freq *[256]uint32) []needle {
	var out []needle
	for _, l := range lits {
		out = append(out, newNeedle(l, freq))
	}
	return out
}
