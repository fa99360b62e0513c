package rlm

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/record"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/trace"
)

// reporter writes a run's progress lines, "[agent:NAME] ...", and sends its events. One lock
// orders both, so lines never interleave and OnEvent is never called concurrently.
type reporter struct {
	mu        sync.Mutex
	w         io.Writer // nil: no lines
	name      string
	milestone bool // milestone lines on
	notices   bool // notice lines on
	verbose   bool // each cell's code and output too
	onEvent   func(Event)

	task  string
	done  int          // root iterations finished
	usage func() Usage // spent so far; nil before the records exist

	busy             busy          // what the run waits on now (progress.go)
	status           io.Writer     // a terminal for one status line redrawn in place; nil: lines
	every, drawEvery time.Duration // how often a progress line, or the status line, is written
}

func newReporter(s settings) *reporter {
	p := &reporter{w: s.Progress, name: s.Name, notices: !s.Quiet, verbose: s.Verbose, onEvent: s.OnEvent,
		status: s.Status, every: progressEvery, drawEvery: drawEvery}
	p.milestone = !s.Quiet
	if s.Question == "" { // a script's milestones only when asked for
		p.milestone = s.Verbose
	}
	return p
}

// line writes a milestone line.
func (p *reporter) line(format string, args ...any) {
	if p.milestone {
		p.write(fmt.Sprintf(format, args...))
	}
}

func (p *reporter) write(msg string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearStatus()
	fmt.Fprintf(p.w, "[agent:%s] %s\n", p.name, msg)
}

// say writes a milestone line and sends it as an event of kind k.
func (p *reporter) say(k EventKind, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.milestone {
		p.write(msg)
	}
	p.emit(Event{Kind: k, Message: msg})
}

// notice writes a notice line and sends it as an event.
func (p *reporter) notice(msg string) {
	if p.notices {
		p.write(msg)
	}
	p.emit(Event{Kind: EventNotice, Message: msg})
}

// emit fills in the task, the time, the step and the usage, and sends e.
func (p *reporter) emit(e Event) {
	if p.onEvent == nil {
		return
	}
	var u Usage
	if p.usage != nil {
		u = p.usage()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e.Task, e.Time, e.Usage = p.task, time.Now(), u
	switch {
	case e.Kind == EventIteration:
		p.done = e.Step
	case e.Step > 0:
	case e.Kind == EventFinished:
		e.Step = p.done
	case e.Kind != EventStarted:
		e.Step = p.done + 1 // the iteration in progress
	}
	p.onEvent(e)
}

// recorder is the controller's Observer and the model client's: it writes each event to the
// records, the progress lines and the caller's OnEvent.
type recorder struct {
	r    *run
	rec  *record.Records
	prog *reporter

	mu         sync.Mutex  // orders the spent figures written by concurrent calls
	used       trace.Usage // tokens of every API call this process made, for the trace's outcome
	iterations int
	subCalls   int
}

func (o *recorder) Progress(msg string) {
	o.prog.say(EventMilestone, "%s", msg)
	o.rec.Log.Info(msg, "task", o.rec.Task)
}

func (o *recorder) Busy(what string) { o.prog.Busy(what) }

func (o *recorder) ModelCall(mc controller.ModelCall) {
	if mc.Err != nil {
		o.rec.Log.Warn("root model call failed", "task", o.rec.Task, "step", mc.Step, "err", mc.Err)
	}
}

func (o *recorder) Cell(c controller.Cell) {
	res := c.Result
	o.warn(o.rec.DB.RecordStep(context.Background(), stepRow(o.rec.Task, c, o.r.NoValidate)))
	o.rec.Tools.Add(toolRows(o.rec.Task, c.Step, res))
	if o.prog.verbose {
		o.prog.line("cell %d.%d:\n%s\n--- output ---\n%s", c.Step, c.Index+1, c.Code, res.Stdout)
		if res.Err != nil {
			o.prog.line("cell %d.%d error: %v", c.Step, c.Index+1, res.Err)
		}
	}
	o.prog.emit(Event{Kind: EventCell, Step: c.Step, Cell: &Cell{Index: c.Index, Code: c.Code, Result: execResult(res), Took: c.Took}})
}

func (o *recorder) SubCall(sc controller.SubCall) {
	path, err := o.rec.Prompts.Save(subCallRecord(sc))
	o.warn(err)
	o.rec.Tools.Add([]audit.ToolCall{subCallRow(o.rec.Task, sc, path)})
	o.mu.Lock()
	o.subCalls++
	o.mu.Unlock()
	ev := &SubCall{Model: sc.Response.Model, Prompt: sc.Prompt, Answer: sc.Answer, Error: failureOf(sc.Err), Tokens: sc.Response.Usage.Total(), Took: sc.Took}
	o.prog.emit(Event{Kind: EventSubCall, Step: sc.Step, SubCall: ev})
}

func (o *recorder) Iteration(it controller.Iteration) {
	o.warn(o.rec.Trace.Iteration(iterationRecord(it)))
	o.mu.Lock()
	o.iterations = it.Step
	sp := o.r.client.Spent()
	o.warn(o.rec.DB.RecordSpent(context.Background(), o.rec.Task, record.Spent(sp)))
	o.mu.Unlock()
	msg := fmt.Sprintf("iteration %d: %s, %s%s", it.Step, cellsLabel(it.Cells), counted(len(it.SubCalls), "sub-call"), spentSoFar(usageOf(sp, 0, 0)))
	o.prog.line("%s", msg)
	o.prog.emit(Event{Kind: EventIteration, Step: it.Step, Message: msg})
}

// counted is n and the noun, plural unless n is 1: "1 sub-call", "3 API calls".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// cellsLabel counts an iteration's cells and says how many failed, with the kinds of the
// failures in the order they came, and whether the REPL restarted: "3 cells (2 failed:
// rejected, crashed; the REPL restarted)".
func cellsLabel(cells []controller.Cell) string {
	failed, restarted := 0, false
	var kinds []string
	for _, c := range cells {
		restarted = restarted || c.Result.Rebuilt
		if c.Result.Err == nil {
			continue
		}
		failed++
		if k := string(fault.KindOf(c.Result.Err)); k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	var notes []string
	switch {
	case failed > 0 && len(kinds) > 0:
		notes = append(notes, fmt.Sprintf("%d failed: %s", failed, strings.Join(kinds, ", ")))
	case failed > 0:
		notes = append(notes, fmt.Sprintf("%d failed", failed))
	}
	if restarted {
		notes = append(notes, "the REPL restarted")
	}
	label := counted(len(cells), "cell")
	if len(notes) > 0 {
		label += " (" + strings.Join(notes, "; ") + ")"
	}
	return label
}

// apiCall is the model client's Observer: every attempt goes to the audit trail, and to the
// shared budget.
func (o *recorder) apiCall(c llm.Call) {
	o.warn(o.rec.DB.RecordCall(context.Background(), record.APICall(o.rec.Task, c)))
	if b := o.r.Budget; b != nil {
		b.charge(llm.Spent{Calls: 1, Tokens: c.PromptTokens + c.CompletionTokens, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, Cost: c.Cost})
	}
	// The spent figures go with every call, so a task killed mid-iteration keeps exact ones.
	o.mu.Lock()
	o.used.PromptTokens += c.PromptTokens
	o.used.CompletionTokens += c.CompletionTokens
	o.warn(o.rec.DB.RecordSpent(context.Background(), o.rec.Task, record.Spent(o.r.client.Spent())))
	o.mu.Unlock()
	o.prog.emit(Event{Kind: EventModelCall, Call: &c})
}

// usage is what the run has spent so far.
func (o *recorder) usage() Usage {
	sp := o.r.client.Spent()
	o.mu.Lock()
	defer o.mu.Unlock()
	return usageOf(sp, o.iterations, o.subCalls)
}

// warn logs a failure to record; the run goes on, since losing a record line must not lose the
// user's answer.
func (o *recorder) warn(err error) {
	if err != nil {
		o.rec.Log.Error("recording failed", "task", o.rec.Task, "err", err)
		o.prog.line("warning: recording failed: %v", err)
	}
}
