package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/evalset"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

type evalFlags struct {
	sizes         []string
	kinds         []string
	lang          string
	model         string
	direct        bool
	taskTimeout   time.Duration
	cellTimeout   time.Duration
	allowDegraded bool
	keep          bool
	seed          int64
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval [--sizes 10KB,1MB] [--kinds needle,count] [flags]",
		Short: "Run the synthetic long-context evaluation (needle and aggregation tasks) against the configured model",
		Long: `Eval generates S-NIAH-style needle tasks and OOLONG-style aggregation tasks at each size,
runs each through the REPL loop against the configured model (RLM_BASE_URL, RLM_API_KEY,
RLM_MODEL or --model), scores the answers, and prints accuracy, cost (tokens and API calls per
task) and wall time per kind and size. Inputs are generated under RLM_HOME/eval and deleted after
each task unless --keep. Sizes go from 10KB to 1GB; each task gets fresh budgets.

Exit status: 0 every task ran (whatever its score) · 1 a task could not run · 2 usage.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.sizes, "sizes", []string{"10KB", "100KB", "1MB", "10MB"}, "input sizes, 10KB to 1GB")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "task kinds to run (default: all)")
	fl.StringVar(&f.lang, "lang", "js", "the REPL language the model writes: go or js")
	fl.StringVar(&f.model, "model", "", "the root model (default: RLM_MODEL)")
	fl.BoolVar(&f.direct, "direct", false, "one model call per task with the input in the prompt (a baseline for small sizes)")
	fl.DurationVar(&f.taskTimeout, "task-timeout", 30*time.Minute, "wall clock per task")
	fl.DurationVar(&f.cellTimeout, "cell-timeout", repl.DefaultCellTimeout, "deadline per cell")
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, "run even when confinement is below the minimum")
	fl.BoolVar(&f.keep, "keep", false, "keep the generated inputs")
	fl.Int64Var(&f.seed, "seed", 1, "added to every task's seed, for a different draw")
	return cmd
}

func runEval(ctx context.Context, out, errw io.Writer, f evalFlags) error {
	specs, err := evalSpecs(f)
	if err != nil {
		return err
	}
	lcfg, err := modelConfig(f.model, fileConfig{})
	if err != nil {
		return err
	}
	home, err := ensureHome()
	if err != nil {
		return err
	}
	if err := emergencyStop(home); err != nil {
		return err
	}
	dir := filepath.Join(home, "eval")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ctx, stop := withSignals(ctx, func(signalled) {})
	defer stop()
	var outcomes []evalset.Outcome
	for i, spec := range specs {
		o, err := evalOne(ctx, f, lcfg, home, spec)
		if s, ok := signalOf(ctx); ok {
			return s // the task's input is already removed
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(errw, "[eval] %d/%d %s %s: score %.2f (%s)\n", i+1, len(specs), spec.Kind, evalset.FormatSize(spec.Size), evalset.Score(o.Task, o.Answer), o.Wall.Round(time.Millisecond))
		outcomes = append(outcomes, o)
	}
	return evalset.Summarize(outcomes).Format(out)
}

func evalSpecs(f evalFlags) ([]evalset.Spec, error) {
	var sizes []int64
	for _, s := range f.sizes {
		n, err := evalset.ParseSize(s)
		if err != nil || n < 10_000 || n > 1<<30 {
			return nil, usagef("--sizes %q: want sizes from 10KB to 1GB", s)
		}
		sizes = append(sizes, n)
	}
	if f.lang != "go" && f.lang != "js" {
		return nil, usagef("--lang %q: want go or js", f.lang)
	}
	var specs []evalset.Spec
	for _, s := range evalset.Suite(sizes) {
		if len(f.kinds) == 0 || slices.ContainsFunc(f.kinds, func(k string) bool { return strings.EqualFold(k, s.Kind) }) {
			s.Seed += f.seed - 1
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		return nil, usagef("--kinds %s matches no task kind", strings.Join(f.kinds, ","))
	}
	return specs, nil
}

// evalOne generates one task's input, runs it, and deletes the input unless --keep.
func evalOne(ctx context.Context, f evalFlags, lcfg llm.Config, home string, spec evalset.Spec) (evalset.Outcome, error) {
	path := filepath.Join(home, "eval", fmt.Sprintf("%s-%s-%d.txt", spec.Kind, evalset.FormatSize(spec.Size), spec.Seed))
	task, err := generateTo(path, spec)
	if err != nil {
		return evalset.Outcome{}, err
	}
	if !f.keep {
		defer os.Remove(path)
	}
	ctx, cancel := context.WithTimeout(ctx, f.taskTimeout)
	defer cancel()
	lcfg.Deadline = time.Now().Add(f.taskTimeout)
	client, err := llm.New(lcfg)
	if err != nil {
		return evalset.Outcome{}, usageError{err}
	}
	mode := controller.Loop
	if f.direct {
		mode = controller.Direct
	}
	start := time.Now()
	res := controller.Run(ctx, controller.Config{
		Question: task.Question, Model: stopModel{home: home, next: client}, Mode: mode,
		Session: repl.Options{Lang: f.lang, Contexts: []string{path}, CellTimeout: f.cellTimeout, AllowDegraded: f.allowDegraded},
	})
	sp := client.Spent()
	return evalset.Outcome{Task: task, Answer: res.Answer, Err: res.Err, Tokens: sp.Tokens, Calls: sp.Calls, Wall: time.Since(start)}, nil
}

func generateTo(path string, spec evalset.Spec) (evalset.Task, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return evalset.Task{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	task, err := evalset.Generate(bw, spec)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return task, err
}
