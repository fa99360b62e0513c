package evalset

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// maxNeedleLen bounds the bytes one needle adds (separator, log prefix and sentence): it sets
// the smallest size that holds a number of distractors.
const maxNeedleLen = 128

// needlePrefix starts every needle sentence.
const needlePrefix = "The special magic number for "

// needle is one needle to insert once the filler has reached off bytes.
type needle struct {
	off    int64
	key    string
	num    int
	target bool
}

// needleGen writes a haystack: filler units (sentences or log lines) with needles between them.
type needleGen struct {
	w      *bufio.Writer
	r      rng
	log    bool
	n      int64 // bytes written
	filler int64 // filler bytes written
	limit  int64 // filler bytes allowed
	buf    []byte
	clock  int64 // log time, ms since the epoch
	para   int   // sentences left in the paragraph; -1 before the first
	offset int64 // character offset of the target needle
}

func generateNeedle(w *bufio.Writer, spec Spec) (Task, error) {
	r := newRNG(spec.Seed, streamNeedle)
	needles := planNeedles(r, spec)
	g := &needleGen{w: w, r: r, log: spec.Filler == FillerLog, para: -1, buf: make([]byte, 0, 4096)}
	g.limit = spec.Size - g.needleBytes(needles) - 1
	g.clock = 1735689600000 + int64(r.intn(300))*86400000 + int64(r.intn(86400000)) // a time in 2025
	for i := range needles {
		needles[i].off = int64(float64(g.limit) * float64(needles[i].off) / (1 << 30))
	}
	if err := g.run(needles); err != nil {
		return Task{}, err
	}
	t := needles[slices.IndexFunc(needles, func(nd needle) bool { return nd.target })]
	return Task{
		ID:       taskID(spec),
		Kind:     spec.Kind,
		Question: fmt.Sprintf("What is the special magic number for %s mentioned in the context? Answer with the 7-digit number.", t.key),
		Answer:   strconv.Itoa(t.num),
		Size:     g.n,
		Seed:     spec.Seed,
		Spec:     spec,
		Labels:   []string{t.key},
		Offset:   g.offset,
	}, nil
}

// planNeedles draws the keys, numbers and positions of the target and the distractors, sorted by
// position. Positions are in units of 2^-30 of the filler, scaled once the filler size is known.
func planNeedles(r rng, spec Spec) []needle {
	var perm [256]uint8
	for i := range perm {
		perm[i] = uint8(i)
	}
	out := make([]needle, spec.Distractors+1)
	for i := range out {
		j := i + r.intn(len(perm)-i)
		perm[i], perm[j] = perm[j], perm[i]
		k := int(perm[i])
		out[i] = needle{key: keyColours[k>>4] + "-" + keyAnimals[k&15], num: 1_000_000 + r.intn(9_000_000)}
		out[i].off = int64(r.float() * (1 << 30))
	}
	out[0].target, out[0].off = true, int64(spec.Depth*(1<<30))
	for i := 1; i < len(out); i++ {
		for out[i].num == out[0].num {
			out[i].num = 1_000_000 + r.intn(9_000_000)
		}
	}
	slices.SortStableFunc(out, func(a, b needle) int { return cmp.Compare(a.off, b.off) })
	return out
}

// run writes filler until the limit, each needle as soon as the filler has reached its position,
// then the needles left over and a final newline.
func (g *needleGen) run(needles []needle) error {
	for {
		for len(needles) > 0 && needles[0].off <= g.filler {
			if err := g.writeNeedle(needles[0]); err != nil {
				return err
			}
			needles = needles[1:]
		}
		g.buf = g.unit(g.buf[:0])
		if g.filler+int64(len(g.buf)) > g.limit {
			break
		}
		if err := g.write(g.buf); err != nil {
			return err
		}
		g.filler += int64(len(g.buf))
	}
	for _, nd := range needles {
		if err := g.writeNeedle(nd); err != nil {
			return err
		}
	}
	if g.log {
		return nil
	}
	return g.write([]byte{'\n'})
}

func (g *needleGen) write(b []byte) error {
	_, err := g.w.Write(b)
	g.n += int64(len(b))
	return err
}

// separator appends what goes before the next sentence: nothing at the start, a newline at the
// end of a paragraph, else a space. Log lines carry their own newline.
func (g *needleGen) separator(b []byte) []byte {
	switch {
	case g.log:
		return b
	case g.para < 0:
		g.para = 3 + g.r.intn(6)
	case g.para == 0:
		g.para = 3 + g.r.intn(6)
		return append(b, '\n')
	default:
		b = append(b, ' ')
	}
	g.para--
	return b
}

// unit appends the next filler unit to b.
func (g *needleGen) unit(b []byte) []byte {
	b = g.separator(b)
	if !g.log {
		return appendSentence(b, g.r)
	}
	g.clock += int64(g.r.intn(1500))
	b = g.logPrefix(b, g.r.pick(levels), g.r.pick(services), g.r.intn(16))
	b = appendClause(b, g.r)
	b = append(b, " in "...)
	b = strconv.AppendInt(b, int64(1+g.r.intn(900)), 10)
	return append(b, " ms\n"...)
}

// logPrefix appends "<timestamp> <level> [<service>] worker-<n>: " for the current clock.
func (g *needleGen) logPrefix(b []byte, level, service string, worker int) []byte {
	b = time.UnixMilli(g.clock).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, ' ')
	b = append(b, level...)
	b = append(b, " ["...)
	b = append(b, service...)
	b = append(b, "] worker-"...)
	b = strconv.AppendInt(b, int64(worker), 10)
	return append(b, ": "...)
}

// appendNeedle appends nd's sentence, as a log line of its own in log filler, and returns where
// the sentence starts. It draws nothing and changes nothing, so it also measures a needle.
func (g *needleGen) appendNeedle(b []byte, nd needle) ([]byte, int) {
	if g.log {
		b = g.logPrefix(b, "NOTE ", "memo", 0)
	}
	at := len(b)
	b = append(b, needlePrefix...)
	b = append(b, nd.key...)
	b = append(b, " is "...)
	b = strconv.AppendInt(b, int64(nd.num), 10)
	b = append(b, '.')
	if g.log {
		b = append(b, '\n')
	}
	return b, at
}

// needleBytes is the most bytes the needles can add, separators included.
func (g *needleGen) needleBytes(needles []needle) int64 {
	var n int64
	for _, nd := range needles {
		b, _ := g.appendNeedle(g.buf[:0], nd)
		n += int64(len(b)) + 1
	}
	return n
}

// writeNeedle writes one needle at the current position.
func (g *needleGen) writeNeedle(nd needle) error {
	b, at := g.appendNeedle(g.separator(g.buf[:0]), nd)
	if nd.target {
		g.offset = g.n + int64(at)
	}
	g.buf = b
	return g.write(b)
}
