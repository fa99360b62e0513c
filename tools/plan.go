package tools

import (
	"regexp"
	"slices"
	"strings"
)

func (d *Doc) chunk(size, overlap int64) ([]Span, error) {
	if err := d.begin(); err != nil {
		return nil, err
	}
	defer d.mu.RUnlock()
	length, max := d.Length(), int64(d.store.lim.Chunks)
	switch {
	case size < 1:
		return nil, invalidf("chunk size %d must be at least 1 character", size)
	case overlap < 0 || overlap >= size:
		return nil, invalidf("chunk overlap %d must be at least 0 and less than the size %d", overlap, size)
	}
	if n := chunkCount(length, size, overlap); n > max {
		need := (length + (max-1)*overlap + max - 1) / max
		for chunkCount(length, need, overlap) > max {
			need++
		}
		return nil, limitf("chunk(size=%d, overlap=%d) on %s (%d characters) makes %d chunks, more than %d; use size ≥ %d",
			size, overlap, d.name, length, n, max, need)
	}
	return d.spans(length, size, overlap), nil
}

// chunkCount is the number of chunks that cover length characters.
func chunkCount(length, size, overlap int64) int64 {
	switch {
	case length == 0:
		return 0
	case length <= size:
		return 1
	}
	step := size - overlap
	return 1 + (length-size+step-1)/step
}

func (d *Doc) spans(length, size, overlap int64) []Span {
	out := make([]Span, 0, chunkCount(length, size, overlap))
	for start := int64(0); start < length; start += size - overlap {
		end := min(start+size, length)
		out = append(out, Span{Index: len(out), Ref: d.ref(start, end), Start: start, End: end})
		if end == length {
			break
		}
	}
	return out
}

// Keyword limits for PlanSlices.
const (
	maxKeywords   = 32
	maxKeywordLen = 256
)

// window is a planned slice in byte offsets.
type window struct {
	lo, hi int
	hits   int64
}

func (d *Doc) planSlices(keywords []string, max int) (Plan, error) {
	if err := d.begin(); err != nil {
		return Plan{}, err
	}
	defer d.mu.RUnlock()
	lim := d.store.lim
	if max < 1 || max > lim.Chunks {
		return Plan{}, invalidf("plan_slices max %d must be between 1 and %d", max, lim.Chunks)
	}
	pattern, err := keywordPattern(keywords)
	if err != nil {
		return Plan{}, err
	}
	pt, err := compilePattern(pattern)
	if err != nil {
		return Plan{}, err
	}
	var plan Plan
	err = guarded(func() error {
		var err error
		plan, err = d.plan(pt, max)
		return err
	})
	return plan, err
}

// plan finds the windows of pt's hits and converts them to spans, or falls
// back to uniform slices.
func (d *Doc) plan(pt *pattern, max int) (Plan, error) {
	e, err := newEngine(pt, d.data, defaultEngineConfig, parallel)
	if err != nil {
		return Plan{}, err
	}
	ws, hits, err := d.windows(e, max)
	if err != nil {
		return Plan{}, err
	}
	if hits == 0 {
		length := d.Length()
		size := max64(1, (length+int64(max)-1)/int64(max))
		return Plan{Slices: d.spans(length, size, 0), Uniform: true}, nil
	}
	plan := Plan{Hits: hits, Slices: make([]Span, 0, len(ws))}
	for _, w := range ws {
		lo := d.idx.charAt(d.data, boundaryAtOrAfter(d.data, w.lo))
		hi := d.idx.charAt(d.data, boundaryAtOrAfter(d.data, w.hi))
		hi = min(hi, lo+int64(d.store.lim.PeekChars))
		plan.Slices = append(plan.Slices, Span{Index: len(plan.Slices), Ref: d.ref(lo, hi), Start: lo, End: hi, Hits: w.hits})
	}
	return plan, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// keywordPattern matches any keyword, case-insensitively.
func keywordPattern(keywords []string) (string, error) {
	if len(keywords) == 0 || len(keywords) > maxKeywords {
		return "", invalidf("plan_slices takes 1 to %d keywords, got %d", maxKeywords, len(keywords))
	}
	quoted := make([]string, len(keywords))
	for i, k := range keywords {
		if k == "" || len(k) > maxKeywordLen {
			return "", invalidf("plan_slices keyword %d is empty or longer than %d bytes", i, maxKeywordLen)
		}
		quoted[i] = regexp.QuoteMeta(k)
	}
	return "(?i)(?:" + strings.Join(quoted, "|") + ")", nil
}

// windows groups keyword hits into slices of at most PeekChars bytes (so at
// most PeekChars characters) with about PeekChars/16 bytes of context each
// side, keeps the max slices with the most hits, and returns them in
// document order with the total number of hits. Hits are grouped within
// each search part (8 MiB or more of whole lines), never across parts.
func (d *Doc) windows(e engine, max int) ([]window, int64, error) {
	cap := d.store.lim.PeekChars
	pad := cap / 16
	ps := e.parts(d.data)
	kept := make([][]window, len(ps))
	hits := make([]int64, len(ps))
	cur := make([]window, len(ps))
	err := scanAll(e, d.data, ps, func(k int) func(s, e int) {
		return func(s, e int) {
			hits[k]++
			lo := maxInt(s-pad, 0)
			hi := min(e+pad, len(d.data), lo+cap)
			if c := &cur[k]; c.hits > 0 && lo <= c.hi && maxInt(hi, c.hi)-c.lo <= cap {
				c.hi = maxInt(c.hi, hi)
				c.hits++
				return
			}
			if cur[k].hits > 0 {
				kept[k] = keepTop(kept[k], cur[k], max)
			}
			cur[k] = window{lo, hi, 1}
		}
	})
	for k := range ps {
		if cur[k].hits > 0 {
			kept[k] = keepTop(kept[k], cur[k], max)
		}
	}
	var all []window
	total := int64(0)
	for i := range ps {
		all = append(all, kept[i]...)
		total += hits[i]
	}
	all = topWindows(all, max)
	slices.SortFunc(all, func(a, b window) int { return a.lo - b.lo })
	return all, total, err
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// keepTop adds w to top, keeping at most 2*max windows (trimmed to the max
// best when full), so a part's memory stays bounded.
func keepTop(top []window, w window, max int) []window {
	top = append(top, w)
	if len(top) >= 2*max {
		top = topWindows(top, max)
	}
	return top
}

// topWindows keeps the max windows with the most hits, earlier first on ties.
func topWindows(ws []window, max int) []window {
	slices.SortFunc(ws, func(a, b window) int {
		if a.hits != b.hits {
			if a.hits > b.hits {
				return -1
			}
			return 1
		}
		return a.lo - b.lo
	})
	if len(ws) > max {
		ws = ws[:max]
	}
	return ws
}
