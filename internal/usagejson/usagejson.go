// Package usagejson is the JSON form of rlm.Usage: the one usage-and-cost object of rlm run
// --json, batch result lines, the MCP tool rlm_ask's result and the Go API (the README's
// "Usage and cost in JSON" documents it). Its json tags are the field names; its jsonschema
// tags describe the fields to MCP clients, in rlm_ask's output schema.
package usagejson

// Usage is what a run spent. An unknown cost is never 0: CostUSD is nil (null) as soon as one
// call's cost is unknown, and CostUnknownCalls says how many were.
type Usage struct {
	APICalls         int      `json:"api_calls" jsonschema:"model API calls (attempts), retries and sub-runs included"`
	Iterations       int      `json:"iterations" jsonschema:"root model replies (a script run: 1)"`
	SubCalls         int      `json:"sub_calls" jsonschema:"llm_query calls, each prompt of llm_query_batched included"`
	Tokens           int      `json:"tokens" jsonschema:"prompt_tokens + completion_tokens"`
	PromptTokens     int      `json:"prompt_tokens" jsonschema:"tokens sent to the models"`
	CompletionTokens int      `json:"completion_tokens" jsonschema:"tokens the models wrote"`
	CostUSD          *float64 `json:"cost_usd" jsonschema:"the cost in US dollars; null when some call's cost is unknown (an unknown cost is never 0)"`
	CostUnknownCalls int      `json:"cost_unknown_calls" jsonschema:"API calls of unknown cost: no price configured and none reported by the server"`
	CostUSDKnown     float64  `json:"cost_usd_known" jsonschema:"the dollars of the calls of known cost: cost_usd when cost_unknown_calls is 0, else a lower bound"`
	Cost             string   `json:"cost" jsonschema:"the cost as rlm prints it: $0.0123, unknown, or ≥ $0.0123 (2 calls of unknown cost)"`
}
