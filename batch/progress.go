package batch

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/llm"
)

// progress shows a batch's progress: a bar redrawn in place on a terminal, else one line per
// finished task.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	total   int // tasks this run
	skipped int
	done    int
	failed  int
	tokens  int
	cost    llm.Cost
	start   time.Time
	running func() int
	drawn   bool
}

// newProgress starts the progress of a run of total tasks; sum says what the results file
// held: tasks with a result (skipped), failed ones among them, and failures taken out to run
// again.
func newProgress(cfg Config, total int, sum Summary) *progress {
	p := &progress{w: cfg.Progress, tty: cfg.TTY, total: total, skipped: sum.Skipped, start: time.Now()}
	if p.w == nil {
		return p
	}
	if sum.Retried > 0 {
		p.line(fmt.Sprintf("[batch] running %d failed %s again; their failed results are now in %s", sum.Retried, plural(sum.Retried, "task", "tasks"), RetriedPath(cfg.Out)))
	}
	failed := failedBefore(sum.FailedBefore)
	if sum.Skipped > 0 && total == 0 {
		p.line(fmt.Sprintf("[batch] every task has a result in %s already%s", cfg.Out, failed))
	} else if sum.Skipped > 0 {
		p.line(fmt.Sprintf("[batch] %d %s a result in %s already%s; running the other %d", sum.Skipped, plural(sum.Skipped, "task has", "tasks have"), cfg.Out, failed, total))
	} else if !p.tty && total > 0 {
		// Without a bar, the first line would otherwise wait for the first task to end.
		p.line(fmt.Sprintf("[batch] running %d %s; each result goes to %s as it ends", total, plural(total, "task", "tasks"), cfg.Out))
	}
	return p
}

func (p *progress) result(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Failed() {
		p.failed++
	}
	p.tokens += r.Usage.Tokens
	p.cost = p.cost.Add(r.Usage.Cost)
	if p.w == nil {
		return
	}
	if p.tty {
		p.draw()
		return
	}
	what := r.Status
	if r.Error != nil {
		what = fmt.Sprintf("failed (%s)", r.Error.Kind)
	}
	notes := ""
	for _, n := range r.Notes {
		notes += " · " + n
	}
	p.line(fmt.Sprintf("[batch] %d/%d %s %s in %s, %d tokens%s", p.done, p.total, r.ID, what, time.Duration(r.DurationMS)*time.Millisecond, r.Usage.Tokens, notes))
}

// redraw refreshes the bar (the ETA and the running count move between results).
func (p *progress) redraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.tty {
		p.draw()
	}
}

func (p *progress) draw() {
	const width = 24
	filled := 0
	if p.total > 0 {
		filled = width * p.done / p.total
	}
	running := ""
	if p.running != nil {
		running = fmt.Sprintf(" · %d running", p.running())
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d done · %d failed%s · %d tokens · %s · ETA %s",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.done, p.total, p.failed, running, p.tokens, p.cost, p.eta())
	p.drawn = true
}

// eta extrapolates this run's pace to the tasks left.
func (p *progress) eta() string {
	if p.done == 0 {
		return "?"
	}
	per := time.Since(p.start) / time.Duration(p.done)
	return (per * time.Duration(p.total-p.done)).Round(time.Second).String()
}

func (p *progress) line(s string) {
	fmt.Fprintln(p.w, s)
}

// finish ends the bar and prints the summary line.
func (p *progress) finish(s Summary) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	if p.drawn {
		p.draw()
		fmt.Fprintln(p.w)
	}
	left := ""
	if s.Left > 0 {
		left = "; run the same command again to run the tasks left"
	}
	p.line(fmt.Sprintf("[batch] %s; %d tokens, cost %s, %s%s", s, p.tokens, p.cost, time.Since(p.start).Round(time.Millisecond), left))
}

// String counts the tasks: "8 tasks: 3 done now (0 failed), 5 done before, 0 left".
func (s Summary) String() string {
	return fmt.Sprintf("%d %s: %d done now (%d failed), %d done before%s, %d left", s.Total, plural(s.Total, "task", "tasks"), s.Done, s.Failed, s.Skipped, failedBefore(s.FailedBefore), s.Left)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// failedBefore says how many of the tasks done before failed, and how to run them again ("" for
// none).
func failedBefore(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed: rerun with --retry-failed to run those again)", n)
}
