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
	fmt.Println(*r.Final, r.Vars[0].Label())
	r = s.Exec(ctx, `require("fs").readFileSync("/etc/passwd")`)
	fmt.Println(r.Error.Kind)
	// Output:
	// 13 payment errors
	// 2026-11-20T08:58:39Z errs Array(13)
	// rejected
}

// A saved file runs as one cell of the session; its errors name the file, not the cell.
func ExampleSession_ExecFile() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Home: home})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	r := s.ExecFile(ctx, "solve.js", "let total = 2 + 3\nprint(total)\nnull.boom")
	fmt.Print(r.Output)
	fmt.Println(r.Error.Kind, r.Error.Pos)
	r = s.Exec(ctx, `print(total * 2)`) // the file's variables stay in the session
	fmt.Print(r.Output)
	// Output:
	// 5
	// code solve.js:3:6
	// 10
}

// Vars lists the session's variables between cells, as the last cell's ExecResult.Vars did:
// each with its type, a short rendering of its value, and its length.
func ExampleSession_Vars() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "go", Home: home})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println(len(s.Vars()))
	s.Exec(ctx, "words := []string{\"a\", \"b\"}\nn := len(words)")
	for _, v := range s.Vars() {
		fmt.Println(v.Label(), "=", v.Repr)
	}
	// Output:
	// 0
	// n int = 2
	// words []string(2) = ["a" "b"]
}

// Limits are the caps the session's code is held to: those set in SessionOptions, and the
// defaults for the rest.
func ExampleSession_Limits() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	s, err := rlm.OpenSession(context.Background(), rlm.SessionOptions{Lang: "js", Home: home, Limits: rlm.Limits{PeekChars: 500}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	lim := s.Limits()
	fmt.Println(lim.PeekChars, lim.OutputChars)
	// Output:
	// 500 100000
}

// A Tool is a function of your own that the code calls in both languages, as it calls
// read_file: the parent runs it, never the confined worker, with its arguments checked against
// the declaration (a path parameter resolved inside the roots first), under its timeout and its
// caps on output and calls. The system prompt lists it from the same declaration.
func ExampleTool() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	prices := map[string]int{"A-1": 1250, "B-7": 990}
	price := rlm.Tool{
		Name:        "price",
		Description: "the price of a product, in cents",
		Params:      []rlm.ToolParam{{Name: "sku", Type: rlm.ToolString}},
		Result:      rlm.ToolInt,
		MaxCalls:    2, // per session here; per run in Options.Tools
		Func: func(_ context.Context, args rlm.ToolArgs) (any, error) {
			p, ok := prices[args.String("sku")]
			if !ok {
				return nil, fmt.Errorf("no product %q; the skus are A-1 and B-7", args.String("sku"))
			}
			return p, nil
		},
	}
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "go", Home: home, Tools: []rlm.Tool{price}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	r := s.Exec(ctx, `total := price("A-1") + price("B-7") // typed: func price(sku string) int
fmt.Println(total)`)
	fmt.Print(r.Output)
	r = s.Exec(ctx, `price("A-1")`)
	fmt.Println(r.Error.Kind+":", r.Error.Message)
	// Output:
	// 2240
	// limit: cell.go:1:1: price: cap reached: 2 calls per run; work from the results you have (keep them in variables) instead of calling it again
}
