package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
)

// Worker takes jobs from a queue and runs each with rlm.Ask, as rlm run would run it.
type Worker struct {
	Queue Queue
	// Base is every run's options (model, home, limits, confinement); a job sets the
	// question or script, the files, the language and its own limits.
	Base rlm.Options
	// Budget, when set, is shared by the runs (a batch's local workers).
	Budget *rlm.Budget
	// Parallel is how many jobs run at once (default 1).
	Parallel int
	// Name identifies this worker in results (default host:pid).
	Name string
	// MaxAttempts is limits.JobAttempts when 0.
	MaxAttempts int
	// Log, when set, gets one line per job started and finished.
	Log func(format string, args ...any)

	running atomic.Int64
}

// Running is how many jobs are running now.
func (w *Worker) Running() int { return int(w.running.Load()) }

// Work runs jobs until ctx is done, then hands back the unfinished ones and returns nil. It
// returns an error when the queue fails or a run is refused for a reason that would refuse
// every run here (EMERGENCY_STOP, no disk, another process's run in Home).
func (w *Worker) Work(ctx context.Context) error {
	if w.Name == "" {
		w.Name = workerName()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range max(w.Parallel, 1) {
		wg.Go(func() {
			if err := w.loop(ctx); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func (w *Worker) loop(ctx context.Context) error {
	for {
		if w.Budget != nil { // spent: take nothing, so that no job is handed back and forth
			if err := w.Budget.Check(); err != nil {
				return err
			}
		}
		d, err := w.Queue.Take(ctx)
		switch {
		case ctx.Err() != nil:
			if d != nil {
				_ = d.Release()
			}
			return nil
		case err != nil:
			return err
		}
		if err := w.handle(ctx, d); err != nil {
			return err
		}
	}
}

// handle runs one delivery to its end: a result, or the job handed back.
func (w *Worker) handle(ctx context.Context, d Delivery) error {
	j := d.Job()
	if limit := limits.Or(w.MaxAttempts, limits.JobAttempts); d.Attempt() > limit {
		r := Result{ID: j.ID, Status: "failed", Worker: w.Name, Attempt: d.Attempt(),
			Error: &Error{Kind: string(fault.Crashed), Message: fmt.Sprintf("the task was started %d times and no worker finished it (each died or was stopped mid-task); look for out-of-memory kills in the workers' logs", limit)}}
		return d.Finish(ctx, r)
	}
	w.running.Add(1)
	defer w.running.Add(-1)
	w.logf("%s: started (attempt %d)", j.ID, d.Attempt())
	stop := heartbeat(d)
	res, err := w.run(ctx, j, d.Attempt())
	stop()
	if ctx.Err() != nil && err == nil && res.ID != "" {
		ctx = context.WithoutCancel(ctx) // it finished as it was stopped: keep the result
	}
	if ctx.Err() != nil || w.budgetStopped(err) {
		w.logf("%s: stopped, handed back", j.ID)
		_ = d.Release() // if this fails, the ack wait hands it back
		if ctx.Err() != nil {
			return nil
		}
		return w.Budget.Check()
	}
	if res.ID == "" { // refused before it started, for a reason of this worker's
		_ = d.Release()
		return err
	}
	w.logf("%s: %s in %s", j.ID, res.Status, time.Duration(res.DurationMS)*time.Millisecond)
	return d.Finish(context.WithoutCancel(ctx), res)
}

// budgetStopped reports whether a run failed because the shared budget was spent: the job is
// then unfinished, for a later run with more budget, not failed.
func (w *Worker) budgetStopped(err error) bool {
	return err != nil && w.Budget != nil && w.Budget.Check() != nil
}

// heartbeat touches the delivery until stop is called.
func heartbeat(d Delivery) (stop func()) {
	t := time.NewTicker(d.Heartbeat())
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				_ = d.Touch()
			case <-done:
				return
			}
		}
	}()
	return func() { t.Stop(); close(done) }
}

// run fetches the job's inputs and runs it. A job the API refuses (a bad option) or whose
// input cannot be fetched is a failed result; a refusal by the guards returns a zero Result
// and the error.
func (w *Worker) run(ctx context.Context, j Job, attempt int) (Result, error) {
	started := time.Now()
	var notes []string
	fail := func(kind fault.Kind, err error) (Result, error) {
		return Result{ID: j.ID, Status: "failed", Error: &Error{Kind: string(kind), Message: err.Error()}, Notes: notes, Worker: w.Name, Attempt: attempt,
			Started: started.UTC().Format(time.RFC3339Nano), Finished: time.Now().UTC().Format(time.RFC3339Nano)}, nil
	}
	if err := j.check(); err != nil {
		return fail(fault.Schema, err)
	}
	opts, notes := w.options(j)
	for _, n := range notes {
		w.logf("%s: %s", j.ID, n)
	}
	for _, in := range j.Files {
		p, err := w.Queue.Fetch(ctx, in)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return fail(fault.Schema, fmt.Errorf("input %s (%s): %w", in.Name, in.Hash, err))
		}
		opts.Files = append(opts.Files, p)
	}
	res, err := rlm.Ask(ctx, opts)
	if res.TaskID == "" {
		var oe *rlm.OptionError
		if errors.As(err, &oe) {
			return fail(fault.Schema, err)
		}
		return Result{}, err
	}
	r := fromRLM(j.ID, res, w.Name, attempt)
	r.Notes = notes
	if r.Error != nil && errors.Is(err, llm.ErrUnavailable) {
		r.Error.Unavailable = true
	}
	return r, err
}

// options are the run's options: Base with the job's question or script, language (a
// script's: from its extension unless the job names one) and limits. A job's limit only lowers
// Base's (rlm run's default where Base has none): a job comes from a queue others may write to,
// and this worker's limits are its operator's. notes name each limit the job asked above the
// worker's, which the run keeps.
func (w *Worker) options(j Job) (o rlm.Options, notes []string) {
	o = w.Base
	o.Files, o.Budget = nil, w.Budget
	o.Question = j.Question
	if j.Script != nil {
		o.Script = rlm.Script{Name: j.Script.Name, Source: j.Script.Source}
		o.Lang = "" // from the script's extension, unless the job names one
	}
	if j.Lang != "" {
		o.Lang = j.Lang
	}
	l, def := j.Limits, config.Defaults()
	lower(&notes, "max_calls", "limits.max_calls", l.MaxCalls, &o.Model.MaxCalls, def.Limits.MaxCalls)
	lower(&notes, "max_tokens", "limits.max_tokens", l.MaxTokens, &o.Model.MaxTokens, def.Limits.MaxTokens)
	lower(&notes, "max_cost", "limits.max_cost", l.MaxCost, &o.Model.MaxCost, def.Limits.MaxCost) // 0: no dollar budget
	lower(&notes, "max_iterations", "limits.max_iterations", l.MaxIterations, &o.MaxIterations, def.Limits.MaxIterations)
	lower(&notes, "timeout", "defaults.timeout", time.Duration(l.Timeout), &o.Timeout, def.Timeout)
	lower(&notes, "cell_timeout", "limits.cell_timeout", time.Duration(l.CellTimeout), &o.CellTimeout, def.Limits.CellTimeout)
	return o, notes
}

// lower sets *have, the worker's limit (0: dflt; a dflt of 0 is no limit), to asked when the
// job asks for less; a job that asks for more keeps the worker's, and a note says so, naming the
// configuration key that sets it.
func lower[T int | float64 | time.Duration](notes *[]string, name, key string, asked T, have *T, dflt T) {
	limit := *have
	if limit <= 0 {
		limit = dflt
	}
	switch {
	case asked <= 0: // not asked: the worker's
	case limit > 0 && asked > limit:
		*have = limit
		*notes = append(*notes, fmt.Sprintf("limits.%s %v is above this worker's %v; the task ran with %v (a task's limits only lower its worker's: raise the worker's %s to allow more)", name, asked, limit, limit, key))
	default:
		*have = asked
	}
}

// check refuses a job that no checked task line makes: a worker takes jobs from a queue, not
// from a file it read itself.
func (j Job) check() error {
	if j.bad != nil {
		return fmt.Errorf("the job could not be read: %w", j.bad)
	}
	switch {
	case j.Question != "" && j.Script != nil:
		return errors.New("the job has both a question and a script; a task gives one")
	case j.Question == "" && j.Script == nil:
		return errors.New("the job has neither a question nor a script")
	case j.Script != nil && len(j.Script.Source) > maxScript():
		return fmt.Errorf("the job's script is %d bytes; a script may have at most %d (the validator's limit): put data in the task's files", len(j.Script.Source), maxScript())
	}
	return j.Limits.check()
}

// fromRLM is the result line of a run.
func fromRLM(id string, res rlm.Result, worker string, attempt int) Result {
	r := Result{ID: id, Status: string(res.Status), Answer: res.Answer, Output: res.Output, TaskID: res.TaskID,
		Isolation: res.Isolation, Trace: res.Trace, Workspace: res.Workspace, Worker: worker, Attempt: attempt,
		Started: res.Started.UTC().Format(time.RFC3339Nano), Finished: res.Started.Add(res.Duration).UTC().Format(time.RFC3339Nano),
		DurationMS: res.Duration.Milliseconds(),
		Usage:      res.Usage}
	if res.Error != nil {
		r.Error = &Error{Kind: string(res.Error.Kind), Message: res.Error.Message}
	}
	return r
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(format, args...)
	}
}

func workerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// localInput is a file as an in-process queue passes it: its path.
func localInput(path string) (Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Input{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Input{}, err
	}
	return Input{Name: filepath.Base(abs), Size: st.Size(), Path: abs}, nil
}
