package rlm

import (
	"fmt"
	"time"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/termsafe"
)

// progressEvery is how often a line says what a run is still doing, while a cell or a model call
// takes longer than that; on a terminal (Options.Status) one status line is drawn after as long,
// and redrawn in place every drawEvery from then on.
const (
	progressEvery  = 5 * time.Second
	progressMaxGap = time.Minute
	drawEvery      = time.Second
)

// busy is what a run waits on (controller.Observer.Busy), and the timer of its progress lines.
type busy struct {
	what  string
	since time.Time
	gen   int // which Busy call the timer belongs to
	timer *time.Timer
	drawn bool // a status line is on the terminal, to clear before the next line
}

// Busy starts or ends the progress lines of one piece of work. They are notices: written unless
// Quiet, for scripts too.
func (p *reporter) Busy(what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy.timer != nil {
		p.busy.timer.Stop()
	}
	p.clearStatus()
	p.busy.gen++
	p.busy.what, p.busy.since, p.busy.timer = what, time.Now(), nil
	if what == "" || (p.w == nil && p.status == nil) || !p.notices {
		return
	}
	gen := p.busy.gen
	p.busy.timer = time.AfterFunc(p.every, func() { p.tick(gen) })
}

// schedule sets the timer of the next progress line of work gen, or of the next redraw of the
// status line, which follows the first every drawEvery. Lines (not a terminal) come further
// apart as the work goes on: the next after as long as the work has run so far, at most
// progressMaxGap, so that a two-minute cell writes 5 lines (at 5, 10, 20, 40 and 80 s), not 24.
// p.mu is held.
func (p *reporter) schedule(gen int) {
	every := min(max(p.every, time.Since(p.busy.since)), max(p.every, progressMaxGap))
	if p.status != nil {
		every = p.drawEvery
	}
	p.busy.timer = time.AfterFunc(every, func() { p.tick(gen) })
}

// tick writes one progress line (or redraws the status line), unless the work it was set for
// has ended.
func (p *reporter) tick(gen int) {
	var u Usage
	if p.usage != nil {
		u = p.usage()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen != p.busy.gen || p.busy.what == "" {
		return
	}
	msg := fmt.Sprintf("still running: %s (%s)%s", p.busy.what, time.Since(p.busy.since).Round(time.Second), spentSoFar(u))
	if p.status != nil {
		// Only the work's name can hold text rlm did not write (a script's file name).
		msg = fmt.Sprintf("still running: %s (%s)%s", termsafe.String(p.busy.what), time.Since(p.busy.since).Round(time.Second), spentSoFar(u))
		fmt.Fprintf(p.status, "\r\x1b[K[agent:%s] %s", termsafe.String(p.name), msg)
		p.busy.drawn = true
	} else {
		fmt.Fprintf(p.w, "[agent:%s] %s\n", p.name, msg)
	}
	p.schedule(gen)
}

// clearStatus erases the status line from the terminal, so that the next line starts clean.
// p.mu is held.
func (p *reporter) clearStatus() {
	if p.busy.drawn {
		fmt.Fprint(p.status, "\r\x1b[K")
		p.busy.drawn = false
	}
}

// spentSoFar is "; used so far: 3 API calls, 4,100 tokens, cost $0.01", or "" before the first
// API call. A cost of nothing known yet (the calls so far got no tokens) is left out: "$0"
// would read as free and "unknown" a moment later as a change.
func spentSoFar(u Usage) string {
	if u.Calls == 0 {
		return ""
	}
	cost := ", cost " + u.Cost.String()
	if u.Cost == (llm.Cost{}) {
		cost = ""
	}
	return fmt.Sprintf("; used so far: %s, %s%s", counted(u.Calls, "API call"), counted(u.Tokens, "token"), cost)
}
