package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/tools"
)

// Run answers cfg.Question over the context files. It returns when the code has recorded an
// answer, a cap or budget is hit, the model fails, or ctx ends (then Err is a timeout).
func Run(ctx context.Context, cfg Config) Outcome {
	cfg = cfg.withDefaults().withTimeout(ctx)
	if cfg.Model == nil {
		return Outcome{Err: fault.New(fault.Logic, "controller: no model configured")}
	}
	if cfg.Session.Indexes == nil { // one index per input, for the first message and the session
		cfg.Session.Indexes = tools.NewIndexes("", nil)
	}
	meta, err := describe(cfg.Session.Indexes, cfg.Session.Contexts, cfg.Mode == Direct)
	meta.origins(cfg.Converted)
	if err != nil {
		return Outcome{Err: fault.Wrap(fault.Logic, err, "reading the context files")}
	}
	mode := decide(cfg.Mode, meta.chars())
	if mode == Direct && meta.chars() > MaxDirectChars {
		return Outcome{Mode: Direct, Err: fault.New(fault.Limit, "the input is %d characters; one prompt takes at most %d: drop --direct to explore it with the REPL loop", meta.chars(), MaxDirectChars)}
	}
	if mode == Direct {
		if cfg.Mode == Auto {
			cfg.Observer.Progress(fmt.Sprintf("the input is %d characters, under %d: one model call answers with the whole input in its prompt, no code runs (--rlm to explore it with the REPL loop instead)", meta.chars(), DirectThreshold))
		}
		return runDirect(ctx, cfg, meta)
	}
	if cfg.Mode == Loop && meta.chars() < DirectThreshold {
		cfg.Observer.Progress(fmt.Sprintf("the input is %d characters, under %d: the REPL loop adds overhead a direct call would not (drop --rlm to let rlm choose)", meta.chars(), DirectThreshold))
	}
	r := &run{cfg: cfg, meta: meta}
	out := r.loop(ctx)
	out.Mode = Loop
	return out
}

// decide picks the mode for an input of n characters.
func decide(m Mode, n int64) Mode {
	if m != Auto {
		return m
	}
	if n < DirectThreshold {
		return Direct
	}
	return Loop
}

// run is the state of one REPL-loop run.
type run struct {
	cfg   Config
	meta  contextMeta
	sess  *repl.Session
	subs  *subHost
	msgs  []llm.Message
	step  int
	final *string

	failedStreak int
	last         lastReply       // how the latest reply's blocks went, for the iteration cap's message
	ghosts       map[string]bool // variables only a failed block introduced, true when a restart would lose them (see noteVars)
}

func (r *run) loop(ctx context.Context) Outcome {
	r.subs = newSubHost(r.cfg, &r.step)
	opts := r.cfg.Session
	opts.Host = r.subs
	sess, err := repl.Open(ctx, opts)
	if err != nil {
		return Outcome{Err: err}
	}
	r.sess = sess
	defer sess.Close()
	out := Outcome{Isolation: sess.Isolation()}
	r.msgs = []llm.Message{
		{Role: "system", Content: SystemPrompt(r.cfg)},
		{Role: "user", Content: r.meta.firstMessage(r.cfg.Question)},
	}
	out.Err = r.iterate(ctx)
	out.Iterations = r.step
	out.SubCalls = r.subs.used()
	if out.Err == nil {
		out.Answer = *r.final
	}
	return out
}

// iterate runs iterations until an answer, a failure, or the cap and the forced final call.
func (r *run) iterate(ctx context.Context) error {
	for r.step < r.cfg.MaxIterations {
		if err := r.iteration(ctx, false); err != nil || r.final != nil {
			return err
		}
	}
	r.cfg.Observer.Progress(fmt.Sprintf("iteration cap %d reached: asking for a final answer", r.cfg.MaxIterations))
	r.msgs = append(r.msgs, llm.Message{Role: "user", Content: forcedFinal(r.cfg.MaxIterations)})
	if err := r.iteration(ctx, true); err != nil || r.final != nil {
		return err
	}
	replies := fmt.Sprintf("%d replies", r.cfg.MaxIterations)
	if r.cfg.MaxIterations == 1 {
		replies = "1 reply"
	}
	return fault.New(fault.Limit, "no answer after %s (--max-iterations) and the reply asked for a final answer: %s; raise --max-iterations or ask a narrower question", replies, r.last.why())
}

// lastReply is how a reply's blocks went: how many ran, the last error (outcome.err), and the
// error of a block that called FINAL and then failed.
type lastReply struct {
	blocks        int
	err, finalErr error
}

// why says why the reply recorded no answer.
func (l lastReply) why() string {
	switch {
	case l.blocks == 0:
		return "it had no code block (an answer written in prose is not recorded)"
	case l.finalErr != nil:
		return "it called FINAL in a block that then failed (" + clip(l.finalErr.Error(), 300) + ")"
	case l.err != nil:
		return "its code blocks did not call FINAL, and the last one to fail said: " + clip(l.err.Error(), 300)
	}
	return "its code blocks did not call FINAL"
}

// iteration is one root model call and the cells of its reply.
func (r *run) iteration(ctx context.Context, forced bool) error {
	if err := ctxErr(ctx, r.cfg.Timeout, questionTimeFix); err != nil {
		return err
	}
	r.step++
	start := time.Now()
	r.compact()
	prompt := append([]llm.Message(nil), r.msgs...)
	r.cfg.Observer.Busy(fmt.Sprintf("iteration %d: waiting for the root model", r.step))
	resp, err := r.cfg.Model.Complete(ctx, llm.Request{Messages: prompt, Agent: "root"})
	r.cfg.Observer.Busy("")
	r.cfg.Observer.ModelCall(ModelCall{Step: r.step, Messages: prompt, Response: resp, Err: err})
	if err != nil {
		if c := ctxErr(ctx, r.cfg.Timeout, questionTimeFix); c != nil {
			return c
		}
		return err
	}
	r.msgs = append(r.msgs, llm.Message{Role: "assistant", Content: resp.Text})
	it := Iteration{Step: r.step, Messages: prompt, Response: resp, Forced: forced}
	r.subs.startStep()
	feedback, oc, err := r.runCells(ctx, resp.Text, &it)
	it.Final, it.Took = r.final, time.Since(start)
	r.cfg.Observer.Iteration(it)
	if err != nil || r.final != nil {
		return err
	}
	if !forced {
		if err := r.streakCheck(oc); err != nil {
			return err
		}
		if r.failedStreak == limits.FailedStreak-1 {
			feedback += streakWarning(r.failedStreak)
		}
		feedback += r.budgetLine()
	}
	r.msgs = append(r.msgs, llm.Message{Role: "user", Content: feedback})
	return nil
}

// runCells runs the reply's code blocks in order and returns the feedback for the model, and
// how the iteration went: whether every block failed (or there was none), and whether every one
// was denied by the sandbox.
func (r *run) runCells(ctx context.Context, reply string, it *Iteration) (string, outcome, error) {
	blocks := Extract(reply, r.cfg.Session.Lang)
	r.last = lastReply{blocks: len(blocks)}
	if len(blocks) == 0 {
		return noCode(r.cfg.Session.Lang), outcome{failed: true, err: fault.New(fault.Format, "the reply had no code block")}, nil
	}
	fb := feedbackBuilder{blockTimeout: r.cfg.Session.CellTimeout}
	if len(blocks) > r.cfg.MaxBlocks {
		fb.b.WriteString(tooManyBlocks(len(blocks), r.cfg.MaxBlocks))
		blocks = blocks[:r.cfg.MaxBlocks]
	}
	oc := outcome{failed: true, denied: true}
	var results []repl.Result
	for i, code := range blocks {
		start := time.Now()
		before := r.sess.Vars()
		r.cfg.Observer.Busy(fmt.Sprintf("iteration %d: running cell %d of %d", r.step, i+1, len(blocks)))
		res := r.sess.Exec(ctx, code)
		r.cfg.Observer.Busy("")
		r.noteVars(before, res, code)
		c := Cell{Step: r.step, Index: i, Code: code, Result: res, SubCalls: r.subs.takeStep(), Took: time.Since(start)}
		it.Cells = append(it.Cells, c)
		it.SubCalls = append(it.SubCalls, c.SubCalls...)
		r.cfg.Observer.Cell(c)
		results = append(results, res)
		oc.add(res.Err)
		if res.Err != nil && res.Final != nil {
			r.last.finalErr = res.Err
		}
		if err := r.afterCell(ctx, res); err != nil || r.final != nil {
			return "", oc, err
		}
	}
	r.last.err = oc.err
	needs := make([]int, len(results))
	for i, res := range results {
		needs[i] = need(res)
	}
	for i, limit := range shares(needs, r.cfg.FeedbackChars) {
		fb.cell(i, len(blocks), blocks[i], results[i], limit)
	}
	partial, unkept := r.partialVars()
	fb.vars(r.vars(), partial, unkept, r.sess.Locals())
	return fb.text(2 * r.cfg.FeedbackChars), oc, nil
}

// tooManyBlocks is the feedback's first line for a reply with more code blocks than run.
func tooManyBlocks(n, max int) string {
	return fmt.Sprintf("Your reply had %d code blocks; only the first %d ran (at most %d per reply). Put more work into each block.\n", n, max, max)
}

// outcome is how an iteration's blocks went, for the failed-iterations breaker.
type outcome struct {
	failed, denied bool  // every block failed; every block was denied
	err            error // the last block's error
}

func (o *outcome) add(err error) {
	o.failed = o.failed && err != nil
	o.denied = o.denied && errors.Is(err, fault.Denied)
	if err != nil {
		o.err = err
	}
}

// afterCell stops the run on an answer, a hit cap, a lost session or the end of ctx.
func (r *run) afterCell(ctx context.Context, res repl.Result) error {
	if err := r.subs.capErr(); err != nil {
		return err
	}
	if err := ctxErr(ctx, r.cfg.Timeout, questionTimeFix); err != nil {
		return err
	}
	if res.Lost != nil {
		return fault.Wrap(fault.Crashed, res.Lost, "the REPL state was lost and could not be rebuilt")
	}
	if res.Final != nil && res.Err == nil {
		r.final = res.Final
	}
	return nil
}

// streakCheck stops the run after limits.FailedStreak iterations in a row in which no block
// worked (docs/design.md: consecutive failed steps, 3 → abort), with the fix for what kept failing.
func (r *run) streakCheck(oc outcome) error {
	if !oc.failed {
		r.failedStreak = 0
		return nil
	}
	r.failedStreak++
	if r.failedStreak < limits.FailedStreak {
		return nil
	}
	if oc.denied {
		return fault.New(fault.Denied, "the sandbox refused the code's operations in %d replies in a row; the task needs access rlm does not grant (check --root and --out, or run the step yourself)", r.failedStreak)
	}
	return fault.New(fault.Classify(oc.err), "no code block worked in %d replies in a row, so the run stops (last error: %s); %s", r.failedStreak, clip(oc.err.Error(), 300), streakFix(oc.err, r.cfg.Session.CellTimeout))
}

// streakFix is what to do about blocks that kept failing, by what failed last.
func streakFix(err error, blockTimeout time.Duration) string {
	switch {
	case errors.Is(err, fault.Timeout):
		return fmt.Sprintf("the blocks ran past the block time limit (%s): raise --cell-timeout, or ask a narrower question", human(blockTimeout))
	case errors.Is(err, fault.Format):
		return "the model's replies had no code block: use a model that follows the instructions (--model)"
	case errors.Is(err, fault.Rejected):
		return "the validator rejected the model's code each time: try a stronger model (--model)"
	case errors.Is(err, fault.Crashed):
		return "the REPL process kept dying: ask for less at once, or try a stronger model (--model)"
	case errors.Is(err, fault.Limit):
		return "a cap was hit: raise it as the error says, or ask a narrower question"
	}
	return "the model's code kept failing: try a stronger model (--model), or ask a narrower question"
}

// streakWarning is added to the feedback when one more failed reply ends the run.
func streakWarning(n int) string {
	return fmt.Sprintf("Warning: no block has worked in your last %d replies (a block that stops with an error counts as not working, even after it printed); if none works in your next reply, the run ends. Fix the error above first, with a small block that is sure to run.\n", n)
}

// ctxErr turns the end of the run's context into a fault; limit is the run's time limit, named
// in the message when known. fix says what to do about a passed limit.
func ctxErr(ctx context.Context, limit time.Duration, fix string) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		if limit > 0 {
			return fault.Wrap(fault.Timeout, err, fmt.Sprintf("the run's time limit (%s) passed; %s", human(limit), fix))
		}
		return fault.Wrap(fault.Timeout, err, "the run's time limit passed; "+fix)
	}
	return fault.Stopped(ctx, "the run was stopped")
}

// What to do about a run past its time limit, for a question and for a script.
const (
	questionTimeFix = "raise --timeout, or ask a narrower question"
	scriptTimeFix   = "the script was stopped: raise --timeout, or make the script do less"
)

// withTimeout fills in Timeout from ctx's deadline when the caller did not state it.
func (c Config) withTimeout(ctx context.Context) Config {
	if dl, ok := ctx.Deadline(); ok && c.Timeout <= 0 {
		c.Timeout = time.Until(dl).Round(time.Second)
	}
	return c
}

// runDirect answers with one model call, the context in the prompt.
func runDirect(ctx context.Context, cfg Config, meta contextMeta) Outcome {
	text := meta.text()
	msgs := []llm.Message{
		{Role: "system", Content: directSystem},
		{Role: "user", Content: directUser(text, cfg.Question)},
	}
	cfg.Observer.Busy("waiting for the model's answer")
	resp, err := cfg.Model.Complete(ctx, llm.Request{Messages: msgs, Agent: "root"})
	cfg.Observer.Busy("")
	cfg.Observer.ModelCall(ModelCall{Step: 1, Messages: msgs, Response: resp, Err: err})
	if err != nil {
		if c := ctxErr(ctx, cfg.Timeout, questionTimeFix); c != nil {
			err = c
		}
		return Outcome{Mode: Direct, Iterations: 1, Err: err}
	}
	ans := resp.Text
	cfg.Observer.Iteration(Iteration{Step: 1, Messages: msgs, Response: resp, Final: &ans})
	return Outcome{Mode: Direct, Iterations: 1, Answer: ans}
}
