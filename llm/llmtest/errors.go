package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// writeError writes an error body in the dialect's shape:
// OpenAI {"error":{"message","type","param","code"}}, llama.cpp the same
// with a numeric code, vLLM {"object":"error","message","type","param","code"}.
func writeError(w http.ResponseWriter, dialect string, status int, typ, code, msg string) {
	var body any
	switch dialect {
	case VLLM:
		body = map[string]any{"object": "error", "message": msg, "type": typ, "param": nil, "code": status}
	case LlamaCPP:
		body = map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}}
	case OpenRouter:
		body = map[string]any{"error": map[string]any{"code": status, "message": msg, "metadata": map[string]any{}}}
	default:
		replay.WriteError(w, status, typ, code, msg)
		return
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// writeErrorReply answers an error kind.
func writeErrorReply(w http.ResponseWriter, rep Reply) {
	status, typ, code, msg := errorShape(rep.Kind)
	if rep.Kind == Quota && dialect(rep) == OpenRouter {
		status, msg = 402, "Insufficient credits. Add more using https://openrouter.ai/settings/credits"
	}
	if rep.Status != 0 {
		status = rep.Status
	}
	if rep.ErrorType != "" {
		typ, code = rep.ErrorType, rep.ErrorType
	}
	if rep.Message != "" {
		msg = rep.Message
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	writeError(w, dialect(rep), status, typ, code, msg)
}

// errorShape gives the status, type, code and message that OpenAI sends for
// each error kind.
func errorShape(k Kind) (int, string, string, string) {
	switch k {
	case RateLimit:
		return 429, "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."
	case Quota:
		return 429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."
	case ContextLength:
		return 400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages."
	case BadRequest:
		return 400, "invalid_request_error", "invalid_value", "Invalid value for 'messages': the request is malformed."
	case Overloaded:
		return 529, "overloaded_error", "overloaded", "Overloaded"
	}
	return 500, "server_error", "server_error", "The server had an error while processing your request. Sorry about that!"
}

// fieldRefusal is a server's 400 message refusing a request field.
func fieldRefusal(dialect, field string) string {
	switch dialect {
	case VLLM:
		return fmt.Sprintf("[{'type': 'extra_forbidden', 'loc': ('body', '%s'), 'msg': 'Extra inputs are not permitted', 'input': None}]", field)
	case LlamaCPP:
		return "Unsupported param: " + field
	case "anthropic":
		return field + ": Extra inputs are not permitted"
	}
	return fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", field)
}

// writeCompletion answers a request without "stream": true with one
// chat.completion object.
func writeCompletion(w http.ResponseWriter, rr RecordedRequest, rep Reply, toks []replay.Token, k int) {
	var text strings.Builder
	var content []any
	shape := &replay.Stream{}
	shapeStream(shape, dialect(rep), false)
	for _, t := range toks {
		text.WriteString(t.Text)
		content = append(content, shape.Entry(t, k))
	}
	var lp any
	if rr.Logprobs && rep.Kind != NoLogprobs && !rep.NoLogprobs {
		lp = map[string]any{"content": content, "refusal": nil}
	}
	body := map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": rr.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finishReason(rep), "logprobs": lp,
			"message": map[string]any{"role": "assistant", "content": text.String()}}},
		"usage": replay.Usage(promptTokens(rr, rep), len(toks)),
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
