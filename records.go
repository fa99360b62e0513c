package rlm

// The run's events, as the controller reports them, converted into the records package record
// writes: this package knows both, so neither has to know the other.

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/record"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/trace"
)

// iterationRecord converts a controller iteration into the trace's record.
func iterationRecord(it controller.Iteration) trace.Iteration {
	ti := trace.Iteration{Response: it.Response.Text, FinalAnswer: it.Final, Time: it.Took, Forced: it.Forced,
		Usage: trace.Usage{PromptTokens: it.Response.Usage.PromptTokens, CompletionTokens: it.Response.Usage.CompletionTokens, Cost: record.Cost(it.Response.Cost)}}
	for _, m := range it.Messages {
		ti.Prompt = append(ti.Prompt, trace.Message{Role: m.Role, Content: m.Content})
	}
	for _, c := range it.Cells {
		cb := trace.CodeBlock{Code: c.Code, Stdout: c.Result.Stdout, Time: c.Took, ErrKind: fault.Classify(c.Result.Err)}
		if c.Result.Err != nil {
			cb.ErrMsg = c.Result.Err.Error()
		} else {
			cb.Final = c.Result.Final
		}
		for _, sc := range c.SubCalls {
			cb.SubCalls = append(cb.SubCalls, subCallRecord(sc))
		}
		cb.Locals = localsRecord(c.Result)
		ti.CodeBlocks = append(ti.CodeBlocks, cb)
	}
	return ti
}

// localsRecord are a block's variables for the trace: each name, with the engine's type and short
// rendering where the worker described it (Result.Locals covers the first names, in order).
func localsRecord(res repl.Result) []trace.Var {
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

// subCallRecord converts a controller sub-call into the trace's record.
func subCallRecord(sc controller.SubCall) trace.SubCall {
	ts := trace.SubCall{Model: sc.Response.Model, Backend: sc.Response.Backend, Prompt: sc.Prompt, Response: sc.Answer, Time: sc.Took,
		Usage: trace.Usage{PromptTokens: sc.Response.Usage.PromptTokens, CompletionTokens: sc.Response.Usage.CompletionTokens, Cost: record.Cost(sc.Response.Cost)}}
	if sc.Err != nil {
		ts.Error = sc.Err.Error()
	}
	return ts
}

// stepRow is a cell's row for the steps table. noValidate marks a run without the validator.
func stepRow(task string, c controller.Cell, noValidate bool) audit.Step {
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

// subCallRow is a sub-call's row for the tool_calls table; promptFile is where its prompt was
// saved.
func subCallRow(task string, sc controller.SubCall, promptFile string) audit.ToolCall {
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

// toolRows are a cell's rows for the tool_calls table: its first calls one by one (the session
// keeps the first 100), then one row per tool with the number of calls not recorded one by one.
// Sub-calls are left out: they are recorded as they end, with their prompt files.
func toolRows(task string, step int, res repl.Result) []audit.ToolCall {
	var rows []audit.ToolCall
	logged := map[string]int{}
	for _, tc := range res.Tools {
		logged[tc.Name]++
		if isSubCall(tc.Name) {
			continue
		}
		rows = append(rows, audit.ToolCall{Task: task, Step: step, Name: tc.Name, Args: tc.Args, Result: tc.Result, Error: tc.Err})
	}
	names := slices.Sorted(maps.Keys(res.ToolCounts))
	for _, name := range names {
		n := res.ToolCounts[name]
		if more := n - logged[name]; more > 0 && !isSubCall(name) {
			rows = append(rows, audit.ToolCall{Task: task, Step: step, Name: name,
				Args:   map[string]int{"calls": n, "recorded": logged[name]},
				Result: fmt.Sprintf("%d more %s calls in this cell, counted but not recorded one by one", more, name)})
		}
	}
	return rows
}

// isSubCall reports whether the registry places name in the parent (engine.InParent): the
// sub-calls, whose host records each one as it ends.
func isSubCall(name string) bool {
	f, _ := engine.Lookup(name)
	return f.Place == engine.InParent
}
