package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/fault"
)

// handler is a tool's function: its result (nil: the default one), its structured output,
// or an error that becomes a tool result with isError set.
type handler[In, Out any] func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)

// addTool registers a tool whose input schema is In's with the enums given (property ->
// values), and records every call in the audit trail; argsOf says what of the input to record.
func addTool[In, Out any](s *Server, t *mcp.Tool, enums map[string][]any, argsOf func(In) any, h handler[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s's input schema: %v", t.Name, err)) // a programming error, caught by every test
	}
	for prop, values := range enums {
		in.Properties[prop].Enum = values
	}
	t.InputSchema = in
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, input In) (*mcp.CallToolResult, Out, error) {
		start := time.Now()
		ctx, done := s.begin(ctx, req.Session)
		defer done()
		res, out, err := h(ctx, req, input)
		var callErr error
		summary := ""
		switch {
		case err != nil:
			callErr = err
		case res != nil && res.IsError:
			callErr = fmt.Errorf("%s", textOf(res))
		case res != nil:
			summary = textOf(res)
		}
		s.rec.call(t.Name, argsOf(input), clip(summary, 300), callErr, time.Since(start))
		return res, out, err
	})
}

// textOf is the text of a result's content.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// textResult is a result whose content is text; isError marks a failure the model should read.
func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// clip cuts s to at most n characters, saying so.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… (%d characters in total)", len(r))
}

// minSeconds is the shortest duration a client may ask for: below it a number of seconds would
// round to a zero duration, which means "the default" further down.
const minSeconds = 0.001

// seconds turns a client's number of seconds into a duration, checking its range before the
// conversion (a float too large for a time.Duration would wrap around to a negative one): absent
// (nil) is cap, the server's value; otherwise it must be a number from minSeconds to cap. what
// names the argument in the message.
func seconds(what string, n *float64, cap time.Duration) (time.Duration, error) {
	if n == nil {
		return cap, nil
	}
	v, hi := *n, cap.Seconds()
	switch {
	case math.IsNaN(v) || v < minSeconds:
		return 0, fault.New(fault.Schema, "%s must be a number of seconds from %g to %g (this server's cap), got %v; leave it out for %g", what, minSeconds, hi, v, hi)
	case v > hi:
		return 0, fault.New(fault.Limit, "%s %v is above this server's cap of %g seconds; ask for %g to %g, or leave it out for %g", what, v, hi, minSeconds, hi, hi)
	}
	return min(time.Duration(math.Round(v*float64(time.Second))), cap), nil
}

// count checks a client's count against the server's cap: absent (nil) is 0, the server's
// value; otherwise it must be from 1 to cap. flag is how the user sets the cap.
func count(what string, n *int, cap int, flag string) (int, error) {
	switch {
	case n == nil:
		return 0, nil
	case *n < 1:
		return 0, fault.New(fault.Schema, "%s must be from 1 to %d (this server's cap), got %d; leave it out for %d", what, cap, *n, cap)
	case *n > cap:
		return 0, fault.New(fault.Limit, "%s %d is above this server's cap of %d; ask for 1 to %d (the user sets the cap with rlm mcp %s)", what, *n, cap, cap, flag)
	}
	return *n, nil
}

var langEnum = []any{"go", "js"}

func (s *Server) addTools() {
	addTool(s, &mcp.Tool{Name: "sandbox_open", Title: "Open a sandbox session", Description: openDoc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, OpenWorldHint: ptr(false)}},
		map[string][]any{"lang": langEnum}, func(in openInput) any { return in }, s.open)
	addTool(s, &mcp.Tool{Name: "sandbox_exec", Title: "Run a cell in a sandbox session", Description: execDoc,
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(false)}},
		nil, func(in execInput) any { return map[string]any{"session": in.Session, "code": in.Code} }, s.execTool)
	addTool(s, &mcp.Tool{Name: "sandbox_close", Title: "Close a sandbox session", Description: closeDoc,
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: ptr(false)}},
		nil, func(in closeInput) any { return in }, s.closeTool)
	addTool(s, &mcp.Tool{Name: "validate", Title: "Check code against the sandbox policy", Description: validateDoc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}},
		map[string][]any{"lang": langEnum}, func(in validateInput) any {
			return map[string]any{"lang": in.Lang, "name": in.Name, "code_chars": utf8.RuneCountInString(in.Code)}
		}, s.validateTool)
	s.addAsk()
}

func ptr[T any](v T) *T { return &v }
