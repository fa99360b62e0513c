package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/tools"
)

// Config is one batch.
type Config struct {
	Tasks []Task
	// Out is the results file, or a link to it (followed; a link to nothing is refused); it
	// must hold only result lines, is appended to, and its results are kept (resume). A new file starts a new batch: results the queue stored for an older file of
	// the same name are dropped.
	Out string
	// RetryFailed runs the tasks whose result in Out is a failure again. Their old lines move
	// to RetriedPath(Out) first, so Out keeps one line per task and no failure is lost.
	RetryFailed bool
	Queue       Queue
	// Local, when set, works on the batch in this process, alongside any other workers.
	Local *Worker
	// Budget, when set, is shared by every task: local runs are checked against it before
	// each model call; results of other workers are charged to it as they arrive. Once it is
	// spent, the batch stops.
	Budget *rlm.Budget
	// Progress gets the batch's progress: a bar redrawn in place when TTY, else one line per
	// finished task (nil: none).
	Progress io.Writer
	TTY      bool
	// OnResult, when set, is called with each result this run writes, in the order written.
	OnResult func(Result)
	// Drain is the longest wait for results after the workers stop (default limits.BatchDrain).
	Drain time.Duration
	// Rerun says, in the error of a batch the model service stopped, how to finish it once the
	// service works; "" is rlm batch's: rerun the same command with --retry-failed.
	Rerun string
}

// Summary is how a batch ended.
type Summary struct {
	Total   int // tasks in the file
	Skipped int // already had a result (resume)
	Retried int // failed results taken out of the file to run again (Config.RetryFailed)
	// FailedBefore counts the skipped tasks whose result is a failure.
	FailedBefore int
	Done         int // results written by this run, failed ones included
	Failed       int
	Left         int // tasks without a result
	Spent        llm.Spent
}

// Run runs the tasks that have no result in cfg.Out yet and appends a result line for each as
// it arrives. It returns when every task has a result, when ctx is done (SIGINT), or when the
// shared budget is spent; results that arrive meanwhile are written first. A stopped batch
// returns its summary and an error (of kind limit) that says what is left and how to resume.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	sum := Summary{Total: len(cfg.Tasks)}
	var err error
	if cfg.Out, err = resolveOut(cfg.Out); err != nil { // a retry replaces the file: the link's target, not the link
		return sum, err
	}
	ids := make([]string, len(cfg.Tasks))
	for i, t := range cfg.Tasks {
		ids[i] = t.ID
	}
	out, err := openResults(cfg.Out, ids)
	if err != nil {
		return sum, err
	}
	defer out.close()
	name := Name(cfg.Out)
	if out.created { // a new results file: results stored for an older one are not this batch's
		if err := cfg.Queue.Reset(ctx, name); err != nil {
			return sum, err
		}
	}
	// results are read until Run returns, past a cancelled ctx: the drain writes those of the
	// runs that finished as the batch was stopped
	rctx, stopResults := context.WithCancel(context.WithoutCancel(ctx))
	defer stopResults()
	live, err := cfg.Queue.Results(rctx, name, out.addPast)
	if err != nil {
		return sum, err
	}
	if cfg.RetryFailed { // after the past results, which may hold failures too
		if sum.Retried, err = retryFailed(ctx, cfg, name, out); err != nil {
			return sum, err
		}
	}
	todo := out.left()
	sum.Skipped, sum.FailedBefore = len(cfg.Tasks)-todo, len(out.failedIDs())
	c := &coordinator{cfg: cfg, out: out, sum: &sum, prog: newProgress(cfg, todo, sum)}
	err = c.run(ctx, name, todo, live)
	sum.Left = out.left()
	if cfg.Budget != nil {
		sum.Spent = cfg.Budget.Spent()
	}
	c.prog.finish(sum)
	return sum, err
}

// resolveOut is the results file out names: out itself when nothing is there yet, else the file
// at the end of its links (their target is the results file, checked as such before anything is
// written to it). A link to nothing is refused: nothing is created where a link points.
func resolveOut(out string) (string, error) {
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	real, err := filepath.EvalSymlinks(out)
	if err != nil {
		target, _ := os.Readlink(out)
		return "", fault.New(fault.Schema, "results file %s is a link to %s, which does not exist (%v); create that file first, or give the path of a file, not of a link", out, target, err)
	}
	return real, nil
}

// Name is the queue's name of the batch that writes results to out: a hash of its absolute
// path, so that rerunning the command finds the same batch.
func Name(out string) string {
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	sum := sha256.Sum256([]byte(abs))
	return "b" + hex.EncodeToString(sum[:6])
}

type coordinator struct {
	cfg  Config
	out  *results
	sum  *Summary
	prog *progress
	// outage counts the tasks in a row that failed because the model service was unavailable;
	// last is the latest one's message.
	outage int
	last   string
}

// OutageStop is how many tasks in a row must fail because the model service is unavailable
// (Error.Unavailable) for the batch to stop: the rest would fail the same way, each only after
// its retries.
const OutageStop = 3

// run queues the todo tasks without a result and writes their results.
func (c *coordinator) run(ctx context.Context, name string, todo int, live <-chan Result) error {
	if todo == 0 {
		return nil
	}
	if c.cfg.Budget != nil {
		if err := c.cfg.Budget.Check(); err != nil {
			return c.stopped(err)
		}
	}
	if err := c.cfg.Queue.Drop(ctx, name); err != nil {
		return err
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	var wg sync.WaitGroup
	workErr := make(chan error, 1)
	if c.cfg.Local != nil {
		c.prog.running = c.cfg.Local.Running
		wg.Go(func() { workErr <- c.cfg.Local.Work(wctx) })
	}
	pubErr := make(chan error, 1)
	go func() { pubErr <- c.publish(wctx, name) }()
	err := c.collect(ctx, live, todo, pubErr, workErr)
	stopWorkers()
	if err != nil { // withdraw the jobs no worker has started: a stopped batch stops everywhere
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = c.cfg.Queue.Drop(dctx, name)
		cancel()
	}
	wg.Wait()
	c.drain(live)
	return err
}

// publish stores the inputs (each file once) and queues a job per task without a result.
func (c *coordinator) publish(ctx context.Context, name string) error {
	stored := map[string]Input{}
	for _, t := range c.cfg.Tasks {
		if c.out.has(t.ID) {
			continue
		}
		j := Job{Batch: name, ID: t.ID, Question: t.Question, Lang: t.Lang, Limits: t.Limits}
		if t.Script != "" {
			src, err := tools.ReadRegular(t.Script, int64(maxScript())) // never waits on a fifo
			if err != nil {
				return fault.Wrap(fault.Schema, err, "task "+t.ID)
			}
			j.Script = &Script{Name: filepath.Base(t.Script), Source: string(src)}
		}
		for _, p := range t.Files {
			in, ok := stored[p]
			if !ok {
				var err error
				if in, err = c.cfg.Queue.Store(ctx, p); err != nil {
					return fmt.Errorf("task %s: storing %s: %w", t.ID, p, err)
				}
				stored[p] = in
			}
			j.Files = append(j.Files, in)
		}
		if err := c.cfg.Queue.Publish(ctx, j); err != nil {
			return fmt.Errorf("task %s: %w", t.ID, err)
		}
	}
	return nil
}

// collect writes results as they arrive until n tasks have one, or the batch stops.
func (c *coordinator) collect(ctx context.Context, live <-chan Result, n int, pubErr, workErr <-chan error) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for got := 0; got < n; {
		select {
		case r, ok := <-live:
			if !ok {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				return fmt.Errorf("the queue's result stream ended with %d of %d results", got, n)
			}
			added, err := c.take(r)
			if err != nil {
				return err
			}
			if added {
				got++
			}
			if c.outage >= OutageStop && got < n {
				return c.stoppedByOutage()
			}
			if c.cfg.Budget != nil && got < n {
				if err := c.cfg.Budget.Check(); err != nil {
					return c.stopped(err)
				}
			}
		case err := <-pubErr:
			if err != nil && ctx.Err() == nil {
				return err
			}
			pubErr = nil
		case err := <-workErr:
			if err != nil {
				if c.cfg.Budget != nil && c.cfg.Budget.Check() != nil {
					return c.stopped(c.cfg.Budget.Check())
				}
				return fmt.Errorf("local worker: %w", err)
			}
			workErr = nil
		case <-tick.C:
			c.prog.redraw()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// take writes one result, unless its task has one or is not in this batch's file. Results of
// other workers are charged to the shared budget.
func (c *coordinator) take(r Result) (bool, error) {
	added, err := c.out.add(r)
	if err != nil || !added {
		return false, err
	}
	if b := c.cfg.Budget; b != nil && (c.cfg.Local == nil || r.Worker != c.cfg.Local.Name) {
		u := r.Usage
		b.Charge(llm.Spent{Calls: u.Calls, Tokens: u.Tokens, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Cost: u.Cost})
	}
	c.sum.Done++
	if r.Failed() {
		c.sum.Failed++
	}
	if r.Error != nil && r.Error.Unavailable {
		c.outage, c.last = c.outage+1, r.Error.Message
	} else {
		c.outage = 0
	}
	c.prog.result(r)
	if c.cfg.OnResult != nil {
		c.cfg.OnResult(r)
	}
	return true, nil
}

// drain writes the results that arrive after the workers stopped: until none has come for a
// quarter of a second (the local workers published theirs before they returned), at most the
// drain time.
func (c *coordinator) drain(live <-chan Result) {
	wait := c.cfg.Drain
	if wait <= 0 {
		wait = limits.BatchDrain
	}
	end := time.After(wait)
	const quiet = 250 * time.Millisecond
	idle := time.NewTimer(quiet)
	defer idle.Stop()
	for c.out.left() > 0 {
		select {
		case r, ok := <-live:
			if !ok {
				return
			}
			_, _ = c.take(r)
			idle.Reset(quiet)
		case <-idle.C:
			return
		case <-end:
			return
		}
	}
}

// stoppedByOutage is the error of a batch stopped because the model service failed the last
// OutageStop tasks.
func (c *coordinator) stoppedByOutage() error {
	rerun := c.cfg.Rerun
	if rerun == "" {
		rerun = "rerun the same command with --retry-failed to run them and the failed ones"
	}
	return fault.New(fault.Limit, "batch stopped: the model service failed the last %d tasks in a row (last: %s); %d of %d tasks are left (their jobs are withdrawn): once the service works, %s",
		OutageStop, c.last, c.out.left(), len(c.cfg.Tasks), rerun)
}

// stopped is the error of a batch the shared budget stopped.
func (c *coordinator) stopped(cause error) error {
	return fault.Wrap(fault.Limit, cause, fmt.Sprintf("batch stopped with %d of %d tasks left (their jobs are withdrawn); rerun the same command with a larger budget to run them", c.out.left(), len(c.cfg.Tasks)))
}
