package record

import (
	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/llm"
)

// APICall is one model API attempt's row for the api_calls table: its model and backend, its
// tokens and their source, and its cost (nil, stored as NULL, when unknown).
func APICall(task string, c llm.Call) audit.APICall {
	return audit.APICall{Task: task, Agent: c.Agent, Model: c.Model, Backend: c.Backend, PromptTokens: c.PromptTokens,
		CompletionTokens: c.CompletionTokens, CachedTokens: c.CachedTokens, Source: c.Source, CostUSD: Cost(c.Cost),
		Latency: c.Latency, Status: c.Status, Error: c.Err, At: c.At}
}

// Spent is a task's spent figures for the tasks table.
func Spent(s llm.Spent) audit.Spent {
	return audit.Spent{Calls: s.Calls, Tokens: s.Tokens, CostUSD: s.Cost.USD, CostUnknown: s.Cost.Unknown}
}

// Cost is c in dollars when it is wholly known, else nil.
func Cost(c llm.Cost) *float64 {
	if !c.Known() {
		return nil
	}
	usd := c.USD
	return &usd
}
