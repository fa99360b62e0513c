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
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/guard"
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
		Use:   "eval [--sizes 10KB,1MB] [--kinds niah,agg-count] [flags]",
		Short: "Run the synthetic long-context evaluation (needle and aggregation tasks) against the configured model",
		Long: `Eval generates S-NIAH-style needle tasks and OOLONG-style aggregation tasks at each size,
runs each through the REPL loop against the configured model (RLM_BASE_URL, RLM_API_KEY,
RLM_MODEL or --model), scores the answers, and prints accuracy, cost (tokens and API calls per
task) and wall time per kind and size. Inputs are generated under RLM_HOME/eval and deleted after
each task unless --keep. Sizes go from 10KB to 1GB; each task gets fresh budgets.

Kinds: ` + strings.Join(evalKinds(), ", ") + `.

Exit status: 0 the tasks ran (whatever their scores) · 1 a task could not run, or every task
failed (the first failure is printed: the model is unreachable, say) · 2 usage · 3 timeout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.sizes, "sizes", []string{"10KB", "100KB", "1MB", "10MB"}, "input sizes, 10KB to 1GB")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "task kinds to run: "+strings.Join(evalKinds(), ", ")+" (default: all)")
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
	flags := map[string]string{}
	if f.model != "" {
		flags["model"] = f.model
	}
	conf, err := loadConfiguration(flags)
	if err != nil {
		return err
	}
	lcfg, err := conf.LLM(nil)
	if err != nil {
		return usageError{err}
	}
	home, err := ensureHome()
	if err != nil {
		return err
	}
	if err := guard.EmergencyStop(home); err != nil {
		return err
	}
	dir := filepath.Join(home, "eval")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ctx, stop := withSignals(ctx, func(signalled) {})
	defer stop()
	lcfg.Notify = func(msg string) { fmt.Fprintf(errw, "[eval] %s\n", msg) }
	var outcomes []evalset.Outcome
	for i, spec := range specs {
		o, err := evalOne(ctx, f, lcfg, home, spec)
		if s, ok := signalOf(ctx); ok {
			return s // the task's input is already removed
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(errw, "[eval] %d/%d %s %s: score %.2f (%s)%s\n", i+1, len(specs), spec.Kind, evalset.FormatSize(spec.Size), evalset.Score(o.Task, o.Answer), o.Wall.Round(time.Millisecond), failNote(o.Err))
		outcomes = append(outcomes, o)
	}
	if err := evalset.Summarize(outcomes).Format(out); err != nil {
		return err
	}
	return allFailed(outcomes)
}

// failNote is the end of a task's progress line: why it failed, if it did.
func failNote(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(": failed (%s): %v", kindOf(err), err)
}

// allFailed is the error of an evaluation in which no task ran to an answer: its scores say
// nothing about the model, so it must not pass for one that did. It carries the first failure.
func allFailed(outcomes []evalset.Outcome) error {
	for _, o := range outcomes {
		if o.Err == nil {
			return nil
		}
	}
	if len(outcomes) == 0 {
		return nil
	}
	first := outcomes[0].Err
	return fault.New(fault.Logic, "every task failed (%d of %d), so the scores say nothing about the model; the first failure (%s): %v", len(outcomes), len(outcomes), kindOf(first), first)
}

// evalKinds are the task kinds of the suite, in its order.
func evalKinds() []string {
	var kinds []string
	for _, s := range evalset.Suite([]int64{10_000}) {
		if !slices.Contains(kinds, s.Kind) {
			kinds = append(kinds, s.Kind)
		}
	}
	return kinds
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
	for _, k := range f.kinds {
		if !slices.ContainsFunc(evalKinds(), func(v string) bool { return strings.EqualFold(k, v) }) {
			return nil, usagef("--kinds %s: no such task kind; the kinds are %s", k, strings.Join(evalKinds(), ", "))
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--task-timeout", f.taskTimeout}, {"--cell-timeout", f.cellTimeout}} {
		if _, err := positive(d.name, d.v); err != nil {
			return nil, err
		}
	}
	var specs []evalset.Spec
	for _, s := range evalset.Suite(sizes) {
		if len(f.kinds) == 0 || slices.ContainsFunc(f.kinds, func(k string) bool { return strings.EqualFold(k, s.Kind) }) {
			s.Seed += f.seed - 1
			specs = append(specs, s)
		}
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
		Question: task.Question, Model: guard.Model{Home: home, Next: client}, Mode: mode,
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
