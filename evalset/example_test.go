package evalset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rlm-sandbox/rlm/evalset"
)

// A runner generates each task's input into a file, asks the model, and summarises the outcomes.
func Example() {
	dir, err := os.MkdirTemp("", "evalset")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	var outcomes []evalset.Outcome
	for i, spec := range evalset.Suite([]int64{10 * evalset.KB})[3:5] {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			fmt.Println(err)
			return
		}
		task, err := evalset.Generate(f, spec)
		f.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(task.ID, "|", task.Answer)
		// Here the runner would ask its model task.Question with the file as the context.
		answer := "It is " + task.Answer + "."
		outcomes = append(outcomes, evalset.Outcome{Task: task, Answer: answer, Tokens: 1200, Calls: 3, Wall: 2 * time.Second})
	}
	evalset.Summarize(outcomes).Format(os.Stdout)
	// Output:
	// niah-log-10KB-d30-x8-s4010012 | 4783216
	// agg-count-10KB-s5010015 | 11
	// kind       size  tasks  accuracy  errors  tokens/task  calls/task  wall/task
	// niah       10KB      1     1.000       0         1200         3.0         2s
	// agg-count  10KB      1     1.000       0         1200         3.0         2s
	// total       all      2     1.000       0         1200         3.0         2s
	// total: 2 tasks, accuracy 1.000, 2400 tokens, 6 calls, 4s wall
}

func ExampleScore() {
	task := evalset.Task{Kind: evalset.KindCount, Answer: "42"}
	for _, a := range []string{"42", "There are 43 such tickets.", "40", "no idea"} {
		fmt.Printf("%q: %.4f\n", a, evalset.Score(task, a))
	}
	// Output:
	// "42": 1.0000
	// "There are 43 such tickets.": 0.7500
	// "40": 0.5625
	// "no idea": 0.0000
}
