package tools

import "unicode/utf8"

// lanes is how many parts one worker scans at once with the DFA. A table
// driven DFA waits on one load per byte; four independent scans interleaved
// in one loop overlap those loads and run about four times faster per core.
const lanes = 4

// lane is one part being scanned by the relaxed DFA.
type lane struct {
	from int // line start where the current run began (bounds line lookups)
	i    int // next byte
	hi   int // end of the part: its last '\n', or len(data)
	base int // DFA state * dfaRow
	emit func(s, e int)
	done bool
}

// runLanes scans every lane to its end, verifying with regexp each line
// where the DFA accepts: four lanes in lockstep while four are left, then
// one at a time.
func (e *lineEngine) runLanes(data []byte, d *dfa, ls []*lane) {
	for _, l := range ls {
		d.keep = append(d.keep, &l.base)
	}
	defer func() { d.keep = d.keep[:0] }()
	for {
		live := ls[:0:0]
		for _, l := range ls {
			if !l.done {
				live = append(live, l)
			}
		}
		if len(live) < lanes {
			for _, l := range live {
				e.runLane(data, d, l)
			}
			return
		}
		e.run4(data, d, live[0], live[1], live[2], live[3])
	}
}

// run4 advances four lanes together on cached ASCII transitions, stepping
// each lane alone through anything else, until one lane is done.
func (e *lineEngine) run4(data []byte, d *dfa, l0, l1, l2, l3 *lane) {
	for !l0.done && !l1.done && !l2.done && !l3.done {
		tr := d.trans
		i0, i1, i2, i3 := l0.i, l1.i, l2.i, l3.i
		b0, b1, b2, b3 := l0.base, l1.base, l2.base, l3.base
		for i0 < l0.hi && i1 < l1.hi && i2 < l2.hi && i3 < l3.hi {
			v0 := tr[b0+int(data[i0])]
			v1 := tr[b1+int(data[i1])]
			v2 := tr[b2+int(data[i2])]
			v3 := tr[b3+int(data[i3])]
			if v0 <= 0 || v1 <= 0 || v2 <= 0 || v3 <= 0 {
				break
			}
			b0, b1, b2, b3 = int(v0), int(v1), int(v2), int(v3)
			i0++
			i1++
			i2++
			i3++
		}
		l0.i, l1.i, l2.i, l3.i = i0, i1, i2, i3
		l0.base, l1.base, l2.base, l3.base = b0, b1, b2, b3
		for _, l := range [lanes]*lane{l0, l1, l2, l3} {
			if l.i >= l.hi {
				l.done = true
			} else if d.trans[l.base+int(data[l.i])] <= 0 {
				e.step(data, d, l)
			}
		}
	}
}

// step takes one transition of lane l the slow way (non-ASCII, uncached or
// accepting) and acts on it.
func (e *lineEngine) step(data []byte, d *dfa, l *lane) {
	r, w := rune(data[l.i]), 1
	if r >= utf8.RuneSelf {
		r, w = utf8.DecodeRune(data[l.i:l.hi])
	}
	nid := d.next(int32(l.base/dfaRow), r)
	l.i += w
	switch {
	case d.accept[nid]:
		e.verify(data, d, l, l.i)
	case d.resets > maxDFAResets:
		e.giveUp(data, l)
	default:
		l.base = int(nid) * dfaRow
	}
	if l.i >= l.hi {
		l.done = true
	}
}

// runLane scans one lane alone.
func (e *lineEngine) runLane(data []byte, d *dfa, l *lane) {
	for !l.done && l.i < l.hi {
		_, x, st := d.run(data, l.i, l.hi, int32(l.base/dfaRow), false)
		switch st {
		case runEnd:
			l.done = true
		case runAccept:
			e.verify(data, d, l, x)
		case runGaveUp:
			l.i = x
			e.giveUp(data, l)
		}
	}
	l.done = true
}

// verify runs regexp on the line where the DFA accepted at x (the end of a
// relaxed match, which lies within one line) and restarts the lane after it.
func (e *lineEngine) verify(data []byte, d *dfa, l *lane, x int) {
	a, b := lineStart(data, l.from, x-1), lineEnd(data, x-1, l.hi)
	e.pt.findAll(data, a, b, l.emit)
	l.from, l.i, l.base = b+1, b+1, int(d.start)*dfaRow
}

// giveUp hands the rest of the lane, from the current line, to regexp.
func (e *lineEngine) giveUp(data []byte, l *lane) {
	e.pt.findAll(data, lineStart(data, l.from, l.i), l.hi, l.emit)
	l.i, l.done = l.hi+1, true
}
