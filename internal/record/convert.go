package record

import (
	"errors"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// Iteration converts a controller iteration into the trace's record.
func Iteration(it controller.Iteration) trace.Iteration {
	ti := trace.Iteration{Response: it.Response.Text, FinalAnswer: it.Final, Time: it.Took, Forced: it.Forced,
		Usage: trace.Usage{PromptTokens: it.Response.Usage.PromptTokens, CompletionTokens: it.Response.Usage.CompletionTokens, Cost: knownCost(it.Response.Cost)}}
	for _, m := range it.Messages {
		ti.Prompt = append(ti.Prompt, trace.Message{Role: m.Role, Content: m.Content})
	}
	for _, c := range it.Cells {
		cb := trace.CodeBlock{Code: c.Code, Stdout: c.Result.Stdout, Time: c.Took, ErrKind: fault.KindOf(c.Result.Err)}
		if c.Result.Err != nil {
			cb.ErrMsg = c.Result.Err.Error()
			if cb.ErrKind == "" {
				cb.ErrKind = fault.Code
			}
		} else {
			cb.Final = c.Result.Final
		}
		for _, sc := range c.SubCalls {
			cb.SubCalls = append(cb.SubCalls, SubCall(sc))
		}
		cb.Locals = locals(c.Result)
		ti.CodeBlocks = append(ti.CodeBlocks, cb)
	}
	return ti
}

// locals are a block's variables for the trace: each name, with the engine's type and short
// rendering where the worker described it (Result.Locals covers the first names, in order).
func locals(res repl.Result) []trace.Var {
	vars := make([]trace.Var, 0, len(res.Vars))
	for i, name := range res.Vars {
		v := trace.Var{Name: name}
		if i < len(res.Locals) && res.Locals[i].Name == name {
			v.Type, v.Repr = res.Locals[i].Type, res.Locals[i].Repr
		}
		vars = append(vars, v)
	}
	return vars
}

// SubCall converts a controller sub-call into the trace's record.
func SubCall(sc controller.SubCall) trace.SubCall {
	ts := trace.SubCall{Model: sc.Response.Model, Backend: sc.Response.Backend, Prompt: sc.Prompt, Response: sc.Answer, Time: sc.Took,
		Usage: trace.Usage{PromptTokens: sc.Response.Usage.PromptTokens, CompletionTokens: sc.Response.Usage.CompletionTokens, Cost: knownCost(sc.Response.Cost)}}
	if sc.Err != nil {
		ts.Error = sc.Err.Error()
	}
	return ts
}

// APICall is one model API attempt's row for the api_calls table: its model and backend, its
// tokens and their source, and its cost (nil, stored as NULL, when unknown).
func APICall(task string, c llm.Call) audit.APICall {
	return audit.APICall{Task: task, Agent: c.Agent, Model: c.Model, Backend: c.Backend, PromptTokens: c.PromptTokens,
		CompletionTokens: c.CompletionTokens, CachedTokens: c.CachedTokens, Source: c.Source, CostUSD: knownCost(c.Cost),
		Latency: c.Latency, Status: c.Status, Error: c.Err, At: c.At}
}

// Spent is a task's spent figures for the tasks table.
func Spent(s llm.Spent) audit.Spent {
	return audit.Spent{Calls: s.Calls, Tokens: s.Tokens, CostUSD: s.Cost.USD, CostUnknown: s.Cost.Unknown}
}

// knownCost is c in dollars when it is wholly known, else nil.
func knownCost(c llm.Cost) *float64 {
	if !c.Known() {
		return nil
	}
	usd := c.USD
	return &usd
}

// Step is a cell's row for the steps table. noValidate marks a run without the validator.
func Step(task string, c controller.Cell, noValidate bool) audit.Step {
	res := c.Result
	dec := audit.Accepted
	switch {
	case errors.Is(res.Err, fault.Rejected):
		dec = audit.Rejected
	case noValidate:
		dec = audit.Skipped
	}
	s := audit.Step{Task: task, Step: c.Step, Attempt: c.Index + 1, Code: c.Code, Output: res.Stdout, Decision: dec, ErrorKind: fault.KindOf(res.Err)}
	if dec == audit.Rejected {
		s.Findings = res.Err.Error()
	}
	return s
}

// SubCallRow is a sub-call's row for the tool_calls table; promptFile is where its prompt was
// saved.
func SubCallRow(task string, sc controller.SubCall, promptFile string) audit.ToolCall {
	errText := ""
	if sc.Err != nil {
		errText = sc.Err.Error()
	}
	return audit.ToolCall{Task: task, Step: sc.Step, Name: "llm_query", Args: map[string]any{"prompt_file": promptFile, "prompt_chars": len(sc.Prompt)},
		Result: clipText(sc.Answer, 200), Error: errText, Duration: sc.Took}
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
