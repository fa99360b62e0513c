package source

import "slices"

// jsScan estimates how deeply goja will nest on a JS source, and counts its arrows, over every
// way goja may read it, without parsing it.
//
// goja's reading of a '/' (a regex or a division) and of a '`' (a template or, while it skips
// tokens after a syntax error until the next statement keyword, a plain token) depends on
// context the lexer does not have. So the scan follows several readings at once (jsLexer): at
// every regex the lexer reads, at every template, and wherever the previous token does not
// decide it (after }, yield, await, of), the reading splits in two, and readings that reach the
// same place in the same state merge again, keeping the deeper nesting and the larger arrow
// count of the two. The estimate is the worst over all readings: text hidden from one reading
// (in a regex body or a template) is code in another, so no reading choice can hide nesting.
//
// It also counts the parser's work (jsreparse.go). Scanning stops as soon as a reading passes a
// limit; ok is false when the readings could not be bounded (more than maxReadings at once, or
// more work than maxScanWork per byte): the caller then rejects the source unparsed.
func jsScan(src []byte, limit, workLimit int) (s jsScanResult) {
	start := newJSLexer(src, limit)
	start.fork = true
	live := []*jsLexer{start}
	budget := maxScanWork * (len(src) + 64)
	s.ok, s.bad = true, -1
	for len(live) > 0 {
		if budget--; budget < 0 || len(live) > maxReadings {
			s.ok = false
			return s
		}
		k := minReading(live)
		l := live[k]
		if l.i >= len(src) {
			l.updEnd()
			s.add(l)
			live = slices.Delete(live, k, k+1)
			continue
		}
		l.step()
		if l.n.over() || l.arrows > maxArrows(limit) || l.maxWork > workLimit || l.bad >= 0 {
			s.add(l)
			return s
		}
		for _, f := range l.forks {
			live = append(live, f)
		}
		l.forks = l.forks[:0]
		if len(live) > 1 {
			live = mergeReadings(live, k)
		}
	}
	return s
}

// jsScanResult is the worst over the readings.
type jsScanResult struct {
	nest   nest
	arrows int
	work   int
	ok     bool
	// bad is where the source is rejected unparsed for what goja would read again and again
	// (badArrow, badUpdate); -1: nowhere.
	bad, badWhy int
}

func (s *jsScanResult) add(l *jsLexer) {
	if l.n.max > s.nest.max {
		s.nest = l.n
	}
	s.arrows, s.work = max(s.arrows, l.arrows), max(s.work, l.maxWork)
	if l.bad >= 0 && (s.bad < 0 || l.bad < s.bad) {
		s.bad, s.badWhy = l.bad, l.badWhy
	}
}

// Bounds of the scan's own work.
const (
	maxReadings = 64 // readings followed at once
	maxScanWork = 32 // steps per byte of source, over all readings
)

// maxArrows is the most arrow functions a source may have: goja's parser is quadratic in them.
func maxArrows(depthLimit int) int { return 4 * depthLimit }

func minReading(live []*jsLexer) int {
	k := 0
	for j, l := range live {
		if l.i < live[k].i {
			k = j
		}
	}
	return k
}

// mergeReadings merges live[k] into another reading in the same state, if there is one.
func mergeReadings(live []*jsLexer, k int) []*jsLexer {
	l := live[k]
	for j, o := range live {
		if j != k && o.sameState(l) {
			o.absorb(l)
			return slices.Delete(live, k, k+1)
		}
	}
	return live
}

// sameState reports whether two readings will read the rest of the source alike.
func (l *jsLexer) sameState(o *jsLexer) bool {
	if l.skipping || o.skipping { // skipping, goja reads tokens alike from the same place
		return l.skipping && o.skipping && l.i == o.i
	}
	return l.i == o.i && l.slash == o.slash && l.exprEnd == o.exprEnd && l.newline == o.newline &&
		l.head == o.head && l.dot == o.dot && l.prev == o.prev && l.skipping == o.skipping &&
		l.atKey == o.atKey && l.afterKey == o.afterKey && l.braceEnd == o.braceEnd &&
		l.okNext == o.okNext && l.headOK == o.headOK && slices.Equal(l.upd, o.upd)
}

// absorb makes l cover o too: every stack keeps, level by level from the top, the deeper or
// the less certain entry of the two, so that l's estimate bounds both readings' from here on.
func (l *jsLexer) absorb(o *jsLexer) {
	l.parens = mergeFlags(l.parens, o.parens)
	l.braces = mergeFlags(l.braces, o.braces)
	l.kinds = mergeKinds(l.kinds, o.kinds)
	l.work = mergeWork(l.work, o.work)
	l.base, l.maxWork = mergeFrame(l.base, o.base), max(l.maxWork, o.maxWork)
	l.n.stack = mergeDepths(l.n.stack, o.n.stack)
	l.n.cur = max(l.n.cur, o.n.cur)
	if o.n.max > l.n.max {
		l.n.max, l.n.maxAt = o.n.max, o.n.maxAt
	}
	l.arrows = max(l.arrows, o.arrows)
	l.open = l.open || o.open
	l.recovered = l.recovered || o.recovered
	l.headWork = max(l.headWork, o.headWork)
}

// mergeFlags merges two flag stacks aligned at the top: equal entries stay, others become
// flagEither, and so do the entries only the longer stack has (the other reading pops flagNo).
func mergeFlags(a, b []uint8) []uint8 {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := slices.Clone(a)
	for k := range out {
		j := len(b) - len(a) + k
		if j < 0 && out[k] != flagNo || j >= 0 && b[j] != out[k] {
			out[k] = flagEither
		}
	}
	return out
}

// mergeKinds merges two bracket stacks aligned at the top; where they differ the kind is
// unknown (0), which no error check relies on.
func mergeKinds(a, b []byte) []byte {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := slices.Clone(a)
	for k := range out {
		if j := len(b) - len(a) + k; j < 0 || b[j] != out[k] {
			out[k] = 0
		}
	}
	return out
}

// mergeDepths merges two depth stacks aligned at the top, keeping the larger entry.
func mergeDepths(a, b []int) []int {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := slices.Clone(a)
	for k := range out {
		if j := len(b) - len(a) + k; j >= 0 {
			out[k] = max(out[k], b[j])
		}
	}
	return out
}
