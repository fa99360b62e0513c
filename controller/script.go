package controller

import (
	"context"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/repl"
)

// ScriptOutcome is what a script run produced.
type ScriptOutcome struct {
	repl.Result // the cell's output, its FINAL value and its error
	SubCalls    int
	Isolation   repl.Isolation
}

// RunScript runs src, read from the file name, as one cell over the context files: the
// --script mode of rlm run. Its llm_query and llm_query_batched calls are served as a question
// run's sub-calls are, under the same caps (MaxSubCalls, MaxBatches, BatchWidth) and the model's
// budgets, by cfg.Model (or cfg.SubQuery); with neither, they fail with an error that says how
// to configure a model. A cap hit fails the run, as in a question run, even if the code caught
// the error. Errors name the file (repl.Session.ExecFile). The cell, its sub-calls and one
// iteration go to cfg.Observer, so a script run is recorded as a question run is.
func RunScript(ctx context.Context, cfg Config, name, src string) ScriptOutcome {
	cfg = cfg.withDefaults().withTimeout(ctx)
	step := 1
	subs := newSubHost(cfg, &step)
	opts := cfg.Session
	opts.Host = subs
	if cfg.Model == nil && cfg.SubQuery == nil {
		opts.Host = noModel{subs}
	}
	sess, err := repl.Open(ctx, opts)
	if err != nil {
		return ScriptOutcome{Result: repl.Result{Err: err}}
	}
	defer sess.Close()
	out := ScriptOutcome{Isolation: sess.Isolation()}
	start := time.Now()
	subs.startStep()
	cfg.Observer.Busy("running " + name)
	res := sess.ExecFile(ctx, name, src)
	cfg.Observer.Busy("")
	if err := subs.capErr(); err != nil {
		res.Err = err // the cap hit is the cause, however the code reported it
	} else if err := ctxErr(ctx, cfg.Timeout, scriptTimeFix); err != nil {
		res.Err = err // so is the run's end: the script has no next cell
	}
	c := Cell{Step: step, Code: src, Result: res, SubCalls: subs.takeStep(), Took: time.Since(start)}
	cfg.Observer.Cell(c)
	it := Iteration{Step: step, Cells: []Cell{c}, SubCalls: c.SubCalls, Took: c.Took}
	if res.Err == nil {
		it.Final = res.Final
	}
	cfg.Observer.Iteration(it)
	out.Result, out.SubCalls = res, subs.used()
	return out
}

// noModel is the host of a script run without a model: it refuses sub-calls, saying what to set,
// and serves the session's own tools as the run's host does.
type noModel struct{ subs *subHost }

func (m noModel) Call(ctx context.Context, name string, args []any) (any, error) {
	if m.subs.isTool(name) {
		return m.subs.Call(ctx, name, args)
	}
	return nil, fault.New(fault.Denied, "%s needs a model, and this run has none: set RLM_MODEL (and RLM_BASE_URL, RLM_API_KEY), or pass --model, or --replay FILE for a scripted one", name)
}
