package tools

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// dfa is a lazily built deterministic automaton for the pattern's program
// with every empty-width assertion (^ $ \b \A \z) taken as true: the
// "relaxed" pattern. Its only question is where the first relaxed match ends,
// which makes it a filter without false negatives: no relaxed match in a
// range means no real match there. The exact matches always come from
// package regexp. In cross mode, threads remember whether they consumed a
// '\n', and only such threads accept: it finds matches that span lines.
type dfa struct {
	prog      *syntax.Prog
	cross     bool
	maxStates int
	trans     []int32    // dfaRow entries per state, by byte: 0 unknown (always for bytes ≥ 0x80), +base next, -base next accepting
	sets      [][]uint32 // each state's threads, pc<<1 | consumed-newline
	accept    []bool
	ids       map[string]int32
	wide      map[uint64]int32 // transitions on non-ASCII runes
	startSet  []uint32
	start     int32
	resets    int
	keep      []*int // states (as bases) held by callers, renumbered by reset
	resetting bool

	sparse, dense, stack []uint32 // scratch for closures
}

const (
	dfaRow       = 256 // one table entry per byte; only ASCII bytes are ever filled in
	maxDFAStates = 2048
	maxDFAResets = 16
)

// run results.
const (
	runEnd    = iota // reached the end of the range without accepting
	runAccept        // accepted: pos is the end of the first relaxed match
	runGaveUp        // the state cache thrashed; pos is where it stopped
)

func newDFA(prog *syntax.Prog, cross bool, maxStates int) *dfa {
	if maxStates <= 1 {
		maxStates = maxDFAStates
	}
	n := 2 * len(prog.Inst)
	d := &dfa{prog: prog, cross: cross, maxStates: maxStates,
		sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
	d.clear()
	d.add(uint32(prog.Start), 0)
	d.startSet = d.leaves()
	d.reset()
	return d
}

// reset empties the cache. The start state and the states in d.keep are
// interned again under their new numbers.
func (d *dfa) reset() {
	saved := make([][]uint32, len(d.keep))
	for k, p := range d.keep {
		saved[k] = d.sets[*p/dfaRow]
	}
	d.trans = make([]int32, dfaRow, dfaRow*16)
	d.sets = [][]uint32{nil}
	d.accept = []bool{false}
	d.ids = make(map[string]int32)
	d.wide = make(map[uint64]int32)
	d.resetting = true
	d.start = d.intern(d.startSet)
	for k, p := range d.keep {
		*p = int(d.intern(saved[k])) * dfaRow
	}
	d.resetting = false
}

func (d *dfa) clear() { d.dense = d.dense[:0] }

func (d *dfa) has(t uint32) bool {
	i := d.sparse[t]
	return int(i) < len(d.dense) && d.dense[i] == t
}

// add follows the empty transitions from pc, adding every thread reached.
func (d *dfa) add(pc, flag uint32) {
	d.stack = append(d.stack[:0], pc<<1|flag)
	for len(d.stack) > 0 {
		t := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.has(t) {
			continue
		}
		d.sparse[t] = uint32(len(d.dense))
		d.dense = append(d.dense, t)
		inst := &d.prog.Inst[t>>1]
		f := t & 1
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Arg<<1|f, inst.Out<<1|f)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			d.stack = append(d.stack, inst.Out<<1|f)
		}
	}
}

// leaves returns the sorted threads that consume input or match.
func (d *dfa) leaves() []uint32 {
	var out []uint32
	for _, t := range d.dense {
		switch d.prog.Inst[t>>1].Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL, syntax.InstMatch:
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// intern returns the state for a sorted thread set, flushing the cache
// when it is full.
func (d *dfa) intern(ts []uint32) int32 {
	key := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(ts))), 4*len(ts))
	if id, ok := d.ids[key]; ok {
		return id
	}
	if len(d.sets) > d.maxStates && !d.resetting {
		d.resets++
		d.reset()
		if id, ok := d.ids[key]; ok {
			return id
		}
	}
	id := int32(len(d.sets))
	acc := false
	for _, t := range ts {
		if d.prog.Inst[t>>1].Op == syntax.InstMatch && (!d.cross || t&1 == 1) {
			acc = true
		}
	}
	d.sets = append(d.sets, ts)
	d.accept = append(d.accept, acc)
	d.trans = append(d.trans, make([]int32, dfaRow)...)
	d.ids[string(key)] = id
	return id
}

// next returns the state reached from state id on rune r.
func (d *dfa) next(id int32, r rune) int32 {
	if r < utf8.RuneSelf {
		if v := d.trans[int(id)*dfaRow+int(r)]; v != 0 {
			return int32(max(v, -v) / dfaRow)
		}
	} else if v, ok := d.wide[uint64(id)<<32|uint64(r)]; ok {
		return v
	}
	d.clear()
	var nf uint32
	if d.cross && r == '\n' {
		nf = 1
	}
	for _, t := range d.sets[id] {
		if inst := &d.prog.Inst[t>>1]; instMatches(inst, r) {
			d.add(inst.Out, t&1|nf)
		}
	}
	d.add(uint32(d.prog.Start), 0) // a match may start at the next position
	resets := d.resets
	nid := d.intern(d.leaves())
	if d.resets != resets {
		return nid // id belongs to the flushed cache
	}
	if r < utf8.RuneSelf {
		v := nid * dfaRow
		if d.accept[nid] {
			v = -v
		}
		d.trans[int(id)*dfaRow+int(r)] = v
	} else {
		d.wide[uint64(id)<<32|uint64(r)] = nid
	}
	return nid
}

// run feeds data[i:end] to the automaton from state s. It returns the state
// reached and, with runAccept, the end of the first accepted path. With
// untilStart it also stops (runEnd) when it steps into the start state, that
// is when every thread has died and only fresh ones are left.
func (d *dfa) run(data []byte, i, end int, s int32, untilStart bool) (state int32, pos, status int) {
	tr := d.trans
	base := int(s) * dfaRow
	stop := -1
	if untilStart {
		stop = int(d.start) * dfaRow
	}
	data = data[:end]
	for i < len(data) {
		// Fast path: known transitions on ASCII bytes.
		v := tr[base+int(data[i])]
		if v > 0 {
			base = int(v)
			i++
			if base == stop {
				break
			}
			continue
		}
		if v < 0 {
			return int32(-v / dfaRow), i + 1, runAccept
		}
		r, w := rune(data[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(data[i:])
		}
		nid := d.next(int32(base/dfaRow), r)
		tr = d.trans
		i += w
		if d.accept[nid] {
			return nid, i, runAccept
		}
		if d.resets > maxDFAResets {
			return nid, i, runGaveUp
		}
		base = int(nid) * dfaRow
		if untilStart && nid == d.start {
			break
		}
	}
	return int32(base / dfaRow), i, runEnd
}
