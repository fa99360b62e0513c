package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/termsafe"
)

// queueFlags say how to reach a NATS server: the flags of rlm batch --queue and rlm worker.
type queueFlags struct {
	url, creds, ca, cert, key string
	insecure                  bool
}

func (f *queueFlags) register(fl *pflag.FlagSet, what string) {
	fl.StringVar(&f.url, "queue", "", what)
	fl.StringVar(&f.creds, "creds", "", "a NATS credentials `FILE` (JWT and NKey seed) for the queue")
	fl.StringVar(&f.ca, "tls-ca", "", "the CA `FILE` (PEM) that signed the queue server's certificate")
	fl.StringVar(&f.cert, "tls-cert", "", "this client's certificate `FILE` (PEM), for mutual TLS")
	fl.StringVar(&f.key, "tls-key", "", "this client's key `FILE` (PEM), for mutual TLS")
	fl.BoolVar(&f.insecure, "insecure", false, "allow a queue server off this machine without TLS or credentials")
}

func (f *queueFlags) dial(name string) batch.Dial {
	return batch.Dial{URL: f.url, Creds: f.creds, CA: f.ca, Cert: f.cert, Key: f.key, Insecure: f.insecure, Name: name}
}

// workerFlags are the flags of every command that runs tasks: rlm batch's local workers and
// rlm worker.
type workerFlags struct {
	parallel      int
	allowDegraded bool
	noLog         bool
	cf            configFlags // rlm run's configuration flags: --model, --timeout, --cell-timeout, …
}

func (f *workerFlags) register(fl *pflag.FlagSet, configFlags ...string) {
	fl.IntVar(&f.parallel, "parallel", defaultParallel(), "tasks run at once in this process")
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, "run even when confinement is below the minimum")
	fl.BoolVar(&f.noLog, "no-log", false, "write no log file; the audit trail and the traces are still written")
	f.cf.register(fl, configFlags...)
}

// defaultParallel is half the cores, at least one: each task has a worker process of its own.
func defaultParallel() int { return max(runtime.NumCPU()/2, 1) }

// configFlagsBut names the configuration flags but those given.
func configFlagsBut(skip ...string) []string {
	var names []string
	for _, f := range config.Flags() {
		if !slices.Contains(skip, f.Name) {
			names = append(names, f.Name)
		}
	}
	return names
}

// baseOptions are every task's options, resolved from the flags, the environment and the
// config files exactly as rlm run resolves them; each job then sets its question or script,
// files, language and limits.
func (f *workerFlags) baseOptions(stderr io.Writer, needModel bool) (rlm.Options, error) {
	if f.parallel < 0 {
		return rlm.Options{}, usagef("--parallel must be at least 1, got %d", f.parallel)
	}
	return baseRunOptions(stderr, f.cf.given(), f.allowDegraded, f.noLog, needModel)
}

// baseRunOptions resolves rlm run's options with the configuration flags given as text; stderr
// gets the configuration files read.
func baseRunOptions(stderr io.Writer, flags map[string]string, allowDegraded, noLog, needModel bool) (rlm.Options, error) {
	conf, err := loadConfiguration(stderr, flags)
	if err != nil {
		return rlm.Options{}, err
	}
	var rf runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	rf.register(fs) // rlm run's defaults
	rf.ask.register(fs)
	rf.conf, rf.allowDegraded, rf.ask.noLog, rf.ask.quiet = conf, allowDegraded, noLog, true
	opts, err := rf.resolve(needModel)
	if err != nil {
		return opts, err
	}
	opts.Quiet = true
	return opts, nil
}

type batchFlags struct {
	workerFlags
	queue     queueFlags
	out       string
	listen    string
	ackWait   time.Duration
	replicas  int
	maxCost   float64
	maxTokens int
	maxCalls  int
	quiet     bool
	retry     bool
}

func newBatchCmd() *cobra.Command {
	var f batchFlags
	cmd := &cobra.Command{
		Use:   "batch TASKS.jsonl [flags]",
		Short: "Run many tasks (questions or scripts over files), with shared budgets, resume and progress",
		Example: `  rlm batch tasks.jsonl                              # results in tasks.results.jsonl
  rlm batch tasks.jsonl --parallel 4 --max-cost 5    # at most $5 for the whole batch
  rlm batch tasks.jsonl --retry-failed               # run the failed tasks again
  # Workers on this machine join through the embedded server
  rlm batch tasks.jsonl --listen 127.0.0.1:4222`,
		Long: `Batch runs every task of TASKS.jsonl, one JSON object per line:
  {"id": "t1", "question": "…", "files": ["a.log"], "lang": "js", "limits": {"max_calls": 20, "timeout": "10m"}}
  {"id": "t2", "script": "count.js", "files": ["b.log"], "limits": {"cell_timeout": "30s"}}
ids are yours and must be unique; relative paths resolve against the tasks file's directory.
The configuration (rlm.toml, RLM_* variables, and rlm run's flags but the three budgets below)
sets every task's limits; a task's limits (max_calls, max_tokens, max_cost, max_iterations,
timeout, cell_timeout) only lower them, here and on any rlm worker (which has its own): a
task that asks for more runs with the worker's, and its result's "notes" say so. Each task
runs exactly as rlm run would run it (same confinement, budgets and records under RLM_HOME),
--parallel at a time.

Results go to RESULTS.jsonl (--out, default: beside TASKS.jsonl, TASKS.results.jsonl), one line
per task as it finishes, in rlm run --json's shape plus "id", timing, "worker" and "attempt".
Each line is synced before the next, so SIGINT or a crash loses no finished result, and no id
is written twice. Rerunning the same command resumes: tasks with a result are skipped, the
others run. --retry-failed runs the tasks whose result is a failure again: their failed lines
move first to a file beside the results named with ".retried" before the extension
(TASKS.results.retried.jsonl; --out r.out: r.retried.out), so the results keep one line per task.

--max-cost, --max-tokens and --max-calls are budgets shared by the whole batch (each task
keeps its own limits too): once one is spent, the batch stops, withdraws the tasks not started,
and says how many are left; rerun with a larger budget to finish them. The batch stops the same
way when the model service fails 3 tasks in a row as a whole (its circuit breaker opens, or its
quota is spent): the rest would fail too; rerun with --retry-failed once it works.

The tasks go through NATS JetStream. By default rlm batch runs a NATS server inside itself
(JetStream on files under RLM_HOME/nats, no network listener; --listen 127.0.0.1:4222 lets
rlm worker processes on this machine join). With --queue nats://HOST:4222 it uses that server
instead, and rlm worker processes on any machine take tasks from it; --parallel 0 then runs
none here. --queue mem uses in-process channels (no JetStream; no resume of queued tasks).

Progress goes to stderr: a bar on a terminal (done, failed, running, tokens, cost, ETA), one
line per finished task otherwise (--quiet: the summary only).

Exit status: 0 every task answered or completed · 1 some task's result is a failure (from this
run or an earlier one), or the batch stopped (budget spent, model service down, a worker error)
· 2 usage (a bad task line is named by its number) · 130 SIGINT.`,
		Args: exactArgs(1, "TASKS.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBatch(cmd.Context(), cmd.ErrOrStderr(), f, args[0])
		},
	}
	fl := cmd.Flags()
	f.register(fl, configFlagsBut("max-calls", "max-tokens", "max-cost")...) // those three are the batch's here
	f.queue.register(fl, "the NATS `URL` of the queue (nats://HOST:4222, tls://HOST:4222), or mem; default: an embedded server")
	fl.StringVar(&f.out, "out", "", "the results `FILE` (default: TASKS.results.jsonl beside the tasks file)")
	fl.StringVar(&f.listen, "listen", "", "let workers on this machine reach the embedded server at `ADDR` (loopback only, e.g. 127.0.0.1:4222; port 0: any)")
	fl.DurationVar(&f.ackWait, "ack-wait", limits.AckWait, "how long a task's worker may go silent before the task is given to another")
	fl.IntVar(&f.replicas, "replicas", 1, "copies of the queue's streams in a JetStream cluster (--queue; 3 survives losing a node)")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "US dollars the whole batch may spend (0: no dollar cap; each task's own budgets still hold)")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "tokens the whole batch may spend (0: no shared cap)")
	fl.IntVar(&f.maxCalls, "max-calls", 0, "model API calls the whole batch may make (0: no shared cap)")
	fl.BoolVar(&f.quiet, "quiet", false, "print only the summary")
	fl.BoolVar(&f.retry, "retry-failed", false, "run the tasks whose result is a failure again (their old lines move to the .retried file)")
	return cmd
}

func runBatch(ctx context.Context, stderr io.Writer, f batchFlags, tasksPath string) error {
	tasks, err := batch.ReadTasks(tasksPath)
	if err != nil {
		return usageError{err}
	}
	if f.maxCost < 0 || f.maxTokens < 0 || f.maxCalls < 0 {
		return usagef("--max-cost, --max-tokens and --max-calls must not be negative (0: no shared cap)")
	}
	if _, err := positive("--ack-wait", f.ackWait); err != nil {
		return err
	}
	if f.out == "" {
		f.out = strings.TrimSuffix(tasksPath, filepath.Ext(tasksPath)) + ".results.jsonl"
	}
	dir, err := ensureHome()
	if err != nil {
		return err
	}
	q, closeQ, err := f.openQueue(dir, stderr)
	if err != nil {
		return err
	}
	defer closeQ()
	cfg := batch.Config{Tasks: tasks, Out: f.out, Queue: q, RetryFailed: f.retry}
	if f.maxCost > 0 || f.maxTokens > 0 || f.maxCalls > 0 {
		cfg.Budget = rlm.NewBudget(llm.Spent{Calls: f.maxCalls, Tokens: f.maxTokens, Cost: llm.Cost{USD: f.maxCost}})
	}
	if f.parallel > 0 {
		base, err := f.baseOptions(stderr, needsModel(tasks))
		if err != nil {
			return err
		}
		cfg.Local = &batch.Worker{Queue: q, Base: base, Budget: cfg.Budget, Parallel: f.parallel}
	}
	if !f.quiet {
		cfg.Progress, cfg.TTY = stderr, isTerminal(os.Stderr)
		if cfg.TTY {
			cfg.Progress = termsafe.Raw(stderr)
		}
	}
	ctx, stop := withSignals(ctx, func(signalled) {})
	defer stop()
	sum, err := batch.Run(ctx, cfg)
	if s, ok := signalOf(ctx); ok {
		return s
	}
	if f.quiet {
		fmt.Fprintf(stderr, "[batch] %s\n", sum)
	}
	switch {
	case err != nil:
		return err
	case sum.Failed > 0 || sum.FailedBefore > 0:
		return silent{exitFailed}
	}
	return nil
}

// openQueue is the batch's queue: the embedded server, a NATS server (--queue), or channels.
func (f *batchFlags) openQueue(dir string, stderr io.Writer) (batch.Queue, func(), error) {
	if f.queue.url == "mem" {
		if f.parallel == 0 {
			return nil, nil, usagef("--queue mem has no workers but this process's: --parallel must be at least 1")
		}
		return batch.NewMemQueue(1024), func() {}, nil
	}
	ctx := context.Background()
	jo := batch.JetStreamOptions{AckWait: f.ackWait, Coordinator: true, CacheDir: home.InputCache(dir), Replicas: f.replicas}
	if f.replicas < 1 || f.replicas > 5 {
		return nil, nil, usagef("--replicas %d: want 1 to 5", f.replicas)
	}
	if f.queue.url != "" {
		if f.listen != "" {
			return nil, nil, usagef("--listen is for the embedded server; with --queue, workers connect to that server")
		}
		nc, err := f.queue.dial("rlm batch").Connect()
		if err != nil {
			return nil, nil, usageOrErr(err)
		}
		q, err := batch.NewJetStream(ctx, nc, jo)
		if err != nil {
			nc.Close()
			return nil, nil, err
		}
		return q, nc.Close, nil
	}
	if f.parallel == 0 && f.listen == "" {
		return nil, nil, usagef("--parallel 0 with the embedded server and no --listen: no worker could reach it")
	}
	srv, err := batch.Embedded(home.NATS(dir), f.listen)
	if err != nil {
		return nil, nil, usageOrErr(err)
	}
	if u := srv.URL(); u != "" {
		fmt.Fprintf(stderr, "[batch] queue listening at %s (rlm worker --queue %s)\n", u, u)
	}
	nc, err := srv.Conn()
	if err == nil {
		var q batch.Queue
		if q, err = batch.NewJetStream(ctx, nc, jo); err == nil {
			return q, func() { nc.Close(); srv.Close() }, nil
		}
		nc.Close()
	}
	srv.Close()
	return nil, nil, err
}

// needsModel reports whether any task asks a question (a script runs without a model).
func needsModel(tasks []batch.Task) bool {
	for _, t := range tasks {
		if t.Question != "" {
			return true
		}
	}
	return false
}

// usageOrErr makes a refused queue address or listen address (kinds schema and denied) a usage
// error.
func usageOrErr(err error) error {
	switch fault.KindOf(err) {
	case fault.Schema, fault.Denied:
		return usageError{err}
	}
	return err
}
