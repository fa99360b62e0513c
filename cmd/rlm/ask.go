package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/replay"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/termsafe"
)

// askFlags are the flags of `rlm run QUESTION`, the root-model loop.
type askFlags struct {
	name     string
	maxDepth int
	quiet    bool
	verbose  bool
	noLog    bool
	forceRLM bool
	dense    bool
	direct   bool
	replay   string
}

func (f *askFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.name, "name", "rlm", "the agent's name, in progress lines and the call chain of recursive runs")
	fl.IntVar(&f.maxDepth, "max-depth", limits.MaxDepth, "recursion depth: 1 = root and sub-calls; above 1, llm_query runs a child rlm (capped by SFA_MAX_DEPTH, default 5)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress lines on stderr (the line naming the configuration files read stays: it says\nwhich files chose the models and backends, so where the keys go)")
	fl.BoolVar(&f.verbose, "verbose", false, "also print each cell's code and output on stderr")
	fl.BoolVar(&f.noLog, "no-log", false, "write no log file (also SFA_NO_LOG=1); the audit trail and the trace are still written")
	fl.BoolVar(&f.forceRLM, "rlm", false, "use the REPL loop even for an input under 50,000 characters (adds overhead)")
	fl.BoolVar(&f.dense, "dense", false, "use the REPL loop: the question needs every part of the input")
	fl.BoolVar(&f.direct, "direct", false, "answer with one model call, the context in the prompt")
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

// signalled is the error of a run stopped by SIGINT or SIGTERM; it exits 128+signal. task, when
// set, is the run's task.
type signalled struct {
	sig  syscall.Signal
	task string
}

// signalNames says where each signal that stops a run comes from.
var signalNames = map[syscall.Signal]string{
	syscall.SIGINT:  "SIGINT (Ctrl-C)",
	syscall.SIGTERM: "SIGTERM (rlm abort, kill or a shutdown)",
}

func (s signalled) Error() string {
	name, ok := signalNames[s.sig]
	if !ok {
		name = s.sig.String()
	}
	if s.task == "" {
		return "stopped by " + name
	}
	return fmt.Sprintf("stopped by %s; task %s is marked ABORTED (rlm trace summary %[2]s)", name, s.task)
}

// withSignals cancels ctx on the first SIGINT or SIGTERM, with a canceled error wrapping
// signalled as the cause (which rlm.Ask records as the run's error). A second signal runs last (quick,
// bounded cleanup) and exits at once: the worker and the sub-runs die with this process
// (Pdeathsig).
func withSignals(ctx context.Context, last func(signalled)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(fault.Wrap(fault.Canceled, signalled{sig: s.(syscall.Signal)}, ""))
		case <-done:
			return
		}
		select {
		case s := <-ch:
			sig := signalled{sig: s.(syscall.Signal)}
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
func (f *runFlags) check(stderr io.Writer) error {
	if err := f.ask.check(); err != nil {
		return err
	}
	// The line naming the configuration files read stays under --quiet: it says which files
	// chose the models and backends, so where the keys go (project_trust.txtar).
	if err := f.sessionFlags.check(stderr); err != nil {
		return err
	}
	_, err := existingFiles(f.ctxFiles, f.conf)
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
	_, err := f.mode()
	return err
}

// runQuestion is `rlm run QUESTION`: flags, environment and config files into rlm.Options,
// then rlm.Ask, then the answer on stdout.
func runQuestion(ctx context.Context, stdout, stderr io.Writer, f runFlags, question string) error {
	if err := f.check(stderr); err != nil {
		return err
	}
	if err := f.replayLang(); err != nil {
		return err
	}
	if _, err := source.ParseLang(runLang(f)); err != nil {
		return usageError{err}
	}
	opts, err := f.runOptions(stderr, true)
	if err != nil {
		return err
	}
	opts.Question = question
	res, ctx, err := askWithSignals(ctx, opts)
	if res.TaskID == "" {
		return usageOf(err)
	}
	f.noteWorkspace(stderr, res)
	if f.asJSON {
		if perr := printJSON(stdout, jsonResult(res, false)); perr != nil {
			return perr
		}
		return exitFor(exitErr(ctx, err, res.TaskID))
	}
	if err == nil {
		fmt.Fprintln(answerWriter(stdout, f.raw), res.Answer)
	}
	return exitErr(ctx, err, res.TaskID)
}

// runOptions turns the flags, the environment (SFA_*, RLM_*) and the config files into the
// run's options. needModel is false for a script: with no model configured, it runs and its
// llm_query calls fail.
func (f *runFlags) runOptions(stderr io.Writer, needModel bool) (rlm.Options, error) {
	opts, err := f.resolve(needModel)
	if err != nil {
		return opts, err
	}
	opts.Progress, opts.Quiet, opts.Verbose = stderr, f.ask.quiet, f.ask.verbose
	if isTerminal(os.Stderr) { // as batch's bar: stderr is os.Stderr, behind termsafe's writer
		opts.Status = termsafe.Raw(stderr)
	}
	if !f.ask.quiet {
		f.warnDegraded(stderr)
	}
	return opts, nil
}

func (f *runFlags) resolve(needModel bool) (rlm.Options, error) {
	chain, depth, err := chainFromEnv()
	if err != nil {
		return rlm.Options{}, err
	}
	mode, err := f.ask.mode()
	if err != nil {
		return rlm.Options{}, err
	}
	opts := rlm.Options{
		Files: f.ctxFiles, Lang: runLang(*f), Mode: mode, Home: rlmHome(), Workspace: f.out, Roots: f.roots,
		Replay: f.ask.replay, MinFreeMB: minFreeMB(),
		Name: f.ask.name, MaxDepth: f.ask.maxDepth, Chain: chain, Depth: depth, DepthCap: maxDepthCap(),
		AllowDegraded: f.allowDegraded, NoValidate: f.noValidate, NoLog: f.ask.noLog || os.Getenv(envNoLog) == "1",
	}
	err = opts.Configure(f.conf)
	switch {
	case f.ask.replay != "":
		return opts, nil // --replay brings its own model; the configuration's budgets stand
	case err != nil:
		return opts, usageError{err}
	case needModel && len(opts.Model.Models) == 0:
		return opts, usageError{config.ErrNoModel}
	}
	return opts, retryBackoff(&opts.Model)
}

// retryBackoff sets the first retry's backoff from RLM_RETRY_BACKOFF, when it is set.
func retryBackoff(m *llm.Config) error {
	if s := os.Getenv(envRetryBackoff); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return usagef("%s=%q: want a positive duration such as 1s", envRetryBackoff, s)
		}
		m.MinBackoff = d
	}
	return nil
}

// runLang is the session language of a run: --lang, else Go.
// replayLang takes the language from a --replay file that names one ({"lang": "js", …}) when
// --lang is not given, and refuses a --lang that differs from it: replies in one language run
// in the other only to fail.
func (f *runFlags) replayLang() error {
	if f.ask.replay == "" {
		return nil
	}
	lang, err := replay.Lang(f.ask.replay)
	switch {
	case err != nil || lang == "":
		return nil // Ask reports an unreadable file, with its line
	case f.lang == "":
		f.lang = lang
	case f.lang != lang:
		return usagef("--lang %s, but the replay file %s is written for %s: drop --lang, or pass --lang %s", f.lang, f.ask.replay, lang, lang)
	}
	return nil
}

func runLang(f runFlags) string {
	if f.lang != "" {
		return f.lang
	}
	return "go"
}

// askWithSignals runs rlm.Ask under withSignals: the first SIGINT or SIGTERM cancels the run (it
// is marked FAILED at once and wound down), a second exits at once, removing the run's PID file.
// It returns the context, whose cause decides the exit status.
func askWithSignals(ctx context.Context, opts rlm.Options) (rlm.Result, context.Context, error) {
	var task atomic.Value
	opts.OnEvent = func(e rlm.Event) {
		if e.Kind == rlm.EventStarted {
			task.Store(e.Task)
		}
	}
	ctx, stop := withSignals(ctx, func(signalled) {
		if t, ok := task.Load().(string); ok {
			os.Remove(home.PIDFile(opts.Home, t))
		}
	})
	defer stop()
	res, err := rlm.Ask(ctx, opts)
	return res, ctx, err
}

// usageOf is the error of a run that did not start: an option the API refused is a usage error,
// named as the flag that set it.
func usageOf(err error) error {
	var oe *rlm.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	switch oe.Option {
	case "Replay":
		return usagef("--replay: %v", oe.Err)
	}
	return usageError{err}
}

// noteWorkspace names on stderr the default workspace the code wrote to, unless --json (which
// carries it) or --quiet.
func (f *runFlags) noteWorkspace(stderr io.Writer, res rlm.Result) {
	if res.Workspace != "" && !f.asJSON && !f.ask.quiet {
		fmt.Fprintf(stderr, "[agent:%s] the code wrote files to %s\n", f.ask.name, res.Workspace)
	}
}

// jsonResult is --json's object, for a question run and a script run alike: its status, task
// id, trace and usage (rlm.Usage: the usage object of the README's "Usage and cost in JSON"),
// the answer (a script: when it recorded one, with its printed output) or the error.
func jsonResult(res rlm.Result, script bool) map[string]any {
	obj := map[string]any{
		"status": string(res.Status), "task_id": res.TaskID, "isolation": res.Isolation, "trace": res.Trace,
		"usage": res.Usage,
	}
	switch {
	case script:
		obj["output"] = res.Output
		if res.Status == rlm.Answered || res.Answer != "" {
			obj["answer"] = res.Answer
		}
	case res.Error == nil:
		obj["answer"] = res.Answer
	}
	if res.Error != nil {
		obj["error"] = map[string]string{"kind": string(res.Error.Kind), "message": res.Error.Message}
	}
	if res.Workspace != "" {
		obj["workspace"] = res.Workspace
	}
	return obj
}

// answerWriter is where the answer goes: escaped for a terminal (the termsafe.Writer under out),
// or as it is with --raw.
func answerWriter(out io.Writer, raw bool) io.Writer {
	if raw {
		return termsafe.Raw(out)
	}
	return out
}

// envRetryBackoff sets the first retry's backoff (default 1 s; it doubles up to 30 s).
const envRetryBackoff = "RLM_RETRY_BACKOFF"

// exitErr is the error that decides a finished run's exit status; a run stopped by a signal
// names its task.
func exitErr(ctx context.Context, err error, task string) error {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		s.task = task
		return s
	}
	return err
}

func signalOf(ctx context.Context) (signalled, bool) {
	var s signalled
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}
