package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
)

const validateDoc = `Check Go or JavaScript code against the sandbox's policy without running it: the same validator every sandbox_exec cell and rlm_ask block passes, run in a confined worker under a deadline. Returns ok, or the findings, each with its position (name:line:col), rule and a message that says what to write instead.`

type validateInput struct {
	Code string `json:"code" jsonschema:"the source to check"`
	Lang string `json:"lang" jsonschema:"go or js"`
	Name string `json:"name,omitempty" jsonschema:"a file name for the positions (default cell.go or cell.js)"`
}

type validateOutput struct {
	OK       bool      `json:"ok" jsonschema:"true when the policy accepts the code"`
	Findings []finding `json:"findings"`
}

type finding struct {
	Pos     string `json:"pos" jsonschema:"name:line:col"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Rule    string `json:"rule"`
	Message string `json:"message" jsonschema:"what is wrong, and what to do instead"`
}

// The bounds of the validate tool. The code is parsed in a confined worker process of its own
// (repl.Validate), never in the server: under the worker's memory cap, within validateTimeout,
// and at most maxValidations at once; a call beyond that waits up to validateWait for a turn.
const (
	validateTimeout = 10 * time.Second
	maxValidations  = 2
	validateWait    = 2 * time.Second
)

// validateCode validates in a confined worker: repl.Validate, or what a test puts in its place.
var validateCode = repl.Validate

func (s *Server) validateTool(ctx context.Context, _ *mcp.CallToolRequest, in validateInput) (*mcp.CallToolResult, validateOutput, error) {
	out := validateOutput{Findings: []finding{}}
	lang, err := source.ParseLang(in.Lang)
	if err != nil {
		return nil, out, fault.New(fault.Schema, "lang: %v", err)
	}
	name := in.Name
	if name == "" {
		name = "cell." + string(lang)
	}
	done, err := s.validation(ctx)
	if err != nil {
		return nil, out, err
	}
	defer done()
	vctx, cancel := context.WithTimeout(ctx, validateTimeout)
	defer cancel()
	list, err := validateCode(vctx, repl.Options{Lang: string(lang), AllowDegraded: s.opts.AllowDegraded}, name, []byte(in.Code))
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	for _, f := range list {
		out.Findings = append(out.Findings, finding{Pos: f.Pos.String(), Line: f.Pos.Line, Col: f.Pos.Column, Rule: string(f.Rule), Message: f.Message})
		fmt.Fprintln(&b, f.Error())
	}
	out.OK = len(out.Findings) == 0
	if out.OK {
		return textResult("ok: the policy accepts the code", false), out, nil
	}
	// Findings are the answer asked for, not a failure of the call.
	return textResult(b.String(), false), out, nil
}

// validation takes one of the maxValidations turns, waiting up to validateWait for one.
func (s *Server) validation(ctx context.Context) (done func(), err error) {
	t := time.NewTimer(validateWait)
	defer t.Stop()
	select {
	case s.validations <- struct{}{}:
		return func() { <-s.validations }, nil
	case <-t.C:
		return nil, fault.New(fault.Limit, "this server is already validating %d sources, the most it does at once; call validate again in a moment", maxValidations)
	case <-ctx.Done():
		return nil, fault.Wrap(fault.Limit, context.Cause(ctx), "validate was cancelled while it waited for its turn")
	}
}
