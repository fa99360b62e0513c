package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/termsafe"
	"github.com/rlm-sandbox/rlm/trace"
	"github.com/rlm-sandbox/rlm/validator"
)

// controllerConfig builds the model client (none for a script run without a model) and the
// controller's configuration.
func (st *runState) controllerConfig(f runFlags, question string, chain callChain, rec *recorder) (controller.Config, error) {
	lang, err := validator.ParseLang(runLang(f))
	if err != nil {
		return controller.Config{}, usageError{err}
	}
	opts, err := f.options(lang)
	if err != nil {
		return controller.Config{}, err
	}
	st.noValidate = opts.NoValidate
	st.ws = f.ws
	mode, err := f.ask.mode()
	if err != nil {
		return controller.Config{}, err
	}
	cfg := controller.Config{
		Question: question, Session: opts, Mode: mode, Timeout: st.timeout,
		MaxIterations: f.ask.maxIterations, MaxSubCalls: f.ask.maxSubCalls, MaxBatches: f.ask.maxBatches, Observer: rec,
	}
	if len(st.llmCfg.Models) == 0 {
		return cfg, nil // a script run without a model: llm_query says how to configure one
	}
	lc := st.llmCfg
	lc.Deadline = st.started.Add(st.timeout)
	lc.Observer = rec.apiCall
	lc.Notify = func(msg string) { st.notice(rec.prog, f.ask.quiet, msg) }
	lc.Log = st.log.Logger
	lc.Redactor = st.red
	client, err := llm.New(lc)
	if err != nil {
		return controller.Config{}, usageError{err}
	}
	st.client = client
	cfg.Model = stopModel{home: st.home, next: client}
	if f.ask.maxDepth > chain.depth {
		replay := ""
		if st.replay != nil {
			replay = st.replay.URL()
		}
		cfg.SubQuery = newSubRunner(f, chain, st.workDir(), client, replay).query
	}
	return cfg, nil
}

// notice prints a line the person waiting should see now (a retry, a quota pause), unless
// --quiet: a script run, whose milestones are quiet by default, shows these too.
func (st *runState) notice(p *progress, quiet bool, msg string) {
	st.log.Warn(msg, "task", st.task)
	if !quiet {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.w, "[agent:%s] %s\n", p.name, msg)
	}
}

// rootModel is the model of the run's root calls, for its records ("" when a script run has none).
func (st *runState) rootModel() string {
	if len(st.llmCfg.Models) == 0 {
		return ""
	}
	return st.llmCfg.Models[0]
}

// finish records the outcome everywhere, prints it, and returns the error for the exit status.
func (st *runState) finish(ctx context.Context, out io.Writer, rec *recorder, f runFlags, o controller.Outcome) error {
	err := o.Err
	if s, ok := signalOf(ctx); ok {
		err = fault.Wrap(fault.Limit, s, "the run was stopped by a signal")
	}
	// A stopped run (signal, EMERGENCY_STOP) is FAILED, as any run without an answer.
	status := audit.Answered
	if err != nil {
		status = audit.Failed
	}
	st.record(rec, status, o.Answer, err)
	wrote := st.finishWorkspace(rec, f)
	if err != nil {
		rec.prog.line("failed (%s)", failLabel(err))
	} else {
		rec.prog.line("completed in %s: %d iterations, %d sub-calls", time.Since(st.started).Round(time.Millisecond), o.Iterations, o.SubCalls)
	}
	if f.asJSON {
		res := st.jsonResult(status, o, err)
		if wrote != "" {
			res["workspace"] = wrote
		}
		if perr := printJSON(out, res); perr != nil {
			return perr
		}
		if e := exitErr(ctx, err); e != nil {
			return silent{exitCode(e)}
		}
		return nil
	}
	if err == nil {
		fmt.Fprintln(answerWriter(out, f.raw), o.Answer)
	}
	return exitErr(ctx, err)
}

// finishWorkspace removes the default workspace if it stayed empty, and names it on stderr
// (unless --json) if the code wrote to it.
func (st *runState) finishWorkspace(rec *recorder, f runFlags) string {
	if !st.ws.created {
		return ""
	}
	wrote := st.ws.finish()
	if wrote != "" && !f.asJSON {
		st.notice(rec.prog, f.ask.quiet, "the code wrote files to "+wrote)
	}
	return wrote
}

// answerWriter is where the answer goes: escaped for a terminal (the termsafe.Writer under out),
// or as it is with --raw.
func answerWriter(out io.Writer, raw bool) io.Writer {
	if raw {
		return termsafe.Raw(out)
	}
	return out
}

// fail ends a run that could not start its loop.
func (st *runState) fail(rec *recorder, err error) error {
	st.record(rec, audit.Failed, "", err)
	rec.prog.line("failed (%s)", failLabel(err))
	return err
}

// record writes the final spent figures, the task's status and the trace's last line.
func (st *runState) record(rec *recorder, status audit.Status, answer string, err error) {
	bg := context.Background()
	var sp llm.Spent
	if st.client != nil {
		sp = st.client.Spent()
	}
	rec.warn(st.db.SetSpent(bg, st.task, sp.Calls, sp.Tokens))
	rec.warn(st.db.FinishTask(bg, st.task, status, answer, err))
	rec.mu.Lock()
	used := rec.used
	rec.mu.Unlock()
	o := trace.Outcome{Status: string(status), Answer: answer, Usage: used, Tokens: sp.Tokens, Calls: sp.Calls, WallTime: time.Since(st.started)}
	if err != nil {
		o.ErrKind, o.ErrMsg = kindOf(err), err.Error()
	}
	rec.warn(st.trace.Finish(o))
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelError
	}
	st.log.Log(context.Background(), level, "task finished", "task", st.task, "status", status, "calls", sp.Calls, "tokens", sp.Tokens, "err", err)
}

func (st *runState) jsonResult(status audit.Status, o controller.Outcome, err error) map[string]any {
	sp := llm.Spent{}
	if st.client != nil {
		sp = st.client.Spent()
	}
	res := map[string]any{
		"status": jsonStatus(status), "task_id": st.task, "isolation": o.Isolation.Verdict,
		"usage": map[string]any{"api_calls": sp.Calls, "tokens": sp.Tokens, "iterations": o.Iterations, "sub_calls": o.SubCalls},
		"trace": st.tracePath,
	}
	if err == nil {
		res["answer"] = o.Answer
	} else {
		res["error"] = map[string]string{"kind": string(kindOf(err)), "message": err.Error()}
	}
	return res
}

func jsonStatus(s audit.Status) string {
	if s == audit.Answered {
		return "answered"
	}
	return "failed"
}

func signalOf(ctx context.Context) (signalled, bool) {
	var s signalled
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}

// abandon is the last cleanup of a run stopped by a second signal: the task is marked FAILED and
// the PID file removed, with nothing that could block for long.
func (st *runState) abandon(s signalled) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = st.db.FinishTask(ctx, st.task, audit.Failed, "", fault.Wrap(fault.Limit, s, "the run was stopped by a second signal"))
	st.lock.release()
}

// traceIteration converts a controller iteration into the trace's record.
func traceIteration(it controller.Iteration) trace.Iteration {
	ti := trace.Iteration{Response: it.Response.Text, FinalAnswer: it.Final, Time: it.Took, Forced: it.Forced,
		Usage: trace.Usage{PromptTokens: it.Response.Usage.PromptTokens, CompletionTokens: it.Response.Usage.CompletionTokens}}
	for _, m := range it.Messages {
		ti.Prompt = append(ti.Prompt, trace.Message{Role: m.Role, Content: m.Content})
	}
	for _, c := range it.Cells {
		cb := trace.CodeBlock{Code: c.Code, Stdout: c.Result.Stdout, Time: c.Took, ErrKind: fault.KindOf(c.Result.Err)}
		if c.Result.Err != nil {
			cb.ErrMsg = c.Result.Err.Error()
			if cb.ErrKind == "" {
				cb.ErrKind = fault.Code
			}
		} else {
			cb.Final = c.Result.Final
		}
		for _, sc := range c.SubCalls {
			cb.SubCalls = append(cb.SubCalls, traceSub(sc))
		}
		// The engines report names only so far; a Type and a short Repr per variable go here
		// when repl.Result carries them.
		for _, name := range c.Result.Vars {
			cb.Locals = append(cb.Locals, trace.Var{Name: name})
		}
		ti.CodeBlocks = append(ti.CodeBlocks, cb)
	}
	return ti
}

func traceSub(sc controller.SubCall) trace.SubCall {
	ts := trace.SubCall{Model: sc.Response.Model, Prompt: sc.Prompt, Response: sc.Answer, Time: sc.Took,
		Usage: trace.Usage{PromptTokens: sc.Response.Usage.PromptTokens, CompletionTokens: sc.Response.Usage.CompletionTokens}}
	if sc.Err != nil {
		ts.Error = sc.Err.Error()
	}
	return ts
}

// failLabel names a failure for the progress line; the message itself is printed once, by main.
func failLabel(err error) string {
	var ue usageError
	var s signalled
	switch {
	case errors.As(err, &ue):
		return "usage"
	case errors.As(err, &s):
		return s.Error()
	}
	return string(kindOf(err))
}
