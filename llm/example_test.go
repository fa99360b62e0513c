package llm_test

import (
	"context"
	"fmt"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// A client against the fake server: the small model loops, the monitor
// aborts it early, and the large model answers.
func Example() {
	srv := llmtest.New(
		llmtest.Reply{Kind: llmtest.Loop, Model: "small"},
		llmtest.Reply{Text: "The file has 42 errors.", Model: "large", PromptTokens: 12},
	)
	defer srv.Close()

	c, err := llm.New(llm.Config{
		BaseURL: srv.URL(),
		APIKey:  "sk-example-not-a-real-key",
		Models:  []string{"small", "large"},
		Observer: func(call llm.Call) {
			fmt.Printf("call: %s %s\n", call.Model, call.Status)
		},
	})
	if err != nil {
		panic(err)
	}
	resp, err := c.Complete(context.Background(), llm.Request{
		Agent:    "root",
		Messages: []llm.Message{{Role: "user", Content: "How many errors are in the log?"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text)
	fmt.Println("model:", resp.Model, "escalations:", resp.Escalations)
	fmt.Println("usage:", resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.Source)
	fmt.Println("calls spent:", c.Spent().Calls)
	// Output:
	// call: small early_abort
	// call: large ok
	// The file has 42 errors.
	// model: large escalations: [small: loop]
	// usage: 12 6 usage
	// calls spent: 2
}
