package rlm_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rlm-sandbox/rlm"
)

// Ask answers a question about a file: a root model writes code that explores it in a confined
// worker. Here the model's side is the README demo's replay script, so the example runs without
// a model or a network; with a real one, set Options.Model instead of Replay.
func ExampleAsk() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	res, err := rlm.Ask(context.Background(), rlm.Options{
		Question: "Which user had the most payment errors, and what went wrong?",
		Files:    []string{"examples/demo/app.log"},
		Lang:     "js",
		Replay:   "examples/demo/model.json",
		Home:     home, // the audit trail, the trace and the log go here
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status)
	fmt.Println(res.Answer)
	fmt.Printf("%d iterations, %d sub-call, %d API calls of %s cost\n", res.Usage.Iterations, res.Usage.SubCalls, res.Usage.Calls, res.Usage.Cost)
	// Output:
	// answered
	// 13 payment errors; u0011 had the most (2). Card payments were declined by the processor (code 51).
	// 2 iterations, 1 sub-call, 3 API calls of unknown cost
}

// A session runs an agent's own code cell by cell, with the same validator, caps and worker as
// a run; state persists across cells.
func ExampleOpenSession() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Files: []string{"examples/demo/app.log"}, Home: home})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	r := s.Exec(ctx, `const errs = search(context, "ERROR svc=payment"); print(errs.length, "payment errors")`)
	fmt.Print(r.Output)
	r = s.Exec(ctx, `FINAL(errs[0].line_text.split(" ")[0])`)
	fmt.Println(*r.Final, r.Vars)
	r = s.Exec(ctx, `require("fs").readFileSync("/etc/passwd")`)
	fmt.Println(r.Error.Kind)
	// Output:
	// 13 payment errors
	// 2026-11-20T08:58:39Z [{errs}]
	// rejected
}
