package batch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
)

// Run runs a tasks file through a queue and a local worker; each task runs as rlm run would.
// Here the tasks are scripts, so no model is needed; the queue is in-process channels
// (batch.NewJetStream over batch.Embedded is what rlm batch uses).
func ExampleRun() {
	dir, err := os.MkdirTemp("", "rlm-batch-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "count.js"), []byte("FINAL(text(context).trim().split(\"\\n\").length + \" lines\")"), 0o644)
	os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(`{"id": "a", "script": "count.js", "files": ["in.txt"]}`+"\n"), 0o644)

	tasks, err := batch.ReadTasks(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := batch.NewMemQueue(len(tasks))
	sum, err := batch.Run(context.Background(), batch.Config{
		Tasks: tasks, Out: filepath.Join(dir, "results.jsonl"), Queue: q,
		Local:    &batch.Worker{Queue: q, Base: rlm.Options{Home: filepath.Join(dir, "home")}},
		OnResult: func(r batch.Result) { fmt.Println(r.ID, r.Status, r.Answer) },
	})
	fmt.Println(sum.Done, "done,", sum.Left, "left,", err)
	// Output:
	// a answered 3 lines
	// 1 done, 0 left, <nil>
}
