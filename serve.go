package rlm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/subrun"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/worker"
)

// workerArg is the hidden argument a session's worker is started with (repl.WorkerCommand's
// default).
const workerArg = "__worker"

func maybeServeWorker() {
	if len(os.Args) != 2 {
		return
	}
	switch os.Args[1] {
	case workerArg:
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "rlm: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	case subrun.Arg:
		os.Exit(serveSubRun(os.Stdin, os.Stdout, os.Stderr))
	}
}

// subRunner answers this run's llm_query calls with child runs one level deeper.
func (r *run) subRunner() *subrun.Runner {
	return subrun.New(specOf(r.settings.Options, r.llmCfg), r.workDir(), r.client, func(s llm.Spent) {
		r.client.Charge(s)
		if r.Budget != nil {
			r.Budget.charge(s)
		}
	})
}

// specOf is what a parent run with options o and model configuration model passes on to its
// children (subrun.New fills in their question, files, budgets and time).
func specOf(o Options, model llm.Config) subrun.Spec {
	return subrun.Spec{
		Home: o.Home, Lang: o.Lang, Name: o.Name, Chain: o.Chain, Depth: o.Depth, MaxDepth: o.MaxDepth, DepthCap: o.DepthCap,
		Limits: o.Limits, Quota: o.Quota, MaxIterations: o.MaxIterations, MaxBlocks: o.MaxBlocks, CellTimeout: o.CellTimeout,
		FeedbackChars: o.FeedbackChars, WorkerMemory: o.WorkerMemory,
		Timeout: o.Timeout, MinFreeMB: o.MinFreeMB, AllowDegraded: o.AllowDegraded, NoLog: o.NoLog, Model: subrun.ModelOf(model),
	}
}

// optionsOf is a child run's Options.
func optionsOf(spec subrun.Spec) Options {
	return Options{
		Question: spec.Question, Files: spec.Files, Lang: spec.Lang, Home: spec.Home, Model: spec.Model.Config(),
		Limits: spec.Limits, Quota: spec.Quota, MaxIterations: spec.MaxIterations, MaxBlocks: spec.MaxBlocks, Timeout: spec.Timeout,
		CellTimeout: spec.CellTimeout, MinFreeMB: spec.MinFreeMB, Name: spec.Name, MaxDepth: spec.MaxDepth,
		FeedbackChars: spec.FeedbackChars, WorkerMemory: spec.WorkerMemory,
		Chain: spec.Chain, Depth: spec.Depth, DepthCap: spec.DepthCap, AllowDegraded: spec.AllowDegraded,
		NoLog: spec.NoLog, Quiet: true,
	}
}

// serveSubRun is a child run: its spec on in, its reply on out. SIGTERM and SIGINT (the parent
// cancelling, or dying) stop it as they stop `rlm run`.
func serveSubRun(in io.Reader, out, errw io.Writer) int {
	var spec subrun.Spec
	if err := json.NewDecoder(io.LimitReader(in, subrun.MaxSpec)).Decode(&spec); err != nil {
		fmt.Fprintf(errw, "rlm: reading the sub-run's spec: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	go func() {
		if s, ok := <-sigs; ok {
			cancel(fault.Wrap(fault.Canceled, fmt.Errorf("stopped by %v", s), "the sub-run was stopped by a signal from its parent run"))
		}
	}()
	res, err := Ask(ctx, optionsOf(spec))
	u := res.Usage
	rep := subrun.Reply{Answer: res.Answer, Calls: u.Calls, Tokens: u.Tokens, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Cost: u.Cost}
	if err != nil {
		f := failureOf(err)
		rep.Error = &subrun.Failure{Kind: string(f.Kind), Message: f.Message}
	}
	if err := json.NewEncoder(out).Encode(rep); err != nil {
		fmt.Fprintf(errw, "rlm: %v\n", err)
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}
