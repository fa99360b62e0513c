package evalset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
	"github.com/rlm-sandbox/rlm/worker"
)

// TestMain lets this test binary serve as the confined REPL worker, as the rlm binary's hidden
// worker subcommand does.
func TestMain(m *testing.M) {
	if os.Getenv("RLM_EVALSET_TEST_WORKER") == "confined" {
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var testWorker = repl.WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_EVALSET_TEST_WORKER=confined"}}

// solutionSpecs are small tasks of every kind and filler.
var solutionSpecs = []Spec{
	{Kind: KindNeedle, Size: 100 * KB, Seed: 11, Depth: 0.5},
	{Kind: KindNeedle, Size: 1 * MB, Seed: 12, Depth: 0.9, Distractors: 20, Filler: FillerLog},
	{Kind: KindCount, Size: 200 * KB, Seed: 13},
	{Kind: KindMostFrequent, Size: 200 * KB, Seed: 14},
	{Kind: KindCompare, Size: 200 * KB, Seed: 15},
}

func TestSolutionsPassTheValidator(t *testing.T) {
	for _, spec := range solutionSpecs {
		task, _ := generate(t, Spec{Kind: spec.Kind, Size: 10 * KB, Seed: spec.Seed, Filler: spec.Filler})
		for _, lang := range []source.Lang{source.Go, source.JS} {
			src := Solution(task, string(lang))
			if src == "" {
				t.Fatalf("%s: no %s solution", task.ID, lang)
			}
			res, err := validator.Validate(lang, "cell."+string(lang), []byte(src), validator.Policy{})
			if err != nil || len(res.Findings) > 0 {
				t.Errorf("%s %s: %v %v\n%s", task.ID, lang, err, res.Findings, src)
			}
		}
	}
}

func TestSolutionUnknown(t *testing.T) {
	task := Task{Kind: KindNeedle, Labels: []string{"amber-otter"}}
	for _, tt := range []struct {
		task Task
		lang string
	}{
		{task, "python"},
		{Task{Kind: "other", Labels: []string{"x"}}, "js"},
		{Task{Kind: KindNeedle}, "go"},
	} {
		if got := Solution(tt.task, tt.lang); got != "" {
			t.Errorf("Solution(%s, %s) = %q, want \"\"", tt.task.Kind, tt.lang, got)
		}
	}
}

// TestSolutionsInSandbox runs each solution in a real confined session over its generated input:
// the answer it records must score 1.
func TestSolutionsInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts confined workers")
	}
	dir := t.TempDir()
	for i, spec := range solutionSpecs {
		file := filepath.Join(dir, fmt.Sprintf("ctx%d.txt", i))
		task := generateFile(t, file, spec)
		for _, lang := range []string{"go", "js"} {
			t.Run(task.ID+"/"+lang, func(t *testing.T) {
				if got := runSolution(t, task, file, lang); got != 1 {
					t.Errorf("the answer scores %v, want 1", got)
				}
			})
		}
	}
	// The check can fail: asking for a key the haystack does not hold scores 0.
	wrong := generateFile(t, filepath.Join(dir, "wrong.txt"), Spec{Kind: KindNeedle, Size: 10 * KB, Seed: 99})
	wrong.Labels = []string{"azure-lynx"}
	if got := runSolution(t, wrong, filepath.Join(dir, "wrong.txt"), "js"); got != 0 {
		t.Errorf("a missing key scores %v, want 0", got)
	}
}

func generateFile(t *testing.T, file string, spec Spec) Task {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	task, err := Generate(f, spec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// runSolution runs task's solution in a fresh confined session over file and scores its FINAL.
func runSolution(t *testing.T, task Task, file, lang string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := repl.Open(ctx, repl.Options{Lang: lang, Contexts: []string{file}, Worker: testWorker, AllowDegraded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src := Solution(task, lang)
	r := s.Exec(ctx, src)
	if r.Err != nil || r.Final == nil {
		t.Fatalf("cell failed: %v (final %v)\n%s\noutput:\n%s", r.Err, r.Final, src, r.Stdout)
	}
	t.Logf("isolation %s; FINAL %q; output %q", s.Isolation().Verdict, *r.Final, r.Stdout)
	return Score(task, *r.Final)
}
