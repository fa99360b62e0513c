package rlm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/convert/cache"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/internal/record"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/replay"
	"github.com/rlm-sandbox/rlm/redact"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// run is one Ask in progress: what it holds open.
type run struct {
	settings
	task    string
	started time.Time
	timeout time.Duration
	lock    *guard.Lock
	red     *redact.Redactor
	rec     *record.Records
	obs     *recorder
	prog    *reporter
	llmCfg  llm.Config
	client  *llm.Client // nil for a script run without a model
	replay  *replay.Server
	tools   *toolHost // serves Options.Tools; nil without them

	texts     []cache.Text           // the inputs converted to text (Options.Convert)
	converted []controller.Converted // the same, for the first message

	stopMark   func() bool   // stops the early FAILED mark of a cancelled run (context.AfterFunc)
	marked     chan struct{} // closed when that mark, once started, is written
	stopOnce   sync.Once
	wasStopped bool
}

func ask(ctx context.Context, opts Options) (Result, error) {
	s, err := resolve(opts)
	if err != nil {
		return Result{}, err
	}
	prog := newReporter(s)
	r, err := prepare(ctx, s, prog)
	if err != nil {
		var oe *OptionError
		if !errors.As(err, &oe) { // a usage error is the caller's to say: no progress line before it
			prog.line("failed (%s)", failLabel(err))
		}
		return Result{}, err
	}
	defer r.close()
	return r.execute(ctx)
}

// prepare checks the guards and opens the run's records, in an order that leaves nothing
// behind when a check refuses the run.
func prepare(ctx context.Context, s settings, prog *reporter) (_ *run, err error) {
	if ctx.Err() != nil {
		return nil, stopError(ctx) // cancelled before it started: nothing to record
	}
	if err := guard.CheckChain(s.Name, s.Chain, s.Depth, s.DepthCap); err != nil {
		return nil, err
	}
	if err := home.Ensure(s.Home); err != nil {
		return nil, err
	}
	r := &run{settings: s, prog: prog, task: audit.NewTaskID(time.Now()), timeout: s.Timeout}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if dl, ok := ctx.Deadline(); ok {
		r.timeout = min(r.timeout, time.Until(dl))
	}
	if err := guard.CheckDisk(s.Home, s.MinFreeMB); err != nil {
		return nil, err
	}
	if err := guard.EmergencyStop(s.Home); err != nil {
		return nil, err
	}
	if s.Budget != nil {
		if err := s.Budget.check(); err != nil {
			return nil, err
		}
	}
	r.llmCfg = s.Model
	if s.Replay != "" {
		if err := r.startReplay(); err != nil {
			return nil, err
		}
	}
	if r.lock, err = guard.LockRun(s.Home, r.task, guard.RunLock{Nested: s.Depth > 1, Model: s.Question != "", Max: s.MaxRuns}); err != nil {
		return nil, err
	}
	r.red = redact.New(r.llmCfg.Keys()...)
	if err := r.openRecords(); err != nil {
		return nil, err
	}
	r.marked = make(chan struct{})
	r.stopMark = context.AfterFunc(ctx, func() { r.markStopped(ctx) })
	return r, nil
}

// startReplay serves the scripted model of the reply file on loopback and points the client at
// it, keeping the budgets and the retry settings.
func (r *run) startReplay() error {
	srv, err := replay.Open(r.Replay)
	if err != nil {
		return &OptionError{"Replay", err}
	}
	r.replay = srv
	c := &r.llmCfg
	c.Provider, c.BaseURL, c.APIKey, c.Models, c.SubModels = "", r.replay.URL(), "", []string{"replay"}, nil
	c.Endpoints, c.DefaultEndpoint, c.Catalog = nil, "", nil
	return nil
}

func (r *run) openRecords() error {
	r.started = time.Now()
	spec := record.Spec{
		Home: r.Home, Started: r.started, NoLog: r.NoLog,
		Task: audit.Task{ID: r.task, Question: r.question, CtxFiles: r.Files, Lang: r.Lang, Model: r.rootModel()},
		Meta: trace.Metadata{
			RootModel: r.rootModel(), MaxDepth: r.MaxDepth, MaxIterations: limits.Or(r.MaxIterations, limits.MaxIterations),
			Backend: "openai", BackendKwargs: map[string]any{"base_url": r.llmCfg.BaseURL, "models": r.llmCfg.Models}, Lang: r.Lang,
		},
	}
	var err error
	r.rec, err = record.Open(spec, r.red)
	if err != nil {
		r.rec = nil
		return err
	}
	r.obs = &recorder{r: r, rec: r.rec, prog: r.prog}
	r.prog.task, r.prog.usage = r.task, r.obs.usage
	return nil
}

// rootModel is the model of the run's root calls, for its records ("" without a model).
func (r *run) rootModel() string {
	if len(r.llmCfg.Models) == 0 {
		return ""
	}
	return r.llmCfg.Models[0]
}

// markStopped marks the task ABORTED as soon as the caller cancels the run, so that a process
// that exits before the run has wound down (a second SIGINT) leaves a true record.
func (r *run) markStopped(ctx context.Context) {
	defer close(r.marked)
	wctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := stopError(ctx)
	_ = r.rec.DB.FinishTask(wctx, r.task, auditStatus(Failed, err), "", err)
}

// stopped stops the early mark; it reports whether the mark was made (or is being made), in
// which case the caller cancelled the run.
func (r *run) stopped() bool {
	r.stopOnce.Do(func() {
		if r.stopMark != nil && !r.stopMark() {
			<-r.marked
			r.wasStopped = true
		}
	})
	return r.wasStopped
}

// stopError is the error of a run its caller stopped: the cause itself when it carries a kind,
// else a canceled error (a timeout for a passed deadline) that wraps it.
func stopError(ctx context.Context) error {
	cause := context.Cause(ctx)
	switch {
	case fault.KindOf(cause) != "":
		return cause
	case errors.Is(cause, context.DeadlineExceeded):
		return fault.Wrap(fault.Timeout, cause, "the run's context passed its deadline")
	}
	return fault.Wrap(fault.Canceled, cause, "the run was stopped by its caller")
}

// auditStatus is the audit trail's status of a run that ended with status and err: a run its
// caller stopped (kind canceled) is ABORTED.
func auditStatus(status Status, err error) audit.Status {
	switch {
	case fault.Classify(err) == fault.Canceled:
		return audit.Aborted
	case status == Failed:
		return audit.Failed
	}
	return audit.Answered
}

func (r *run) close() {
	r.stopped()
	if r.rec != nil {
		r.rec.Close()
	}
	r.lock.Release()
	r.closeTexts()
	if r.replay != nil {
		r.replay.Close()
	}
	r.tools.Close()
}

// execute runs the loop or the script and records the outcome.
func (r *run) execute(ctx context.Context) (Result, error) {
	r.prog.say(EventStarted, "starting (task %s)", r.task)
	r.rec.Log.Info("task started", "task", r.task, "question", r.question, "ctx", r.Files, "models", r.llmCfg.Models, "depth", r.Depth)
	rctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.convertInputs(rctx); err != nil {
		return r.finish(ctx, outcome{err: err})
	}
	cfg, err := r.controllerConfig()
	if err != nil {
		return r.finish(ctx, outcome{err: err})
	}
	var o outcome
	if r.Question != "" {
		out := controller.Run(rctx, cfg)
		o = outcome{answer: out.Answer, final: out.Err == nil, err: out.Err, iterations: out.Iterations, subCalls: out.SubCalls, isolation: out.Isolation.Verdict}
	} else {
		o = r.script(rctx, cfg)
	}
	return r.finish(ctx, o)
}

// script runs the script as one cell.
func (r *run) script(ctx context.Context, cfg controller.Config) outcome {
	so := controller.RunScript(ctx, cfg, r.Script.Name, r.Script.Source)
	o := outcome{output: so.Stdout, err: so.Err, iterations: 1, subCalls: so.SubCalls, isolation: so.Isolation.Verdict, script: true}
	if so.Final != nil {
		o.answer, o.final = *so.Final, true
	}
	return o
}

// outcome is what the loop or the script produced.
type outcome struct {
	answer, output       string
	final                bool // the code recorded answer with FINAL
	err                  error
	iterations, subCalls int
	isolation            string
	script               bool
}

// controllerConfig creates the default workspace and the model client (none for a script run
// without a model), and returns the controller's configuration.
func (r *run) controllerConfig() (controller.Config, error) {
	if r.ws.Dir == "" {
		var err error
		if r.ws, err = newWorkspace(r.Home); err != nil {
			return controller.Config{}, err
		}
	}
	cfg := controller.Config{
		Question: r.Question, Mode: r.Mode, Timeout: r.timeout, Observer: r.obs, Converted: r.converted,
		Session: repl.Options{Lang: r.Lang, Contexts: r.files, Roots: r.Roots, Workspace: r.ws.Dir, Home: r.Home, CellTimeout: r.CellTimeout,
			Limits: r.Limits, Quota: r.Quota, WorkerMemory: r.WorkerMemory, NoValidate: r.NoValidate, AllowDegraded: r.AllowDegraded,
			Indexes: indexCache(r.Home, func(err error) {
				r.rec.Log.Warn(err.Error(), "task", r.task)
				r.prog.line("warning: %v", err)
			})},
		MaxIterations: r.MaxIterations, MaxSubCalls: r.Limits.SubCalls, MaxBatches: r.Limits.Batches, BatchWidth: r.Limits.BatchWidth,
		MaxBlocks: r.MaxBlocks, FeedbackChars: r.FeedbackChars,
	}
	if r.settings.tools.api != nil {
		r.tools = newToolHost(r.settings.tools, r.files, r.Roots, r.ws.Dir, r.Home)
		cfg.Session.API, cfg.Session.Host = r.settings.tools.api, r.tools
	}
	if len(r.llmCfg.Models) == 0 {
		return cfg, nil // a script run without a model: llm_query says how to configure one
	}
	if err := r.newClient(); err != nil {
		return controller.Config{}, err
	}
	cfg.Model = guard.Model{Home: r.Home, Next: r.client, Check: r.modelCheck}
	if r.MaxDepth > r.Depth {
		query := r.subRunner().Query
		cfg.SubQuery = func(ctx context.Context, prompt, model string) (string, error) {
			if err := r.lock.Claim(); err != nil { // a script's sub-run calls a model too
				return "", err
			}
			return query(ctx, prompt, model)
		}
	}
	return cfg, nil
}

// modelCheck runs before every model call: a script takes its room among the home's model runs
// at its first call (guard.Lock.Claim), and a shared budget must have something left.
func (r *run) modelCheck() error {
	if err := r.lock.Claim(); err != nil {
		return err
	}
	if r.Budget != nil {
		return r.Budget.check()
	}
	return nil
}

// newClient builds the model client, within what is left of a shared budget.
func (r *run) newClient() error {
	lc := r.llmCfg
	lc.Deadline = r.started.Add(r.timeout)
	user := lc
	lc.Observer = func(c llm.Call) {
		r.obs.apiCall(c)
		if user.Observer != nil {
			user.Observer(c)
		}
	}
	lc.Notify = func(msg string) {
		r.rec.Log.Warn(msg, "task", r.task)
		r.prog.notice(msg)
		if user.Notify != nil {
			user.Notify(msg)
		}
	}
	lc.Log, lc.Redactor = r.rec.Log.Logger, r.red
	client, err := llm.New(lc)
	if err == nil && r.Budget != nil && r.Budget.fit(&lc, client.Budget()) {
		client, err = llm.New(lc)
	}
	if err != nil {
		return &OptionError{"Model", err}
	}
	r.llmCfg.MaxCalls, r.llmCfg.MaxTokens, r.llmCfg.MaxCost = lc.MaxCalls, lc.MaxTokens, lc.MaxCost
	r.client = client
	return nil
}

// finish records the outcome everywhere and returns the Result and the run's error.
func (r *run) finish(ctx context.Context, o outcome) (Result, error) {
	if r.stopped() || ctx.Err() != nil {
		o.err = stopError(ctx)
	}
	status := Answered
	switch {
	case o.err != nil:
		status = Failed
	case !o.final:
		status = Completed
	}
	r.record(status, o)
	res := r.result(status, o)
	if res.Workspace != "" {
		r.rec.Log.Warn("the code wrote files to "+res.Workspace, "task", r.task)
	}
	var msg string
	switch {
	case o.err != nil:
		msg = fmt.Sprintf("failed (%s)", failLabel(o.err))
	case o.script:
		msg = fmt.Sprintf("completed in %s: %s", time.Since(r.started).Round(time.Millisecond), counted(o.subCalls, "sub-call"))
	default:
		msg = fmt.Sprintf("completed in %s: %s, %s", time.Since(r.started).Round(time.Millisecond), counted(o.iterations, "iteration"), counted(o.subCalls, "sub-call"))
	}
	if r.client != nil {
		sp := r.client.Spent()
		msg += fmt.Sprintf("; %s, %s, cost %s", counted(sp.Calls, "API call"), counted(sp.Tokens, "token"), sp.Cost)
	}
	r.prog.line("%s", msg)
	r.prog.emit(Event{Kind: EventFinished, Message: msg, Result: &res})
	return res, o.err
}

// result is the Result of the finished run.
func (r *run) result(status Status, o outcome) Result {
	sp := r.client.Spent()
	res := Result{Status: status, Output: o.output, Error: failureOf(o.err), TaskID: r.task, Trace: r.rec.TracePath,
		Isolation: o.isolation, Workspace: r.ws.Finish(), Started: r.started, Duration: time.Since(r.started),
		Usage: usageOf(sp, o.iterations, o.subCalls)}
	if o.final {
		res.Answer = o.answer
	}
	return res
}

// record writes the final spent figures, the task's status and the trace's last line.
func (r *run) record(status Status, o outcome) {
	bg := context.Background()
	sp := r.client.Spent()
	obs := r.obs
	obs.warn(r.rec.DB.RecordSpent(bg, r.task, record.Spent(sp)))
	st, answer := auditStatus(status, o.err), o.answer
	switch {
	case status == Failed:
		answer = ""
	case status == Completed:
		answer = o.output // a script's answer is its FINAL value, else its output
	}
	if err := r.rec.DB.FinishTask(bg, r.task, st, answer, o.err); !errors.Is(err, audit.ErrNotRunning) {
		obs.warn(err) // not running: the early mark of a stopped run, already ABORTED
	}
	obs.mu.Lock()
	used := obs.used
	obs.mu.Unlock()
	out := trace.Outcome{Status: string(st), Answer: answer, Usage: used, Tokens: sp.Tokens, Calls: sp.Calls, WallTime: time.Since(r.started)}
	if r.client != nil {
		out.Cost = &trace.Cost{USD: sp.Cost.USD, Unknown: sp.Cost.Unknown}
	}
	if o.err != nil {
		out.ErrKind, out.ErrMsg = fault.Classify(o.err), o.err.Error()
	}
	obs.warn(r.rec.Trace.Finish(out))
	level := slog.LevelInfo
	if o.err != nil {
		level = slog.LevelError
	}
	r.rec.Log.Log(bg, level, "task finished", "task", r.task, "status", st, "calls", sp.Calls, "tokens", sp.Tokens, "cost", sp.Cost.String(), "err", o.err)
}

// workDir is where a run keeps files of its own, such as its sub-runs' prompts.
func (r *run) workDir() string { return home.TaskWork(r.Home, r.task) }

// failureOf flattens err (nil for nil).
func failureOf(err error) *Failure {
	if err == nil {
		return nil
	}
	f := &Failure{Kind: fault.Classify(err), Message: err.Error()}
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Pos.IsValid() {
		f.Pos = fe.Pos.String()
	}
	return f
}

// failLabel names a failure for the progress line by its kind ("usage" for an option that
// cannot be used); the message itself is the caller's to print.
func failLabel(err error) string {
	var oe *OptionError
	if errors.As(err, &oe) {
		return "usage"
	}
	return string(fault.Classify(err))
}
