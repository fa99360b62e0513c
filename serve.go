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
	"github.com/rlm-sandbox/rlm/repl"
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
		if err := repl.Serve(os.Stdin, os.Stdout); err != nil {
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
	spec := subrun.Spec{
		Home: r.Home, Lang: r.Lang, Name: r.Name, Chain: r.Chain, Depth: r.Depth, MaxDepth: r.MaxDepth, DepthCap: r.DepthCap,
		Limits: r.Limits, MaxIterations: r.MaxIterations, MaxBlocks: r.MaxBlocks, CellTimeout: r.CellTimeout,
		MinFreeMB: r.MinFreeMB, AllowDegraded: r.AllowDegraded, NoLog: r.NoLog, Model: subrun.ModelOf(r.llmCfg),
	}
	return subrun.New(spec, r.workDir(), r.client, func(s llm.Spent) {
		r.client.Charge(s)
		if r.Budget != nil {
			r.Budget.charge(s)
		}
	})
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
			cancel(fault.Wrap(fault.Limit, fmt.Errorf("stopped by %v", s), "the run was stopped by a signal"))
		}
	}()
	res, err := Ask(ctx, Options{
		Question: spec.Question, Files: spec.Files, Lang: spec.Lang, Home: spec.Home, Model: spec.Model.Config(),
		Limits: spec.Limits, MaxIterations: spec.MaxIterations, MaxBlocks: spec.MaxBlocks, Timeout: spec.Timeout,
		CellTimeout: spec.CellTimeout, MinFreeMB: spec.MinFreeMB, Name: spec.Name, MaxDepth: spec.MaxDepth,
		Chain: spec.Chain, Depth: spec.Depth, DepthCap: spec.DepthCap, AllowDegraded: spec.AllowDegraded,
		NoLog: spec.NoLog, Quiet: true,
	})
	rep := subrun.Reply{Answer: res.Answer, Calls: res.Usage.Calls, Tokens: res.Usage.Tokens, Cost: res.Usage.Cost}
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
