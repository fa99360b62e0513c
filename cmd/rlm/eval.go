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

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/evalset"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
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
	parallel      int
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval [--sizes 10KB,1MB] [--kinds niah,agg-count] [flags]",
		Short: "Run the synthetic long-context evaluation (needle and aggregation tasks) against the configured model",
		Example: `  rlm eval --sizes 10KB,1MB --kinds niah
  rlm eval --sizes 100KB --lang go --parallel 2 --model gpt-4.1-mini`,
		Long: `Eval generates S-NIAH-style needle tasks and OOLONG-style aggregation tasks at each size,
runs each through the REPL loop against the configured model (RLM_BASE_URL, RLM_API_KEY,
RLM_MODEL or --model), scores the answers, and prints accuracy, cost (tokens and API calls per
task) and wall time per kind and size. The tasks run as rlm batch runs them (each as rlm run
would, recorded under RLM_HOME, --parallel at a time); inputs are generated under
RLM_HOME/eval/TIME/ beside the batch's results.jsonl and deleted at the end unless --keep, so
the disk must hold all of them at once. Sizes go from 10KB to 1GB; each task gets fresh budgets.

Kinds: ` + strings.Join(evalKinds(), ", ") + `.

Exit status: 0 the tasks ran (whatever their scores) · 1 a task could not run, or every task
failed (the first failure is printed: the model is unreachable, say) · 2 usage · 3 timeout.`,
		Args: noArgs,
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
	fl.DurationVar(&f.taskTimeout, "task-timeout", limits.EvalTimeout, "wall clock per task")
	fl.DurationVar(&f.cellTimeout, "cell-timeout", limits.CellTimeout, "deadline per cell")
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, "run even when confinement is below the minimum")
	fl.BoolVar(&f.keep, "keep", false, "keep the generated inputs")
	fl.Int64Var(&f.seed, "seed", 1, "added to every task's seed, for a different draw")
	fl.IntVar(&f.parallel, "parallel", 1, "tasks run at once (wall times are cleanest at 1)")
	return cmd
}

func runEval(ctx context.Context, out, errw io.Writer, f evalFlags) error {
	specs, err := evalSpecs(f)
	if err != nil {
		return err
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1, got %d", f.parallel)
	}
	base, err := f.baseOptions(errw)
	if err != nil {
		return err
	}
	if err := guard.EmergencyStop(base.Home); err != nil {
		return err
	}
	dir := filepath.Join(home.Eval(base.Home), time.Now().UTC().Format("20060102-150405.000"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !f.keep {
		defer removeInputs(dir)
	}
	ctx, stop := withSignals(ctx, func(signalled) { removeInputs(dir) })
	defer stop()
	tasks, byID, err := evalTasks(dir, f, specs)
	if err != nil {
		return err
	}
	var outcomes []evalset.Outcome
	q := batch.NewMemQueue(len(tasks))
	defer q.Close()
	_, err = batch.Run(ctx, batch.Config{Tasks: tasks, Out: filepath.Join(dir, "results.jsonl"), Queue: q,
		Local: &batch.Worker{Queue: q, Base: base, Parallel: f.parallel},
		Rerun: "run the same rlm eval again (it runs every task afresh)", // eval has no --retry-failed
		OnResult: func(r batch.Result) {
			o := evalOutcome(byID[r.ID], r)
			outcomes = append(outcomes, o)
			fmt.Fprintf(errw, "[eval] %d/%d %s %s: score %.2f (%s)%s\n", len(outcomes), len(tasks), o.Task.Spec.Kind, evalset.FormatSize(o.Task.Spec.Size), evalset.Score(o.Task, o.Answer), o.Wall.Round(time.Millisecond), failNote(o.Err))
		}})
	if s, ok := signalOf(ctx); ok {
		return s
	}
	if err != nil {
		return err
	}
	if err := evalset.Summarize(outcomes).Format(out); err != nil {
		return err
	}
	return allFailed(outcomes)
}

// baseOptions are every evaluation task's options: rlm run's, with eval's model, language,
// mode and timeouts.
func (f evalFlags) baseOptions(stderr io.Writer) (rlm.Options, error) {
	flags := map[string]string{"cell-timeout": f.cellTimeout.String()}
	if f.model != "" {
		flags["model"] = f.model
	}
	opts, err := baseRunOptions(stderr, flags, f.allowDegraded, false, true)
	if err != nil {
		return opts, err
	}
	opts.Lang, opts.Mode, opts.Timeout = f.lang, rlm.Loop, f.taskTimeout
	if f.direct {
		opts.Mode = rlm.Direct
	}
	return opts, nil
}

// evalTasks generates each task's input into dir and returns the batch's tasks, and the
// evaluation tasks by id.
func evalTasks(dir string, f evalFlags, specs []evalset.Spec) ([]batch.Task, map[string]evalset.Task, error) {
	var tasks []batch.Task
	byID := map[string]evalset.Task{}
	for _, spec := range specs {
		id := fmt.Sprintf("%s-%s-%d", spec.Kind, evalset.FormatSize(spec.Size), spec.Seed)
		path := filepath.Join(dir, id+".txt")
		task, err := generateTo(path, spec)
		if err != nil {
			return nil, nil, err
		}
		byID[id] = task
		tasks = append(tasks, batch.Task{ID: id, Question: task.Question, Files: []string{path}, Lang: f.lang})
	}
	return tasks, byID, nil
}

// evalOutcome is a batch result as the evaluation scores it.
func evalOutcome(task evalset.Task, r batch.Result) evalset.Outcome {
	o := evalset.Outcome{Task: task, Answer: r.Answer, Tokens: r.Usage.Tokens, Calls: r.Usage.Calls, Wall: time.Duration(r.DurationMS) * time.Millisecond}
	if r.Error != nil {
		o.Err, o.Answer = fault.New(fault.Parse(r.Error.Kind), "%s", r.Error.Message), ""
	}
	return o
}

// removeInputs deletes the generated inputs, keeping the results file.
func removeInputs(dir string) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, p := range inputs {
		os.Remove(p)
	}
}

// failNote is the end of a task's progress line: why it failed, if it did.
func failNote(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(": failed (%s): %v", fault.Classify(err), err)
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
	return fault.New(fault.Logic, "every task failed (%d of %d), so the scores say nothing about the model; the first failure (%s): %v", len(outcomes), len(outcomes), fault.Classify(first), first)
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
