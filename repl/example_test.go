package repl

import (
	"context"
	"fmt"
)

// exampleWorker makes this test binary act as the rlm worker; a program that embeds the engine
// leaves Options.Worker zero, and its own binary serves the hidden "__worker" subcommand by
// calling Serve.
var exampleWorker = WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_REPL_TEST_WORKER=confined"}}

// A session keeps state across cells; each cell is validated and run in a confined worker.
func ExampleSession() {
	ctx := context.Background()
	s, err := Open(ctx, Options{Lang: "js", Worker: exampleWorker})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	s.Exec(ctx, `const words = "to be or not to be".split(" ")`)
	r := s.Exec(ctx, `FINAL(words.filter(w => w === "be").length)`)
	fmt.Println(*r.Final)
	r = s.Exec(ctx, `eval("1")`)
	fmt.Println(r.Err)
	// Output:
	// 2
	// cell.js:1:1: evaluator: use of eval; write the code directly; eval and Function are not available
}

// When the worker dies, the session rebuilds its state by replaying the cells that succeeded.
func ExampleResult_rebuilt() {
	ctx := context.Background()
	s, err := Open(ctx, Options{Lang: "go", Worker: exampleWorker, AllowDegraded: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	s.Exec(ctx, `total := 40`)
	r := s.Exec(ctx, `func f(n int) int { return f(n+1) + 1 }
f(0)`) // unbounded recursion: a fatal stack overflow that kills the worker
	fmt.Println(r.Rebuilt, r.Lost == nil)
	r = s.Exec(ctx, `fmt.Println(total + 2)`)
	fmt.Print(r.Stdout)
	// Output:
	// true true
	// 42
}
