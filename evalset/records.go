package evalset

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// recordsHeader is the first line of an aggregation task's input.
const recordsHeader = "support tickets, one per line: date | user | category | text\n"

const recordsIntro = "The context is a log of support tickets, one per line, with the fields date | user | category | text. "

// recordGen writes support-ticket records and counts their categories.
type recordGen struct {
	w      *bufio.Writer
	r      rng
	n      int64
	clock  int64 // seconds since the epoch
	cum    []int // cumulative category weights
	counts []int64
	buf    []byte
}

func generateRecords(w *bufio.Writer, spec Spec) (Task, error) {
	r := newRNG(spec.Seed, streamRecord)
	g := &recordGen{w: w, r: r, cum: categoryWeights(r), counts: make([]int64, len(categories)), buf: make([]byte, 0, 1024)}
	g.clock = 1735689600 + int64(r.intn(300))*86400 + int64(r.intn(86400))
	labels := questionLabels(r, spec.Kind)
	if err := g.run(spec.Size); err != nil {
		return Task{}, err
	}
	t := Task{ID: taskID(spec), Kind: spec.Kind, Size: g.n, Seed: spec.Seed, Spec: spec, Labels: labels, Offset: -1}
	t.Question, t.Answer, t.Accept = recordsQA(spec.Kind, labels, g.counts)
	return t, nil
}

// rankWeights are the relative frequencies of the categories by rank, about 1/(rank+1)^0.8:
// Zipf-like, so that the most frequent category usually stands out. They are integers, so that
// the draws are the same on every platform.
var rankWeights = []int{1000, 574, 415, 330, 276, 238, 211, 190}

// categoryWeights gives the categories the rank weights in a random order and returns the
// cumulative weights.
func categoryWeights(r rng) []int {
	rank := make([]int, len(categories))
	for i := range rank {
		j := r.intn(i + 1)
		rank[i], rank[j] = rank[j], i
	}
	cum := make([]int, len(categories))
	total := 0
	for i := range cum {
		total += rankWeights[rank[i]]
		cum[i] = total
	}
	return cum
}

// questionLabels draws the categories the question is about.
func questionLabels(r rng, kind string) []string {
	switch kind {
	case KindCount:
		return []string{r.pick(categories)}
	case KindCompare:
		a := r.intn(len(categories))
		b := (a + 1 + r.intn(len(categories)-1)) % len(categories)
		return []string{categories[a], categories[b]}
	}
	return append([]string(nil), categories...)
}

// run writes the header and then records while they fit in size.
func (g *recordGen) run(size int64) error {
	if _, err := g.w.WriteString(recordsHeader); err != nil {
		return err
	}
	g.n = int64(len(recordsHeader))
	for {
		c := g.category()
		g.buf = g.record(g.buf[:0], c)
		if g.n+int64(len(g.buf)) > size {
			return nil
		}
		if _, err := g.w.Write(g.buf); err != nil {
			return err
		}
		g.n += int64(len(g.buf))
		g.counts[c]++
	}
}

func (g *recordGen) category() int {
	u := g.r.intn(g.cum[len(g.cum)-1])
	for i, c := range g.cum {
		if u < c {
			return i
		}
	}
	return len(g.cum) - 1
}

// record appends "date time | uNNNNN | category | text\n".
func (g *recordGen) record(b []byte, c int) []byte {
	g.clock += int64(g.r.intn(4))
	b = time.Unix(g.clock, 0).UTC().AppendFormat(b, "2006-01-02 15:04:05")
	b = append(b, " | u"...)
	u := g.r.intn(100000)
	for d := 10000; d > 0; d /= 10 {
		b = append(b, byte('0'+u/d%10))
	}
	b = append(b, " | "...)
	b = append(b, categories[c]...)
	b = append(b, " | "...)
	b = append(b, g.r.pick(openers)...)
	b = append(b, ' ')
	b = append(b, g.r.pick(categoryWords[c])...)
	b = append(b, ' ')
	b = append(b, g.r.pick(conjunctions)...)
	b = append(b, ' ')
	b = appendClause(b, g.r)
	return append(b, '\n')
}

// recordsQA words the question and derives the answer from the counts.
func recordsQA(kind string, labels []string, counts []int64) (q, answer string, accept []string) {
	count := func(label string) int64 { return counts[indexOf(categories, label)] }
	switch kind {
	case KindCount:
		q = fmt.Sprintf("How many tickets have the category %q? Answer with a number.", labels[0])
		return recordsIntro + q, strconv.FormatInt(count(labels[0]), 10), nil
	case KindCompare:
		q = fmt.Sprintf("Which category occurs more often, %q or %q? Answer with the category name, or \"same\" if they occur equally often.", labels[0], labels[1])
		switch a, b := count(labels[0]), count(labels[1]); {
		case a > b:
			answer = labels[0]
		case a < b:
			answer = labels[1]
		default:
			answer = "same"
		}
		return recordsIntro + q, answer, nil
	}
	q = fmt.Sprintf("Which category occurs most often? Answer with the category name (one of: %s).", strings.Join(labels, ", "))
	var best int64 = -1
	for _, l := range labels {
		switch n := count(l); {
		case n > best:
			best, accept = n, []string{l}
		case n == best:
			accept = append(accept, l)
		}
	}
	if len(accept) == 1 {
		return recordsIntro + q, accept[0], nil
	}
	return recordsIntro + q, accept[0], accept
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
