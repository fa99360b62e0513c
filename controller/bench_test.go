package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/repl"
)

// BenchmarkBatchedOverhead measures llm_query_batched of 32 prompts against a fake backend over
// real HTTP whose every reply takes 200 ms, through the real client and a confined session. The
// ideal is 32/4 waves × 200 ms = 1.6 s; the "x-ideal" metric is wall time over that.
//
//	go test ./controller -run '^$' -bench BatchedOverhead -benchtime 3x
func BenchmarkBatchedOverhead(b *testing.B) {
	const latency = 200 * time.Millisecond
	srv := llmtest.New()
	defer srv.Close()
	srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		if strings.HasPrefix(r.LastUser(), "P") {
			return llmtest.Reply{Text: "ok " + r.LastUser(), Latency: latency}
		}
		return llmtest.Reply{Text: "```repl\nconst ps = []; for (let i = 0; i < 32; i++) ps.push(\"P\" + i);\nconst rs = llm_query_batched(ps);\nFINAL(rs.filter(r => r.startsWith(\"ok P\")).length)\n```"}
	})
	ideal := time.Duration(32/limits.BatchWidth) * latency
	var total time.Duration
	for b.Loop() {
		client, err := llm.New(llm.Config{BaseURL: srv.URL(), Models: []string{"fake"}, MaxCalls: 200, MaxTokens: 10_000_000})
		if err != nil {
			b.Fatal(err)
		}
		h := &timedHost{}
		cfg := Config{Question: "q", Model: client, Mode: Loop, Observer: h,
			Session: repl.Options{Lang: "js", Contexts: []string{bigContextB(b)}, Worker: testWorker}}
		out := Run(context.Background(), cfg)
		if out.Err != nil || out.Answer != "32" {
			b.Fatalf("got %q, %v; want 32 answers", out.Answer, out.Err)
		}
		total += h.cell
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(ideal), "x-ideal")
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-batch")
}

// timedHost records how long the cell with the batch took.
type timedHost struct {
	nopObserver
	cell time.Duration
}

func (h *timedHost) Cell(c Cell) { h.cell += c.Took }

// BenchmarkIteration measures the controller's own cost per root iteration, the model's latency
// excluded: an instant scripted model, a confined JS session, and cells that print one line.
//
//	go test ./controller -run '^$' -bench Iteration -count 5
func BenchmarkIteration(b *testing.B) {
	const iters = 10
	ctxFile := bigContextB(b)
	var perIter []time.Duration
	for b.Loop() {
		replies := make([]string, 0, iters)
		for i := range iters - 1 {
			replies = append(replies, fenced("repl", fmt.Sprintf("print(%d, length(context))", i)))
		}
		replies = append(replies, fenced("repl", `FINAL("done")`))
		m := &scripted{replies: replies}
		cfg := Config{Question: "q", Model: m, Mode: Loop, Session: repl.Options{Lang: "js", Contexts: []string{ctxFile}, Worker: testWorker}}
		h := &iterTimer{}
		cfg.Observer = h
		out := Run(context.Background(), cfg)
		if out.Err != nil || out.Iterations != iters {
			b.Fatalf("got %v after %d iterations", out.Err, out.Iterations)
		}
		perIter = append(perIter, h.total/iters)
	}
	b.ReportMetric(float64(median(perIter).Microseconds()), "µs/iteration")
}

type iterTimer struct {
	nopObserver
	total time.Duration
}

func (h *iterTimer) Iteration(it Iteration) { h.total += it.Took }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func bigContextB(b *testing.B) string { return writeBig(b.TempDir()) }
