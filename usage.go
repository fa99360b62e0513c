package rlm

import (
	"encoding/json"

	"github.com/rlm-sandbox/rlm/internal/usagejson"
	"github.com/rlm-sandbox/rlm/llm"
)

// Usage is what a run spent: every model API call (retries and sub-runs included), as the
// model client counts it, with the run's iterations and sub-calls.
//
// Its JSON form is rlm's one usage object, the same in rlm run --json, batch result lines, the
// MCP tool rlm_ask and a marshalled Result (the README's "Usage and cost in JSON"):
//
//	{"api_calls": 3, "iterations": 2, "sub_calls": 1, "tokens": 5135, "prompt_tokens": 4836,
//	 "completion_tokens": 299, "cost_usd": null, "cost_unknown_calls": 3, "cost_usd_known": 0,
//	 "cost": "unknown"}
//
// cost_usd is null as soon as one call's cost is unknown, never 0.
type Usage struct {
	Calls            int // API calls (attempts)
	Tokens           int // PromptTokens + CompletionTokens
	PromptTokens     int
	CompletionTokens int
	// Cost is in US dollars; llm.Cost keeps calls of unknown cost apart, so that unknown is
	// never shown as $0 (Cost.String).
	Cost       llm.Cost
	Iterations int // root model replies (a script run: 1)
	SubCalls   int // llm_query calls, each prompt of llm_query_batched included
}

// usageOf is the Usage of what a run's client spent.
func usageOf(sp llm.Spent, iterations, subCalls int) Usage {
	return Usage{Calls: sp.Calls, Tokens: sp.Tokens, PromptTokens: sp.PromptTokens, CompletionTokens: sp.CompletionTokens,
		Cost: sp.Cost, Iterations: iterations, SubCalls: subCalls}
}

// MarshalJSON writes the usage object.
func (u Usage) MarshalJSON() ([]byte, error) {
	w := usagejson.Usage{APICalls: u.Calls, Iterations: u.Iterations, SubCalls: u.SubCalls, Tokens: u.Tokens,
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		CostUnknownCalls: u.Cost.Unknown, CostUSDKnown: u.Cost.USD, Cost: u.Cost.String()}
	if u.Cost.Known() {
		w.CostUSD = &u.Cost.USD
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the usage object (a batch reads its remote workers' results so).
func (u *Usage) UnmarshalJSON(b []byte) error {
	var w usagejson.Usage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	usd := w.CostUSDKnown
	if w.CostUSD != nil && w.CostUnknownCalls == 0 {
		usd = *w.CostUSD
	}
	*u = Usage{Calls: w.APICalls, Tokens: w.Tokens, PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens,
		Cost: llm.Cost{USD: usd, Unknown: w.CostUnknownCalls}, Iterations: w.Iterations, SubCalls: w.SubCalls}
	return nil
}
