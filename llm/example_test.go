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

// A root model on one backend and a cheaper sub-call model on another
// (here Anthropic's API, faked), each priced: every Call names its model and
// backend and carries its cost; the budgets cover both.
func Example_twoBackends() {
	root := llmtest.New(llmtest.Reply{Text: "Plan: split the log.", PromptTokens: 2000})
	defer root.Close()
	sub := llmtest.NewAnthropic(llmtest.Reply{Text: "12 errors.", PromptTokens: 500})
	defer sub.Close()

	c, err := llm.New(llm.Config{
		BaseURL: root.URL(), APIKey: "sk-example-root",
		Models: []string{"big"}, SubModels: []string{"cheap"},
		Endpoints: map[string]llm.Endpoint{
			"claude": {Provider: llm.ProviderAnthropic, BaseURL: sub.URL(), APIKey: "sk-ant-example"},
		},
		Catalog: map[string]llm.ModelConfig{
			"big":   {Price: &llm.Price{In: 2.5, Out: 10}},
			"cheap": {Endpoint: "claude", ID: "claude-haiku", Price: &llm.Price{In: 1, Out: 5}},
		},
		MaxCost: 0.50,
		Observer: func(call llm.Call) {
			fmt.Printf("call: %s on %s, %d+%d tokens, %s\n", call.Model, call.Backend, call.PromptTokens, call.CompletionTokens, call.Cost)
		},
	})
	if err != nil {
		panic(err)
	}
	msgs := []llm.Message{{Role: "user", Content: "Count the errors."}}
	if _, err := c.Complete(context.Background(), llm.Request{Agent: "root", Messages: msgs}); err != nil {
		panic(err)
	}
	resp, err := c.Complete(context.Background(), llm.Request{Agent: "sub", Ladder: llm.Sub, Messages: msgs})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text)
	sp := c.Spent()
	fmt.Println("spent:", sp.Calls, "calls,", sp.Tokens, "tokens,", sp.Cost)
	// Output:
	// call: big on default, 2000+6 tokens, $0.00506
	// call: cheap on claude, 500+3 tokens, $0.000515
	// 12 errors.
	// spent: 2 calls, 2509 tokens, $0.005575
}
