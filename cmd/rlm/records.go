package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/logfile"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// progress writes the run's milestones on stderr: "[agent:<name>] ...".
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	name    string
	quiet   bool
	verbose bool
}

func (p *progress) line(format string, args ...any) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "[agent:%s] %s\n", p.name, fmt.Sprintf(format, args...))
}

// openRecords opens the audit trail, the log, the trace and the sub-call prompt store, and
// records the task as running. Everything is written whatever the run's outcome.
func (st *runState) openRecords(f runFlags, question string) error {
	var err error
	st.started = time.Now()
	if st.db, err = audit.Open(filepath.Join(st.home, "audit.db"), audit.Options{Redactor: st.red}); err != nil {
		return err
	}
	st.tools = newToolWriter(st.db, func(err error) { st.log.Error("recording tool calls failed", "task", st.task, "err", err) })
	lang := runLang(f)
	task := audit.Task{ID: st.task, Question: question, PID: os.Getpid(), CtxFiles: f.ctxFiles, Lang: lang, Model: st.rootModel()}
	if err := st.db.StartTask(context.Background(), task); err != nil {
		return err
	}
	noLog := f.ask.noLog || os.Getenv(envNoLog) == "1"
	if st.log, err = logfile.Open(filepath.Join(st.home, "logs"), logfile.Options{Redactor: st.red, Disabled: noLog}); err != nil {
		return err
	}
	meta := trace.Metadata{
		RootModel: st.rootModel(), MaxDepth: f.ask.maxDepth, MaxIterations: f.ask.maxIterations,
		Backend: "openai", BackendKwargs: map[string]any{"base_url": st.llmCfg.BaseURL, "models": st.llmCfg.Models},
		TaskID: st.task, Question: question, Lang: lang,
	}
	st.tracePath = filepath.Join(st.home, "traces", trace.FileName(st.started, st.task))
	if st.trace, err = trace.Create(st.tracePath, meta, st.red); err != nil {
		return err
	}
	st.prompts, err = trace.NewPromptStore(filepath.Join(st.home, "traces"), st.task, st.red)
	return err
}

// runLang is the session language of a question run: --lang, else Go.
func runLang(f runFlags) string {
	if f.lang != "" {
		return f.lang
	}
	return "go"
}

func (st *runState) close() {
	if st.tools != nil {
		if n := st.tools.close(toolWriteGrace); n > 0 && st.log != nil {
			st.log.Warn("tool-call rows not recorded: the run ended first", "task", st.task, "rows", n)
		}
	}
	if st.trace != nil {
		st.trace.Close()
	}
	if st.log != nil {
		st.log.Close()
	}
	if st.db != nil {
		st.db.Close()
	}
	st.lock.release()
	if st.replay != nil {
		st.replay.Close()
	}
}

// recorder is the controller's Observer: it writes each event to the audit trail, the trace,
// the prompt store, the log and the progress lines.
type recorder struct {
	st   *runState
	prog *progress
	mu   sync.Mutex  // orders the spent figures written by concurrent sub-calls
	used trace.Usage // tokens of every API call this process made, for the trace's outcome
}

func newRecorder(st *runState, prog *progress) *recorder { return &recorder{st: st, prog: prog} }

func (r *recorder) Progress(msg string) {
	r.prog.line("%s", msg)
	r.st.log.Info(msg, "task", r.st.task)
}

func (r *recorder) ModelCall(mc controller.ModelCall) {
	if mc.Err != nil {
		r.st.log.Warn("root model call failed", "task", r.st.task, "step", mc.Step, "err", mc.Err)
	}
}

func (r *recorder) Cell(c controller.Cell) {
	res := c.Result
	dec := audit.Accepted
	switch {
	case errors.Is(res.Err, fault.Rejected):
		dec = audit.Rejected
	case r.st.noValidate:
		dec = audit.Skipped
	}
	s := audit.Step{Task: r.st.task, Step: c.Step, Attempt: c.Index + 1, Code: c.Code, Output: res.Stdout, Decision: dec, ErrorKind: fault.KindOf(res.Err)}
	if dec == audit.Rejected {
		s.Findings = res.Err.Error()
	}
	r.warn(r.st.db.RecordStep(context.Background(), s))
	r.st.tools.add(toolRows(r.st.task, c.Step, res))
	if r.prog.verbose {
		r.prog.line("cell %d.%d:\n%s\n--- output ---\n%s", c.Step, c.Index+1, c.Code, res.Stdout)
		if res.Err != nil {
			r.prog.line("cell %d.%d error: %v", c.Step, c.Index+1, res.Err)
		}
	}
}

func (r *recorder) SubCall(sc controller.SubCall) {
	errText := ""
	if sc.Err != nil {
		errText = sc.Err.Error()
	}
	ts := traceSub(sc)
	path, err := r.st.prompts.Save(ts)
	r.warn(err)
	tc := audit.ToolCall{Task: r.st.task, Step: sc.Step, Name: "llm_query", Args: map[string]any{"prompt_file": path, "prompt_chars": len(sc.Prompt)},
		Result: clipText(sc.Answer, 200), Error: errText, Duration: sc.Took}
	r.st.tools.add([]audit.ToolCall{tc})
}

func (r *recorder) Iteration(it controller.Iteration) {
	r.warn(r.st.trace.Iteration(traceIteration(it)))
	r.mu.Lock()
	sp := r.st.client.Spent()
	r.warn(r.st.db.SetSpent(context.Background(), r.st.task, sp.Calls, sp.Tokens))
	r.mu.Unlock()
	r.prog.line("iteration %d: %d cells, %d sub-calls, %d API calls and %d tokens used so far", it.Step, len(it.Cells), len(it.SubCalls), sp.Calls, sp.Tokens)
}

// apiCall is the model client's Observer: every attempt goes to the audit trail.
func (r *recorder) apiCall(c llm.Call) {
	ac := audit.APICall{Task: r.st.task, Agent: c.Agent, Model: c.Model, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
		Latency: c.Latency, Status: c.Status, Error: c.Err, At: c.At}
	r.warn(r.st.db.RecordCall(context.Background(), ac))
	// The spent figures go with every call, so a task killed mid-iteration keeps exact ones.
	r.mu.Lock()
	r.used.PromptTokens += c.PromptTokens
	r.used.CompletionTokens += c.CompletionTokens
	sp := r.st.client.Spent()
	r.warn(r.st.db.SetSpent(context.Background(), r.st.task, sp.Calls, sp.Tokens))
	r.mu.Unlock()
}

// warn logs a failure to record; the run goes on, since losing a record line must not lose the
// user's answer.
func (r *recorder) warn(err error) {
	if err != nil {
		r.st.log.Error("recording failed", "task", r.st.task, "err", err)
		r.prog.line("warning: recording failed: %v", err)
	}
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// toolRows are a cell's rows for the tool_calls table: its first calls one by one (the session
// keeps the first 100), then one row per tool with the number of calls not recorded one by one.
// Sub-calls are left out: they are recorded as they end, with their prompt files.
func toolRows(task string, step int, res repl.Result) []audit.ToolCall {
	var rows []audit.ToolCall
	logged := map[string]int{}
	for _, tc := range res.Tools {
		logged[tc.Name]++
		if subCall(tc.Name) {
			continue
		}
		rows = append(rows, audit.ToolCall{Task: task, Step: step, Name: tc.Name, Args: tc.Args, Result: tc.Result, Error: tc.Err})
	}
	names := slices.Sorted(maps.Keys(res.ToolCounts))
	for _, name := range names {
		n := res.ToolCounts[name]
		if more := n - logged[name]; more > 0 && !subCall(name) {
			rows = append(rows, audit.ToolCall{Task: task, Step: step, Name: name,
				Args:   map[string]int{"calls": n, "recorded": logged[name]},
				Result: fmt.Sprintf("%d more %s calls in this cell, counted but not recorded one by one", more, name)})
		}
	}
	return rows
}

func subCall(name string) bool { return name == "llm_query" || name == "llm_query_batched" }

// toolWriter writes tool-call rows off the cells' critical path: the recorder queues a cell's
// rows, one goroutine writes each batch in one transaction, and close waits a bounded time for
// the queue, so recording never outlives the run by more than toolWriteGrace. A full queue
// drops rows (counted) rather than slow the run.
type toolWriter struct {
	db      *audit.DB
	warn    func(error)
	q       chan []audit.ToolCall
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	dropped atomic.Int64

	mu     sync.Mutex
	closed bool
}

// Bounds of the tool-call writer.
const (
	toolQueue      = 256         // cells' batches waiting to be written
	toolWriteGrace = time.Second // how long close waits for the queue
)

func newToolWriter(db *audit.DB, warn func(error)) *toolWriter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &toolWriter{db: db, warn: warn, q: make(chan []audit.ToolCall, toolQueue), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go w.run()
	return w
}

func (w *toolWriter) run() {
	defer close(w.done)
	for rows := range w.q {
		if w.ctx.Err() != nil {
			w.dropped.Add(int64(len(rows)))
			continue
		}
		if err := w.db.RecordTools(w.ctx, rows); err != nil {
			w.dropped.Add(int64(len(rows)))
			w.warn(err)
		}
	}
}

// add queues rows; it never blocks.
func (w *toolWriter) add(rows []audit.ToolCall) {
	if len(rows) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed { // a sub-call that ended after the run
		w.dropped.Add(int64(len(rows)))
		return
	}
	select {
	case w.q <- rows:
	default:
		w.dropped.Add(int64(len(rows)))
	}
}

// close stops the queue, waits at most grace for it to be written, and returns how many rows
// were not.
func (w *toolWriter) close(grace time.Duration) int64 {
	w.mu.Lock()
	w.closed = true
	close(w.q)
	w.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.cancel()
		<-w.done
	}
	w.cancel()
	return w.dropped.Load()
}
