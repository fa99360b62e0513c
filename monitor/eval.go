package monitor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Stream is a labelled token stream for Evaluate.
type Stream struct {
	Name     string
	Category string // e.g. "healthy/code", "loop/p8/late"
	// Degenerate streams should abort; healthy ones must not.
	Degenerate bool
	// Onset is the index of the first degenerate token (for a loop, the first
	// token of the loop body's first copy). An abort before it is a false alarm.
	Onset          int
	Period         int // loop period in tokens, 0 if not a loop
	ExpectedTokens int // passed to New
	FinishReason   string
	Tokens         []Token
}

// Outcome is the result of one stream.
type Outcome struct {
	Stream     *Stream
	Verdict    Verdict
	FalseAlarm bool // aborted a healthy stream, or before the onset
	Detected   bool // aborted a degenerate stream at or after the onset
	// Late is set for a detected loop that aborted after
	// max(Onset, MinTokensBeforeAbort) + 2·Period tokens (two periods).
	Late bool
	// Overdue is set for a detected loop that aborted after the design
	// deadline max(Onset, MinTokensBeforeAbort) + LoopNeed(Period), or an
	// exact loop that was not detected at all.
	Overdue bool
}

// CategoryStats summarises the streams of one category.
type CategoryStats struct {
	Category   string
	Degenerate bool
	Streams    int
	Aborted    int
	FalseAlarm int
	Detected   int
	// MedianTokens is the median token count at abort over aborted streams.
	MedianTokens float64
	// MedianAfter and MaxAfter count tokens from max(Onset, MinTokensBeforeAbort)
	// to the abort, over detected streams.
	MedianAfter, MaxAfter float64
	// For exact loops, the median and worst delay in periods.
	MedianPeriods, MaxPeriods float64
	Late, Overdue             int
	Reasons                   map[AbortReason]int
}

// Report is the result of Evaluate.
type Report struct {
	Config     Config
	Outcomes   []Outcome
	Categories []CategoryStats
}

// Evaluate runs every stream through a fresh Monitor and scores the verdicts.
// Each stream is fed until it aborts or ends, then finished with its
// FinishReason.
func Evaluate(cfg Config, streams []Stream) Report {
	cfg = cfg.withDefaults()
	r := Report{Config: cfg}
	for i := range streams {
		r.Outcomes = append(r.Outcomes, run(cfg, &streams[i]))
	}
	r.Categories = summarise(cfg, r.Outcomes)
	return r
}

func run(cfg Config, s *Stream) Outcome {
	m := New(cfg, s.ExpectedTokens)
	v := Verdict{Reason: ReasonNone}
	for _, t := range s.Tokens {
		if v = m.Observe(t); v.Abort {
			break
		}
	}
	if !v.Abort {
		v = m.Finish(s.FinishReason)
	}
	o := Outcome{Stream: s, Verdict: v}
	// Verdict.Tokens counts tokens, so the aborting token's index is Tokens-1.
	o.FalseAlarm = v.Abort && (!s.Degenerate || v.Tokens-1 < s.Onset)
	o.Detected = v.Abort && !o.FalseAlarm
	if s.Period > 0 && !o.FalseAlarm {
		start := max(s.Onset, cfg.MinTokensBeforeAbort)
		o.Late = !o.Detected || v.Tokens > start+2*s.Period
		o.Overdue = !o.Detected || v.Tokens > start+LoopNeed(cfg, s.Period)
	}
	return o
}

// LoopNeed is the number of tokens of exact repetition with period p that
// the loop detector needs under cfg: two copies and LoopMinSpan tokens, and
// three copies (at most 2·LoopMinSpan tokens) for periods under LoopMinSpan.
func LoopNeed(cfg Config, p int) int { return loopNeed(p, cfg.withDefaults().LoopMinSpan) }

func summarise(cfg Config, outs []Outcome) []CategoryStats {
	byCat := map[string]*CategoryStats{}
	var order []string
	tokens := map[string][]float64{}
	after := map[string][]float64{}
	periods := map[string][]float64{}
	for _, o := range outs {
		s := o.Stream
		c := byCat[s.Category]
		if c == nil {
			c = &CategoryStats{Category: s.Category, Degenerate: s.Degenerate, Reasons: map[AbortReason]int{}}
			byCat[s.Category] = c
			order = append(order, s.Category)
		}
		c.Streams++
		c.Late += b2i(o.Late)
		c.Overdue += b2i(o.Overdue)
		if !o.Verdict.Abort {
			continue
		}
		c.Aborted++
		c.Reasons[o.Verdict.Reason]++
		tokens[s.Category] = append(tokens[s.Category], float64(o.Verdict.Tokens))
		if o.FalseAlarm {
			c.FalseAlarm++
			continue
		}
		c.Detected++
		d := float64(o.Verdict.Tokens - max(s.Onset, cfg.MinTokensBeforeAbort))
		after[s.Category] = append(after[s.Category], d)
		if s.Period > 0 {
			periods[s.Category] = append(periods[s.Category], d/float64(s.Period))
		}
	}
	slices.Sort(order)
	res := make([]CategoryStats, 0, len(order))
	for _, k := range order {
		c := byCat[k]
		c.MedianTokens = median(tokens[k])
		c.MedianAfter, c.MedianPeriods = median(after[k]), median(periods[k])
		c.MaxAfter, c.MaxPeriods = maxOf(after[k]), maxOf(periods[k])
		res = append(res, *c)
	}
	return res
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func maxOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Totals counts streams over the whole report.
type Totals struct {
	Healthy, FalseAlarms      int // healthy streams; aborts on healthy streams or before an onset
	Degenerate, Detected      int
	Loops, Late, Overdue      int // exact loops; after two periods; after the design deadline
	FalseAlarmRate, Detection float64
}

// Totals sums the outcomes.
func (r Report) Totals() Totals {
	var t Totals
	for _, o := range r.Outcomes {
		if o.Stream.Degenerate {
			t.Degenerate++
		} else {
			t.Healthy++
		}
		if o.Stream.Period > 0 {
			t.Loops++
		}
		t.FalseAlarms += b2i(o.FalseAlarm)
		t.Detected += b2i(o.Detected)
		t.Late += b2i(o.Late)
		t.Overdue += b2i(o.Overdue)
	}
	t.FalseAlarmRate = ratio(t.FalseAlarms, t.Healthy)
	t.Detection = ratio(t.Detected, t.Degenerate)
	return t
}

// Table formats the per-category results and the totals. Columns: streams,
// aborted, false alarms, detected; median tokens at the abort; median and
// worst tokens after max(onset, MinTokensBeforeAbort); the same in loop
// periods; loops detected after two periods (>2p) and after LoopNeed (over).
func (r Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %3s %5s %5s %4s %7s %7s %7s %7s %7s %4s %4s  %s\n", "category", "n",
		"abort", "false", "det", "med.tok", "med.aft", "max.aft", "med.per", "max.per", ">2p", "over", "reasons")
	for _, c := range r.Categories {
		fmt.Fprintf(&b, "%-20s %3d %5d %5d %4d %7s %7s %7s %7s %7s %4d %4d  %s\n", c.Category, c.Streams,
			c.Aborted, c.FalseAlarm, c.Detected, num(c.MedianTokens, 0), num(c.MedianAfter, 0),
			num(c.MaxAfter, 0), num(c.MedianPeriods, 2), num(c.MaxPeriods, 2), c.Late, c.Overdue,
			reasons(c.Reasons))
	}
	t := r.Totals()
	fmt.Fprintf(&b, "false alarms %d/%d healthy streams (%.1f%%); detected %d/%d degenerate (%.1f%%); "+
		"exact loops %d: after 2 periods %d, after the design deadline %d\n",
		t.FalseAlarms, t.Healthy, 100*t.FalseAlarmRate, t.Detected, t.Degenerate, 100*t.Detection,
		t.Loops, t.Late, t.Overdue)
	return b.String()
}

func num(x float64, prec int) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func reasons(m map[AbortReason]int) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, fmt.Sprintf("%s:%d", k, v))
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}
