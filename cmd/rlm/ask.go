package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/logfile"
	"github.com/rlm-sandbox/rlm/redact"
	"github.com/rlm-sandbox/rlm/trace"
	"github.com/rlm-sandbox/rlm/validator"
)

// askFlags are the flags of `rlm run QUESTION`, the root-model loop.
type askFlags struct {
	name          string
	maxDepth      int
	quiet         bool
	verbose       bool
	noLog         bool
	forceRLM      bool
	dense         bool
	direct        bool
	model         string
	maxIterations int
	maxSubCalls   int
	maxBatches    int
	maxCalls      int
	maxTokens     int
	replay        string
}

func (f *askFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.name, "name", "rlm", "the agent's name, in progress lines and the call chain of recursive runs")
	fl.IntVar(&f.maxDepth, "max-depth", 1, "recursion depth: 1 = root and sub-calls; above 1, llm_query runs a child rlm (capped by SFA_MAX_DEPTH, default 5)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fl.BoolVar(&f.verbose, "verbose", false, "also print each cell's code and output on stderr")
	fl.BoolVar(&f.noLog, "no-log", false, "write no log file (also SFA_NO_LOG=1); the audit trail and the trace are still written")
	fl.BoolVar(&f.forceRLM, "rlm", false, "use the REPL loop even for an input under 50,000 characters (adds overhead)")
	fl.BoolVar(&f.dense, "dense", false, "use the REPL loop: the question needs every part of the input")
	fl.BoolVar(&f.direct, "direct", false, "answer with one model call, the context in the prompt")
	fl.StringVar(&f.model, "model", "", "the root model (default: RLM_MODEL, then defaults.model in rlm.toml); a comma-separated list is the escalation ladder")
	fl.IntVar(&f.maxIterations, "max-iterations", controller.DefaultMaxIterations, "root iterations before the forced final answer")
	fl.IntVar(&f.maxSubCalls, "max-subcalls", controller.DefaultMaxSubCalls, "sub-calls (llm_query, batched slots included) per run")
	fl.IntVar(&f.maxBatches, "max-batches", controller.DefaultMaxBatches, "llm_query_batched calls per run")
	fl.IntVar(&f.maxCalls, "max-calls", 80, "model API calls per task (root and sub-calls, retries included)")
	fl.IntVar(&f.maxTokens, "max-tokens", 200_000, "tokens per task (prompt + completion)")
	fl.StringVar(&f.replay, "replay", "", "answer with a scripted model from `FILE` (JSON replies, see examples/demo/model.json),\nserved over loopback HTTP: demos and tests without a model or network")
}

func (f *askFlags) mode() (controller.Mode, error) {
	switch {
	case f.direct && (f.forceRLM || f.dense):
		return 0, usagef("--direct cannot be combined with --rlm or --dense")
	case f.direct:
		return controller.Direct, nil
	case f.forceRLM || f.dense:
		return controller.Loop, nil
	}
	return controller.Auto, nil
}

// signalled is the error of a run stopped by SIGINT or SIGTERM; it exits 128+signal.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return "stopped by " + s.sig.String() }

// withSignals cancels ctx, with signalled as the cause, on the first SIGINT or SIGTERM. A second
// signal runs last (quick, bounded cleanup) and exits at once: the worker and the sub-runs die
// with this process (Pdeathsig).
func withSignals(ctx context.Context, last func(signalled)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(signalled{s.(syscall.Signal)})
		case <-done:
			return
		}
		select {
		case s := <-ch:
			sig := signalled{s.(syscall.Signal)}
			last(sig)
			os.Exit(exitCode(sig))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// check refuses bad flags and inputs before anything is created or recorded.
func (f *runFlags) check() error {
	if err := f.ask.check(); err != nil {
		return err
	}
	if err := f.sessionFlags.check(); err != nil {
		return err
	}
	if _, err := positive("--timeout", f.timeout); err != nil {
		return err
	}
	_, err := existingFiles(f.ctxFiles)
	return err
}

// check refuses bad flag combinations of the root-model loop.
func (f *askFlags) check() error {
	if f.name == "" || strings.ContainsAny(f.name, chainSep+" \t\n") {
		return usagef("--name %q: want a non-empty name without commas or spaces", f.name)
	}
	if f.maxDepth < 1 || f.maxDepth > maxDepthCap() {
		return usagef("--max-depth %d: want 1..%d (SFA_MAX_DEPTH)", f.maxDepth, maxDepthCap())
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"--max-iterations", f.maxIterations}, {"--max-subcalls", f.maxSubCalls}, {"--max-batches", f.maxBatches}, {"--max-calls", f.maxCalls}, {"--max-tokens", f.maxTokens}} {
		if l.v < 1 {
			return usagef("%s must be at least 1, got %d", l.name, l.v)
		}
	}
	_, err := f.mode()
	return err
}

// runQuestion is `rlm run QUESTION`: guardrails, records, the model client, the loop.
func runQuestion(ctx context.Context, stdout, stderr io.Writer, f runFlags, question string, timeoutSet bool) error {
	prog := &progress{w: stderr, name: f.ask.name, quiet: f.ask.quiet, verbose: f.ask.verbose}
	if err := f.check(); err != nil {
		return err
	}
	if _, err := validator.ParseLang(runLang(f)); err != nil {
		return usageError{err}
	}
	return runTask(ctx, f, question, timeoutSet, true, prog, func(ctx context.Context, st *runState, rec *recorder, cfg controller.Config) error {
		out := controller.Run(ctx, cfg)
		return st.finish(ctx, stdout, rec, f, out)
	})
}

// runTask is what a question run and a script run share: the call chain, signals, the
// guardrails and records (prepareRun), the run's timeout and the controller's configuration;
// work does the rest. needModel is false for a script: with no model configured, it runs and
// its llm_query calls fail.
func runTask(ctx context.Context, f runFlags, question string, timeoutSet, needModel bool, prog *progress,
	work func(ctx context.Context, st *runState, rec *recorder, cfg controller.Config) error) error {
	chain, err := chainFromEnv(f.ask.name)
	if err != nil {
		prog.line("failed (%s)", failLabel(err))
		return err
	}
	var current atomic.Pointer[runState]
	ctx, stop := withSignals(ctx, func(s signalled) {
		if st := current.Load(); st != nil {
			st.abandon(s)
		}
	})
	defer stop()
	st, err := prepareRun(f, question, chain, timeoutSet, needModel)
	if err != nil {
		prog.line("failed (%s)", failLabel(err))
		return err
	}
	current.Store(st)
	defer st.close()
	prog.line("starting (task %s)", st.task)
	st.log.Info("task started", "task", st.task, "question", question, "ctx", f.ctxFiles, "models", st.llmCfg.Models, "depth", chain.depth)
	ctx, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	rec := newRecorder(st, prog)
	cfg, err := st.controllerConfig(f, question, chain, rec)
	if err != nil {
		return st.fail(rec, err)
	}
	return work(ctx, st, rec, cfg)
}

// runState is what one run holds open: its lock, records and model client.
type runState struct {
	home, task string
	started    time.Time
	timeout    time.Duration
	lock       *pidLock
	red        *redact.Redactor
	db         *audit.DB
	tools      *toolWriter // tool-call rows, written off the cells' critical path
	log        *logfile.Logger
	trace      *trace.Writer
	tracePath  string
	prompts    *trace.PromptStore
	llmCfg     llm.Config
	client     *llm.Client
	noValidate bool
	replay     *llmtest.Server
	ws         workspaceDir // the session's workspace; a default one left empty is removed at the end
}

// startReplay serves a scripted model on loopback and points the client at it.
func (st *runState) startReplay(path string) error {
	sc, err := llmtest.Load(path)
	if err != nil {
		return usagef("--replay: %v", err)
	}
	st.replay = llmtest.New()
	if err := st.replay.Push(sc...); err != nil {
		st.replay.Close()
		return usagef("--replay: %v", err)
	}
	st.llmCfg = llm.Config{BaseURL: st.replay.URL(), Models: []string{"replay"}}
	return nil
}

// workDir is where a run keeps files of its own, such as its sub-runs' prompts.
func (st *runState) workDir() string { return filepath.Join(st.home, "work", st.task) }

// prepareRun checks the guardrails and opens the run's records, in an order that leaves
// nothing behind when a check refuses the run.
func prepareRun(f runFlags, question string, chain callChain, timeoutSet, needModel bool) (_ *runState, err error) {
	home, err := ensureHome()
	if err != nil {
		return nil, err
	}
	st := &runState{home: home, task: audit.NewTaskID(time.Now())}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	fc, err := loadConfig(home)
	if err != nil {
		return nil, err
	}
	if st.timeout, err = runTimeout(f.timeout, timeoutSet, fc, defaultRunTimeout); err != nil {
		return nil, err
	}
	if err := checkDiskSpace(home); err != nil {
		return nil, err
	}
	if err := emergencyStop(home); err != nil {
		return nil, err
	}
	switch {
	case f.ask.replay != "":
		err = st.startReplay(f.ask.replay)
	case needModel || modelConfigured(f.ask.model, fc):
		st.llmCfg, err = modelConfig(f.ask.model, fc)
	}
	if err != nil {
		return nil, err
	}
	st.llmCfg.MaxCalls, st.llmCfg.MaxTokens = f.ask.maxCalls, f.ask.maxTokens
	if st.lock, err = lockRun(home, st.task, chain); err != nil {
		return nil, err
	}
	st.red = redact.New(st.llmCfg.APIKey)
	if err := st.openRecords(f, question); err != nil {
		return nil, err
	}
	return st, nil
}

const defaultRunTimeout = 90 * time.Minute

// modelConfigured reports whether a model is named anywhere: --model, RLM_MODEL or the config.
func modelConfigured(flagModel string, fc fileConfig) bool {
	return flagModel != "" || strings.TrimSpace(os.Getenv("RLM_MODEL")) != "" || fc.Defaults.Model != ""
}

// modelConfig reads the backend from the environment; --model beats RLM_MODEL beats the config.
func modelConfig(flagModel string, fc fileConfig) (llm.Config, error) {
	cfg, err := llm.FromEnv()
	switch {
	case flagModel != "":
		cfg.Models, err = splitModels(flagModel), nil
	case err != nil && fc.Defaults.Model != "":
		cfg.Models, err = splitModels(fc.Defaults.Model), nil
	}
	if err != nil {
		return cfg, usagef("%v; or pass --model, or set defaults.model in rlm.toml", err)
	}
	if s := os.Getenv(envRetryBackoff); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return cfg, usagef("%s=%q: want a positive duration such as 1s", envRetryBackoff, s)
		}
		cfg.MinBackoff = d
	}
	return cfg, nil
}

// envRetryBackoff sets the first retry's backoff (default 1 s; it doubles up to 30 s).
const envRetryBackoff = "RLM_RETRY_BACKOFF"

func splitModels(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// stopModel checks RLM_HOME/EMERGENCY_STOP before every model call.
type stopModel struct {
	home string
	next controller.Model
}

func (m stopModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := emergencyStop(m.home); err != nil {
		return llm.Response{}, err
	}
	return m.next.Complete(ctx, req)
}

// Budget is the next model's budgets (an *llm.Client's), for the system prompt; zero if it has none.
func (m stopModel) Budget() llm.Budget {
	if b, ok := m.next.(interface{ Budget() llm.Budget }); ok {
		return b.Budget()
	}
	return llm.Budget{}
}

// exitErr is the error that decides a finished run's exit status.
func exitErr(ctx context.Context, err error) error {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return err
}
