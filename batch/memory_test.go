package batch_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/batch"
)

// TestMemoryPerTask: a batch's memory does not grow with the results it writes. 4,000 tasks
// go through the in-process queue to workers that answer each at once with a 1 KB answer (the
// coordinator's work without the runs'); the live heap after the last result may exceed the one
// after the first 1,000 by at most maxPerTask bytes per task in between. Keeping each result in
// memory cost about 1.3 KB a task.
func TestMemoryPerTask(t *testing.T) {
	const n, from, maxPerTask = 4000, 1000, 64
	dir := t.TempDir()
	tasks, err := batch.ReadTasks(writeTasks(t, dir, n))
	if err != nil {
		t.Fatal(err)
	}
	q := batch.NewMemQueue(n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answer := strings.Repeat("a", 1000)
	for range 2 {
		go func() {
			for {
				d, err := q.Take(ctx)
				if err != nil {
					return
				}
				id := d.Job().ID
				_ = d.Finish(ctx, batch.Result{ID: id, Status: "answered", Answer: answer + id, TaskID: "20260101-000000-" + id,
					Trace: filepath.Join(dir, "traces", "rlm_"+id+".jsonl"), Worker: "host:1", Attempt: 1})
			}
		}()
	}
	var got int
	var base, end uint64
	cfg := batch.Config{Tasks: tasks, Out: filepath.Join(dir, "results.jsonl"), Queue: q, OnResult: func(batch.Result) {
		switch got++; got {
		case from:
			base = liveHeap()
		case n:
			end = liveHeap()
		}
	}}
	if sum, err := batch.Run(ctx, cfg); err != nil || sum.Done != n {
		t.Fatalf("%s, %v", sum, err)
	}
	per := (int64(end) - int64(base)) / (n - from)
	t.Logf("live heap %d KB after %d results, %d KB after %d: %d bytes a task", base>>10, from, end>>10, n, per)
	if per > maxPerTask {
		t.Errorf("the live heap grew by %d bytes a task from result %d to %d; want at most %d", per, from, n, maxPerTask)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
