package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/usagejson"
	"github.com/rlm-sandbox/rlm/limits"
)

const askDoc = `Answer a question about files with a whole Recursive Language Model run: rlm's root model writes code that explores the files in a confined sandbox, calls sub-models on the parts that matter, and records the answer. Use it for questions over inputs too large to read (logs, dumps, corpora). Returns the answer, the usage (API calls, iterations, sub-calls, tokens, and the cost: cost_usd is null when some call's cost is unknown, and cost_unknown_calls says how many), the task id and the trace (also a resource, rlm://trace/TASK_ID).
Progress goes out as notifications when you send a progress token; cancelling the request stops the run. The server's budgets bound every run; limits may only lower them.`

type askInput struct {
	Question string     `json:"question" jsonschema:"the question, in plain words"`
	Files    []string   `json:"files,omitempty" jsonschema:"the files the question is about (text); absolute, or relative to the server's first root"`
	Lang     string     `json:"lang,omitempty" jsonschema:"the language the root model writes: go (default) or js"`
	Mode     string     `json:"mode,omitempty" jsonschema:"auto (default: inputs under 50,000 characters go to the model in one call), direct (one call), or loop (the code loop whatever the size)"`
	Roots    []string   `json:"roots,omitempty" jsonschema:"more directories the run's file tools may read"`
	Limits   *askLimits `json:"limits,omitempty" jsonschema:"lower caps for this run; each at most the server's"`
}

type askLimits struct {
	MaxIterations      *int     `json:"max_iterations,omitempty" jsonschema:"root iterations before the forced final answer: 1 to the server's cap"`
	MaxSubCalls        *int     `json:"max_sub_calls,omitempty" jsonschema:"llm_query calls, batched slots included: 1 to the server's cap"`
	MaxCalls           *int     `json:"max_calls,omitempty" jsonschema:"model API calls, retries and sub-calls included: 1 to the server's cap"`
	MaxTokens          *int     `json:"max_tokens,omitempty" jsonschema:"prompt and completion tokens: 1 to the server's cap"`
	TimeoutSeconds     *float64 `json:"timeout_seconds,omitempty" jsonschema:"the run's wall clock in seconds: 0.001 to the server's cap"`
	CellTimeoutSeconds *float64 `json:"cell_timeout_seconds,omitempty" jsonschema:"deadline of each code block in seconds: 0.001 to the server's cap"`
}

type askOutput struct {
	Status        string       `json:"status" jsonschema:"answered or failed"`
	Answer        string       `json:"answer,omitempty"`
	Error         *rlm.Failure `json:"error,omitempty" jsonschema:"how the run failed: kind and message"`
	Usage         rlm.Usage    `json:"usage"`
	TaskID        string       `json:"task_id" jsonschema:"the run's id in the audit trail (rlm trace view TASK_ID draws it)"`
	Trace         string       `json:"trace" jsonschema:"the JSONL trace's path"`
	TraceResource string       `json:"trace_resource" jsonschema:"the trace as a resource of this server"`
	Isolation     string       `json:"isolation,omitempty" jsonschema:"the worker's confinement verdict"`
	Workspace     string       `json:"workspace,omitempty" jsonschema:"where the run's code wrote files, if it did"`
	DurationMS    int64        `json:"duration_ms"`
}

func (s *Server) addAsk() {
	addTool(s, &mcp.Tool{Name: "rlm_ask", Title: "Answer a question about files (RLM run)", Description: askDoc,
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true), DestructiveHint: ptr(false)}, OutputSchema: askOutputSchema()},
		map[string][]any{"lang": langEnum, "mode": {"auto", "direct", "loop"}},
		func(in askInput) any { return in }, s.ask)
}

// askOutputSchema is rlm_ask's output schema, with "usage" as rlm.Usage marshals it (the
// fields of package usagejson), where reflection would see its Go fields.
func askOutputSchema() *jsonschema.Schema {
	usage, err := jsonschema.For[usagejson.Usage](nil)
	if err == nil {
		usage.Description = "what the run spent, as rlm run --json and batch result lines state it"
		var out *jsonschema.Schema
		out, err = jsonschema.For[askOutput](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[rlm.Usage](): usage}})
		if err == nil {
			return out
		}
	}
	panic(fmt.Sprintf("mcpserver: rlm_ask's output schema: %v", err)) // a programming error, caught by every test
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in askInput) (*mcp.CallToolResult, askOutput, error) {
	var out askOutput
	if len(s.opts.Model.Models) == 0 && s.opts.Replay == "" {
		return nil, out, fault.New(fault.Limit, "rlm_ask needs a model, and this server has none configured: the user must set RLM_BASE_URL, RLM_API_KEY and RLM_MODEL in the server's environment (the \"env\" of its MCP configuration) or start it with --model; sandbox_open works without a model")
	}
	if strings.TrimSpace(in.Question) == "" {
		return nil, out, fault.New(fault.Schema, "question is empty: ask a question about the files")
	}
	opts, err := s.askOptions(in)
	if err != nil {
		return nil, out, err
	}
	sl, err := s.reserve(req.Session)
	if err != nil {
		return nil, out, err
	}
	defer sl.release()
	// A client's cancellation stops the run as SIGINT stops rlm run, with a cause that says who.
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() {
		cancel(fault.Wrap(fault.Canceled, context.Cause(ctx), "the MCP client cancelled the request"))
	})
	defer stop()
	opts.OnEvent = s.progress(ctx, req)
	res, err := await(s, ctx, func() (rlm.Result, error) { return rlm.Ask(rctx, opts) }, func(res rlm.Result, _ error) {
		if res.TaskID != "" { // a run that ended after its call was abandoned
			s.addTrace(res.TaskID, res.Trace, in.Question, req.Session)
		}
	})
	if res.TaskID == "" { // refused before anything was recorded, or abandoned
		return nil, out, askError(err)
	}
	s.addTrace(res.TaskID, res.Trace, in.Question, req.Session)
	out = askOutput{Status: string(res.Status), Answer: res.Answer, Error: res.Error, TaskID: res.TaskID, Trace: res.Trace,
		TraceResource: traceURI(res.TaskID), Isolation: res.Isolation, Workspace: res.Workspace, DurationMS: res.Duration.Milliseconds(),
		Usage: res.Usage}
	return textResult(askText(out), out.Error != nil), out, nil
}

// askOptions are a run's options: the server's, lowered by the client's limits.
func (s *Server) askOptions(in askInput) (rlm.Options, error) {
	files, err := s.allowed("files", in.Files)
	if err != nil {
		return rlm.Options{}, err
	}
	roots, err := s.allowed("roots", in.Roots)
	if err != nil {
		return rlm.Options{}, err
	}
	mode, err := modeOf(in.Mode)
	if err != nil {
		return rlm.Options{}, err
	}
	o := rlm.Options{Question: in.Question, Files: files, Roots: roots, Lang: in.Lang, Mode: mode, Home: s.opts.Home,
		Model: s.opts.Model, Replay: s.opts.Replay, Limits: s.opts.Limits, MaxIterations: s.opts.MaxIterations, MaxRuns: s.opts.MaxRuns,
		Timeout: s.opts.Timeout, CellTimeout: s.opts.CellTimeout, AllowDegraded: s.opts.AllowDegraded, NoLog: s.opts.NoLog, Quiet: true, Tools: s.opts.Tools,
		Convert: s.opts.Convert}
	if in.Limits == nil {
		return o, nil
	}
	l := *in.Limits
	caps := []struct {
		name      string
		v         *int
		cap       int
		set       func(int)
		configure string
	}{
		{"max_iterations", l.MaxIterations, limits.Or(s.opts.MaxIterations, limits.MaxIterations), func(n int) { o.MaxIterations = n }, "--max-iterations"},
		{"max_sub_calls", l.MaxSubCalls, s.opts.Limits.Effective().SubCalls, func(n int) { o.Limits.SubCalls = n }, "--max-subcalls"},
		{"max_calls", l.MaxCalls, s.caps.Calls, func(n int) { o.Model.MaxCalls = n }, "--max-calls"},
		{"max_tokens", l.MaxTokens, s.caps.Tokens, func(n int) { o.Model.MaxTokens = n }, "--max-tokens"},
	}
	for _, c := range caps {
		n, err := count("limits."+c.name, c.v, c.cap, c.configure)
		if err != nil {
			return o, err
		}
		if n > 0 {
			c.set(n)
		}
	}
	if o.Timeout, err = seconds("limits.timeout_seconds", l.TimeoutSeconds, s.runTimeout()); err != nil {
		return o, err
	}
	if o.CellTimeout, err = seconds("limits.cell_timeout_seconds", l.CellTimeoutSeconds, s.cellTimeout()); err != nil {
		return o, err
	}
	return o, nil
}

func (s *Server) runTimeout() time.Duration {
	if s.opts.Timeout > 0 {
		return s.opts.Timeout
	}
	return limits.RunTimeout // rlm.Options' default
}

func modeOf(m string) (rlm.Mode, error) {
	switch m {
	case "", "auto":
		return rlm.Auto, nil
	case "direct":
		return rlm.Direct, nil
	case "loop":
		return rlm.Loop, nil
	}
	return 0, fault.New(fault.Schema, "mode %q: want auto, direct or loop", m)
}

// askError is the message of a run refused before it started, naming the argument to fix.
func askError(err error) error {
	var oe *rlm.OptionError
	if errors.As(err, &oe) {
		switch oe.Option {
		case "Lang":
			return fault.New(fault.Schema, "lang: %v", oe.Err)
		case "Files":
			return fault.New(fault.Schema, "files: %v", oe.Err)
		case "Model", "Replay":
			return fault.New(fault.Schema, "the server's model configuration: %v (the user must fix the server's environment or flags)", oe.Err)
		}
	}
	return err
}

func askText(o askOutput) string {
	var b strings.Builder
	if o.Error != nil {
		fmt.Fprintf(&b, "The run failed (%s): %s\n", o.Error.Kind, o.Error.Message)
	} else {
		fmt.Fprintf(&b, "%s\n", o.Answer)
	}
	u := o.Usage
	fmt.Fprintf(&b, "\n(task %s: %d iterations, %d sub-calls, %d API calls, %d tokens, cost %s, %s; trace %s)\n",
		o.TaskID, u.Iterations, u.SubCalls, u.Calls, u.Tokens, u.Cost, time.Duration(o.DurationMS)*time.Millisecond, o.TraceResource)
	return b.String()
}

// progress sends a run's events as progress notifications, when the request asked for them.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) func(rlm.Event) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	n := 0
	return func(e rlm.Event) {
		msg := eventMessage(e)
		if msg == "" {
			return
		}
		n++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
	}
}

// eventMessage is one progress line of a run ("" for events not worth a notification).
func eventMessage(e rlm.Event) string {
	switch e.Kind {
	case rlm.EventCell:
		c := e.Cell
		if c.Result.Error != nil {
			return fmt.Sprintf("iteration %d, block %d: %s error", e.Step, c.Index+1, c.Result.Error.Kind)
		}
		return fmt.Sprintf("iteration %d, block %d: ran in %s, %d characters of output", e.Step, c.Index+1, c.Took.Round(time.Millisecond), len(c.Result.Output))
	case rlm.EventSubCall:
		return fmt.Sprintf("iteration %d: sub-call answered (%d tokens)", e.Step, e.SubCall.Tokens)
	case rlm.EventModelCall:
		return ""
	}
	return e.Message
}
