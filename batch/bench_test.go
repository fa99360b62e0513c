package batch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// BenchmarkQueue is the queue's own cost per task: publish a job, take it, finish it with a
// result and read the result back, with no run in between. The in-process channel queue
// against embedded JetStream (in-process connection, file storage).
//
//	go test ./batch -run '^$' -bench Queue -benchtime 2000x
func BenchmarkQueue(b *testing.B) {
	for _, name := range []string{"mem", "jetstream"} {
		b.Run(name, func(b *testing.B) {
			home := b.TempDir()
			q, _ := queues[name](b, home)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			live, err := q.Results(ctx, "bench", func(batch.Result) error { return nil })
			if err != nil {
				b.Fatal(err)
			}
			in, err := q.Store(ctx, writeTasks(b, home, 1))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				j := batch.Job{Batch: "bench", ID: "t", Question: "q", Files: []batch.Input{in}}
				if err := q.Publish(ctx, j); err != nil {
					b.Fatal(err)
				}
				d, err := q.Take(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Finish(ctx, batch.Result{ID: d.Job().ID, Status: "answered"}); err != nil {
					b.Fatal(err)
				}
				<-live
			}
		})
	}
}

// BenchmarkThroughput runs 16 tasks per iteration through embedded JetStream and a local
// Worker (rlm.Ask, as rlm batch does) against the fake model answering after 200 ms, at
// --parallel 1, 2 and 4, and reports tasks per minute and their ratio to the ideal (parallel
// × 300/min: the model's latency alone). direct: one model call per task (a small input);
// loop: the REPL loop, a confined worker process per task running the model's one cell.
//
//	go test ./batch -run '^$' -bench Throughput -benchtime 1x
func BenchmarkThroughput(b *testing.B) {
	const n, latency = 16, 200 * time.Millisecond
	for _, mode := range []string{"direct", "loop"} {
		for _, p := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/parallel=%d", mode, p), func(b *testing.B) {
				srv := llmtest.New()
				srv.SetHandler(func(llmtest.RecordedRequest) llmtest.Reply {
					if mode == "loop" {
						return llmtest.Reply{Text: "```repl\nFINAL(\"n=\" + length(context))\n```", Latency: latency}
					}
					return llmtest.Reply{Text: "42", Latency: latency}
				})
				defer srv.Close()
				base := rlm.Options{Home: filepath.Join(b.TempDir(), "home"), Quiet: true, NoLog: true, Lang: "js",
					Model: llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"fake"}}}
				if mode == "loop" {
					base.Mode = rlm.Loop
				}
				var took time.Duration
				for i := 0; b.Loop(); i++ {
					dir := b.TempDir()
					tasks, err := batch.ReadTasks(writeTasks(b, dir, n))
					if err != nil {
						b.Fatal(err)
					}
					q, closeQ := queues["jetstream"](b, dir)
					start := time.Now()
					sum, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: filepath.Join(dir, "r.jsonl"), Queue: q,
						Local: &batch.Worker{Queue: q, Base: base, Parallel: p}})
					took += time.Since(start)
					closeQ()
					if err != nil || sum.Done != n || sum.Failed != 0 {
						b.Fatalf("%+v, %v; first result %+v", sum, err, readResults(b, filepath.Join(dir, "r.jsonl"))[0].Error)
					}
				}
				perMin := float64(n*b.N) / took.Minutes()
				b.ReportMetric(perMin, "tasks/min")
				b.ReportMetric(perMin/(float64(p)*float64(time.Minute/latency)), "of-ideal")
			})
		}
	}
}
