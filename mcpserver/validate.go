package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/validator"
)

const validateDoc = `Check Go or JavaScript code against the sandbox's policy without running it: the same validator every sandbox_exec cell and rlm_ask block passes. Returns ok, or the findings, each with its position (name:line:col), rule and a message that says what to write instead.`

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

func (s *Server) validateTool(_ context.Context, _ *mcp.CallToolRequest, in validateInput) (*mcp.CallToolResult, validateOutput, error) {
	out := validateOutput{Findings: []finding{}}
	lang, err := validator.ParseLang(in.Lang)
	if err != nil {
		return nil, out, fault.New(fault.Schema, "lang: %v", err)
	}
	name := in.Name
	if name == "" {
		name = "cell." + string(lang)
	}
	res, err := validator.Validate(lang, name, []byte(in.Code), validator.Policy{})
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	for _, f := range res.Findings {
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
