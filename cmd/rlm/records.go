package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/logfile"
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
	lang := runLang(f)
	task := audit.Task{ID: st.task, Question: question, PID: os.Getpid(), CtxFiles: f.ctxFiles, Lang: lang, Model: st.llmCfg.Models[0]}
	if err := st.db.StartTask(context.Background(), task); err != nil {
		return err
	}
	noLog := f.ask.noLog || os.Getenv(envNoLog) == "1"
	if st.log, err = logfile.Open(filepath.Join(st.home, "logs"), logfile.Options{Redactor: st.red, Disabled: noLog}); err != nil {
		return err
	}
	meta := trace.Metadata{
		RootModel: st.llmCfg.Models[0], MaxDepth: f.ask.maxDepth, MaxIterations: f.ask.maxIterations,
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
	for _, tc := range res.Tools {
		if tc.Name == "llm_query" || tc.Name == "llm_query_batched" {
			continue // recorded one by one as sub-calls
		}
		r.warn(r.st.db.RecordTool(context.Background(), audit.ToolCall{Task: r.st.task, Step: c.Step, Name: tc.Name, Args: tc.Args, Result: tc.Result, Error: tc.Err}))
	}
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
	r.warn(r.st.db.RecordTool(context.Background(), tc))
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
