package evalset

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// kindOrder is the order of the report's rows; unknown kinds come last, by name.
var kindOrder = []string{KindNeedle, KindCount, KindMostFrequent, KindCompare}

func summarize(outcomes []Outcome) Report {
	type key struct {
		kind string
		size int64
	}
	rows := map[key]*Row{}
	total := Row{Kind: "total"}
	for _, o := range outcomes {
		size := o.Task.Spec.Size
		if size == 0 {
			size = o.Task.Size
		}
		k := key{o.Task.Kind, size}
		if rows[k] == nil {
			rows[k] = &Row{Kind: k.kind, Size: k.size}
		}
		score := 0.0
		if o.Err == nil {
			score = Score(o.Task, o.Answer)
		}
		rows[k].add(o, score)
		total.add(o, score)
	}
	var r Report
	for _, row := range rows {
		r.Rows = append(r.Rows, row.done())
	}
	slices.SortFunc(r.Rows, compareRows)
	r.Total = total.done()
	return r
}

// add counts one outcome; Accuracy holds the sum of scores until done.
func (r *Row) add(o Outcome, score float64) {
	r.N++
	if o.Err != nil {
		r.Errors++
	}
	r.Accuracy += score
	r.Tokens += o.Tokens
	r.Calls += o.Calls
	r.Wall += o.Wall
}

// done turns the sum of scores into their mean.
func (r *Row) done() Row {
	if r.N > 0 {
		r.Accuracy /= float64(r.N)
	}
	return *r
}

func compareRows(a, b Row) int {
	rank := func(kind string) int {
		if i := slices.Index(kindOrder, kind); i >= 0 {
			return i
		}
		return len(kindOrder)
	}
	return cmp.Or(cmp.Compare(rank(a.Kind), rank(b.Kind)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Size, b.Size))
}

func formatReport(w io.Writer, r Report) error {
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := append(slices.Clip(r.Rows), r.Total)
	kw := len("kind") // kinds are padded on the right, so that they read left-aligned
	for _, row := range rows {
		kw = max(kw, len(row.Kind))
	}
	fmt.Fprintf(tw, "%-*s\tsize\ttasks\taccuracy\terrors\ttokens/task\tcalls/task\twall/task\t\n", kw, "kind")
	for _, row := range rows {
		size := "all"
		if row.Size > 0 {
			size = formatSize(row.Size)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%d\t%.3f\t%d\t%s\t%s\t%s\t\n", kw, row.Kind, size, row.N, row.Accuracy, row.Errors,
			perTask(float64(row.Tokens), row.N, "%.0f"), perTask(float64(row.Calls), row.N, "%.1f"), meanWall(row))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Right alignment pads the first column on the left too: drop that padding.
	for line := range strings.Lines(table.String()) {
		if _, err := io.WriteString(w, strings.TrimPrefix(line, "  ")); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "total: %d tasks, accuracy %.3f, %d tokens, %d calls, %s wall\n",
		r.Total.N, r.Total.Accuracy, r.Total.Tokens, r.Total.Calls, r.Total.Wall.Round(time.Millisecond))
	return err
}

func perTask(sum float64, n int, format string) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf(format, sum/float64(n))
}

func meanWall(r Row) string {
	if r.N == 0 {
		return "-"
	}
	d := r.Wall / time.Duration(r.N)
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.String()
}
