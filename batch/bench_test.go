package batch_test

import (
	"context"
	"testing"

	"github.com/rlm-sandbox/rlm/batch"
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
			q := queues[name](b, home)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, live, err := q.Results(ctx, "bench")
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
