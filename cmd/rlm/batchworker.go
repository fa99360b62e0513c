package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/internal/home"
)

type queueWorkerFlags struct {
	workerFlags
	queue queueFlags
	quiet bool
}

// newQueueWorkerCmd is rlm worker: it serves rlm batch's queue on any machine.
func newQueueWorkerCmd() *cobra.Command {
	var f queueWorkerFlags
	cmd := &cobra.Command{
		Use:   "worker --queue nats://HOST:4222 [--creds FILE] [flags]",
		Short: "Take tasks of rlm batch from a NATS JetStream queue and run them here",
		Example: `  rlm worker --queue nats://127.0.0.1:4222 --parallel 2   # beside rlm batch --listen 127.0.0.1:4222
  rlm worker --queue tls://queue.example:4222 --creds worker.creds --tls-ca ca.pem`,
		Long: `Worker takes tasks from the queue that rlm batch fills (--queue: a NATS server with
JetStream), runs each exactly as rlm run would (same confinement, budgets and records under
this machine's RLM_HOME; the model from RLM_BASE_URL, RLM_API_KEY, RLM_MODEL or --model),
--parallel at a time, and publishes each result. Inputs come from the queue's object store by
content hash and are cached under RLM_HOME/cache/inputs, so no shared filesystem is needed.

This worker's limits (--max-calls, --max-tokens, --max-cost, --max-iterations, --timeout,
--cell-timeout, or the configuration) cap every task: a task's own limits only lower them, and
a task that asks for more runs with this worker's, its result's "notes" saying so.

While a task runs, the worker tells the queue so every third of the ack wait; if it dies, the
task goes to another worker once the ack wait passes. A task started 4 times without finishing
is recorded as failed.

A queue server that is not on this machine needs TLS (a tls:// URL, --tls-ca, --tls-cert and
--tls-key) or credentials (--creds), or --insecure.

Each worker process needs its own RLM_HOME (one process runs tasks per home). SIGINT or
SIGTERM stops the running tasks and hands them back to the queue.

Exit status: 130 SIGINT · 143 SIGTERM · 1 the queue failed, or runs are refused here
(EMERGENCY_STOP, disk) · 2 usage.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runQueueWorker(cmd.Context(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	f.register(fl)
	f.queue.register(fl, "the NATS `URL` of the queue: nats://HOST:4222 or tls://HOST:4222 (required)")
	fl.BoolVar(&f.quiet, "quiet", false, "no line per task")
	return cmd
}

func runQueueWorker(ctx context.Context, stderr io.Writer, f queueWorkerFlags) error {
	if f.queue.url == "" || f.queue.url == "mem" {
		return usagef("worker needs --queue nats://HOST:4222, the server rlm batch uses")
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1, got %d", f.parallel)
	}
	base, err := f.baseOptions(stderr, false)
	if err != nil {
		return err
	}
	dir, err := ensureHome()
	if err != nil {
		return err
	}
	w := &batch.Worker{Base: base, Parallel: f.parallel}
	nc, err := f.queue.dial("rlm worker").Connect()
	if err != nil {
		return usageOrErr(err)
	}
	defer nc.Close()
	ctx, stop := withSignals(ctx, func(signalled) {})
	defer stop()
	if w.Queue, err = batch.NewJetStream(ctx, nc, batch.JetStreamOptions{CacheDir: home.InputCache(dir)}); err != nil {
		return err
	}
	if !f.quiet {
		w.Log = func(format string, args ...any) {
			fmt.Fprintf(stderr, "[worker] %s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
		}
	}
	err = w.Work(ctx)
	if s, ok := signalOf(ctx); ok {
		return s
	}
	return err
}
