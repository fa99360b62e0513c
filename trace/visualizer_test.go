package trace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/trace"
	"github.com/rlm-sandbox/rlm/trace/tracetest"
)

// TestReferenceVisualizer reads a trace written by Writer with the reference visualizer's rules
// (package tracetest): one metadata line, every iteration, the question, the answer, the
// variables, and nothing it would throw on.
func TestReferenceVisualizer(t *testing.T) {
	path := filepath.Join(t.TempDir(), trace.FileName(time.Now(), "task1"))
	final := "4417"
	w, err := trace.Create(path, trace.Metadata{RootModel: "root", MaxIterations: 1, TaskID: "task1", Question: "What is the magic number?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []trace.Message{{Role: "system", Content: "sys"},
		{Role: "user", Content: `Question: What is the magic number?` + "\n\n" + `… then call FINAL with the answer to the original query: "What is the magic number?"`}}
	its := []trace.Iteration{
		{Prompt: prompt, Response: "r1", CodeBlocks: []trace.CodeBlock{{Code: "print(1)", Stdout: "1\n",
			Locals: []trace.Var{{Name: "hits", Type: "Array", Repr: "[…]"}, {Name: "n"}}}}, Time: time.Second},
		{Prompt: prompt, Response: "r2", Forced: true, FinalAnswer: &final,
			CodeBlocks: []trace.CodeBlock{{Code: "FINAL(4417)", Final: &final}}, Time: time.Second},
	}
	for _, it := range its {
		if err := w.Iteration(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(trace.Outcome{Status: "ANSWERED", Answer: final, Usage: trace.Usage{PromptTokens: 10, CompletionTokens: 2}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tracetest.Parse(string(data))
	if err != nil {
		t.Fatalf("the reference visualizer would fail on the trace: %v", err)
	}
	if f.MetadataLines != 1 || f.Config["root_model"] != "root" {
		t.Errorf("metadata lines %d, config %v; want one, written once", f.MetadataLines, f.Config)
	}
	if len(f.Iterations) != 2 || len(f.Skipped) != 0 {
		t.Errorf("iterations %d, skipped lines %v; want 2 and none", len(f.Iterations), f.Skipped)
	}
	if f.ContextQuestion != "What is the magic number?" {
		t.Errorf("question shown: %q", f.ContextQuestion)
	}
	if f.FinalAnswer == nil || *f.FinalAnswer != final {
		t.Errorf("final answer shown: %v", f.FinalAnswer)
	}
	locals := f.Iterations[0]["code_blocks"].([]any)[0].(map[string]any)["result"].(map[string]any)["locals"].(map[string]any)
	if len(locals) != 2 || locals["hits"] != "[…]" {
		t.Errorf("Variables panel gets %v", locals)
	}
	if f.Iterations[1]["forced_final"] != true {
		t.Errorf("the forced final iteration is not marked: %v", f.Iterations[1])
	}
}
