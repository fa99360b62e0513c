package traceview

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/trace"
)

// largeTrace writes a trace of n iterations of about size bytes with the real writer, shaped
// like a long run: each prompt is the system message, the question and a window of the last
// `window` turns (as a compacted history would be), each response has a code block, each block
// prints a long output, and every fifth makes two sub-calls. With window 0 the bytes are
// nearly all distinct outputs, which the page cannot share between iterations.
func largeTrace(t *testing.T, dir string, n, size, window int) string {
	t.Helper()
	path := filepath.Join(dir, trace.FileName(time.Now(), "large"))
	w, err := trace.Create(path, trace.Metadata{RootModel: "gpt-large", MaxIterations: n, TaskID: "large",
		Question: "Summarise every incident in the log, in order", Lang: "go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Per iteration: the output, and the prompt window that repeats 20 turns of about
	// (response + feedback) each; solve for the output size.
	out := max(size/n/(window+1), 200)
	msgs := []trace.Message{{Role: "system", Content: strings.Repeat("You explore a context with code. ", 60)},
		{Role: "user", Content: "Question: Summarise every incident in the log, in order"}}
	for i := 1; i <= n; i++ {
		code := fmt.Sprintf("hits := search(context, \"incident %d\")\nfor _, h := range hits {\n\tprint(h.Line, h.Text)\n}", i)
		resp := fmt.Sprintf("Step %d: I read the next part of the log.\n```go\n%s\n```", i, code)
		var sb strings.Builder
		for j := 0; sb.Len() < out; j++ {
			fmt.Fprintf(&sb, "%d.%d 2026-11-24 incident %d: service degraded, retried, recovered\n", i, j, i)
		}
		stdout := sb.String()[:out]
		b := trace.CodeBlock{Code: code, Stdout: stdout, Time: 30 * time.Millisecond,
			Locals: []trace.Var{{Name: "hits", Type: "[]Match", Repr: fmt.Sprintf("[]Match{… %d items}", i)}}}
		if i%5 == 0 {
			b.SubCalls = []trace.SubCall{{Model: "gpt-sub", Prompt: stdout[:min(len(stdout), 2000)], Response: "A short summary.",
				Usage: trace.Usage{PromptTokens: 500, CompletionTokens: 10}, Time: 400 * time.Millisecond},
				{Model: "gpt-sub", Prompt: "again", Response: "Again.", Usage: trace.Usage{PromptTokens: 5, CompletionTokens: 2}}}
		}
		it := trace.Iteration{Prompt: msgs, Response: resp, CodeBlocks: []trace.CodeBlock{b}, Time: 900 * time.Millisecond,
			Usage: trace.Usage{PromptTokens: 3000 + 10*i, CompletionTokens: 60}}
		if i == n {
			a := "the incidents, in order"
			it.FinalAnswer, it.CodeBlocks[0].Final = &a, &a
		}
		if err := w.Iteration(it); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, trace.Message{Role: "assistant", Content: resp}, trace.Message{Role: "user", Content: stdout})
		if len(msgs) > 2+2*window {
			msgs = append(msgs[:2:2], msgs[len(msgs)-2*window:]...)
		}
	}
	return path
}
