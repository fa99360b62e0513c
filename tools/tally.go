package tools

import (
	"bytes"
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/limits"
)

// Tally is one distinct match of Doc.Tally and how many times it occurs.
type Tally struct {
	Text  string `json:"text"`
	Count int64  `json:"count"`
}

// TallyResult is what Doc.Tally returns: the most frequent distinct matches, at most
// Limits.TallyResults of them, most frequent first (ties by text, ascending); Distinct is how
// many distinct matches the whole document holds, and Total how many matches.
type TallyResult struct {
	Tallies  []Tally `json:"tallies"`
	Distinct int64   `json:"distinct"`
	Total    int64   `json:"total"`
}

// Tally counts the distinct matches of an RE2 pattern over the whole document: the matches
// Search finds, or the text of the pattern's first capture group when it has one. With (?i)
// anywhere in the pattern, matches that differ only in case are one, in lower case. A match is
// counted by its text cut at Limits.LineChars characters ("…" marks the cut). More than
// limits.TallyDistinct distinct texts, or limits.TallyBytes of them, is an ErrLimit error.
func (d *Doc) Tally(pattern string) (TallyResult, error) { return d.tally(pattern) }

func (d *Doc) tally(pattern string) (TallyResult, error) {
	if err := d.begin(); err != nil {
		return TallyResult{}, err
	}
	defer d.mu.RUnlock()
	var res TallyResult
	err := guarded(func() error {
		var err error
		res, err = tallyData(pattern, d.data, defaultEngineConfig, d.store.lim.LineChars, d.store.lim.TallyResults)
		return err
	})
	return res, err
}

// tallyData is Tally over data with the engine configured by cfg: keys cut at max characters,
// the n most frequent returned.
func tallyData(pattern string, data []byte, cfg engineConfig, max, n int) (TallyResult, error) {
	pt, err := compilePattern(pattern)
	if err != nil {
		return TallyResult{}, err
	}
	e, err := newEngine(pt, data, cfg, parallel)
	if err != nil {
		return TallyResult{}, err
	}
	_, whole := e.(*seqEngine)
	t := newTallier(pt, data, max, whole)
	if err := t.run(e); err != nil {
		return TallyResult{}, err
	}
	return t.top(n), nil
}

// A tallier counts the keys of one Tally: each task of the scan counts into a map of its own and
// merges it into all when it ends or grows past flushKeys or flushBytes, so that what the scan
// holds stays near what all holds, which the limits bound.
type tallier struct {
	pt    *pattern
	data  []byte
	group *regexp.Regexp // \A(?s:.)(?:P): group 1 of a match that starts past 0; nil to count whole matches
	whole bool           // matches may span lines: group reads to the end of the data
	fold  bool           // (?i): keys in lower case
	max   int            // characters of a key

	mu        sync.Mutex
	all       map[string]int64
	bytes     int
	total     int64
	over      atomic.Bool
	overBytes bool // the limit passed was limits.TallyBytes
}

// flushKeys and flushBytes bound a task's own map before it merges into the shared one.
const (
	flushKeys  = 1 << 16
	flushBytes = 4 << 20
)

func newTallier(pt *pattern, data []byte, max int, whole bool) *tallier {
	t := &tallier{pt: pt, data: data, whole: whole, max: max, all: map[string]int64{}}
	tree, err := syntax.Parse(pt.src, syntax.Perl)
	if err == nil {
		t.fold = folds(tree)
		if pt.re.NumSubexp() > 0 && !(tree.Op == syntax.OpCapture && tree.Cap == 1) {
			// compilePattern checked that the canonical text compiles to the same program.
			t.group = regexp.MustCompile(`\A(?s:.)(?:` + tree.String() + `)`)
		}
	}
	return t
}

// folds reports whether any part of re ignores case.
func folds(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 {
		return true
	}
	return slices.ContainsFunc(re.Sub, folds)
}

// localTally is one task's counts: m maps a key to its index in n, so that counting a key seen
// before allocates nothing.
type localTally struct {
	m     map[string]int
	n     []int64
	bytes int
	total int64
	buf   []byte
}

// run scans the data once, lanes parts per task as scanAll does, and merges every task's counts.
func (t *tallier) run(e engine) error {
	ps := e.parts(t.data)
	tasks := (len(ps) + lanes - 1) / lanes
	err := parallel(tasks, func(k int) {
		if t.over.Load() {
			return
		}
		lo, hi := k*lanes, min(len(ps), (k+1)*lanes)
		l := &localTally{m: map[string]int{}}
		emit := func(s, e int) { t.add(l, s, e) }
		emits := make([]func(s, e int), hi-lo)
		for i := range emits {
			emits[i] = emit
		}
		e.scan(t.data, ps[lo:hi], emits)
		t.merge(l)
	})
	if err != nil {
		return err
	}
	return t.limitErr()
}

// add counts the match [s, e].
func (t *tallier) add(l *localTally, s, e int) {
	l.total++
	if t.over.Load() {
		return
	}
	key := t.key(l, s, e)
	if i, ok := l.m[string(key)]; ok {
		l.n[i]++
		return
	}
	l.m[string(key)] = len(l.n)
	l.n = append(l.n, 1)
	l.bytes += len(key)
	if len(l.m) >= flushKeys || l.bytes >= flushBytes {
		t.merge(l)
	}
}

// merge adds a task's counts to the shared ones and empties them.
func (t *tallier) merge(l *localTally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += l.total
	for k, i := range l.m {
		if _, ok := t.all[k]; !ok {
			t.bytes += len(k)
		}
		t.all[k] += l.n[i]
	}
	if len(t.all) > limits.TallyDistinct || t.bytes > limits.TallyBytes {
		t.overBytes = t.bytes > limits.TallyBytes
		t.over.Store(true)
	}
	l.total, l.bytes, l.n = 0, 0, l.n[:0]
	clear(l.m)
}

// key is the text a match counts under: the match or its first group, in lower case under (?i),
// cut at t.max characters. It may live in l.buf until the next call.
func (t *tallier) key(l *localTally, s, e int) []byte {
	if t.group != nil {
		s, e = t.groupAt(s, e)
	}
	b := t.data[s:e]
	if t.fold {
		l.buf = lower(l.buf[:0], b)
		b = l.buf
	}
	if len(b) <= t.max {
		return b // at most max bytes: at most max characters
	}
	i, n := 0, 0
	for ; i < len(b) && n < t.max; n++ {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	if i == len(b) {
		return b
	}
	cut := append(append([]byte(nil), b[:i]...), "…"...)
	return cut
}

// groupAt returns the first group of the match [s, e] ([s, s] if it took no part): the
// pattern run again from s, with the character before s in view, exactly as the scan saw it.
func (t *tallier) groupAt(s, e int) (int, int) {
	end := len(t.data)
	if !t.whole {
		end = min(len(t.data), lineEnd(t.data, e, len(t.data))+1)
	}
	re, q := t.pt.re, 0
	if s > 0 {
		_, w := utf8.DecodeLastRune(t.data[:s])
		re, q = t.group, s-w
	}
	m := re.FindSubmatchIndex(t.data[q:end])
	if m == nil || m[2] < 0 {
		return s, s
	}
	return q + m[2], q + m[3]
}

// lower appends b in lower case to dst: ASCII byte by byte, anything else by bytes.ToLower.
func lower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return append(dst, bytes.ToLower(b)...)
		}
	}
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func (t *tallier) limitErr() error {
	if !t.over.Load() {
		return nil
	}
	if t.overBytes {
		return limitf("tally(%q): the distinct matches take more than %s bytes; narrow the regex (a capture group counts only its part: `user=(\\w+)`), or count(ctx, regex) for how many matches there are",
			t.pt.src, limits.Thousands(limits.TallyBytes))
	}
	return limitf("tally(%q): more than %s distinct matches; narrow the regex (a capture group counts only its part: `user=(\\w+)`), or count(ctx, regex) for how many matches there are",
		t.pt.src, limits.Thousands(limits.TallyDistinct))
}

// top returns the n most frequent keys, ties by text ascending.
func (t *tallier) top(n int) TallyResult {
	type kv struct {
		k string
		n int64
	}
	kvs := make([]kv, 0, len(t.all))
	for k, c := range t.all {
		kvs = append(kvs, kv{k, c})
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	res := TallyResult{Tallies: make([]Tally, 0, min(n, len(kvs))), Distinct: int64(len(kvs)), Total: t.total}
	for _, x := range kvs[:min(n, len(kvs))] {
		res.Tallies = append(res.Tallies, Tally{Text: matchText([]byte(x.k), t.max), Count: x.n})
	}
	return res
}
