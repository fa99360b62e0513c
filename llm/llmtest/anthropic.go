package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// anthropicFields are the top-level fields the Messages API accepts; any
// other is refused, as the API does ("x: Extra inputs are not permitted").
var anthropicFields = []string{"model", "messages", "max_tokens", "system", "stream", "temperature", "top_p", "top_k",
	"stop_sequences", "metadata", "thinking", "output_config", "tools", "tool_choice", "service_tier", "container",
	"inference_geo", "cache_control", "mcp_servers", "context_management"}

// anthropicTypes is the error type Anthropic documents for each status.
var anthropicTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
	404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
	504: "timeout_error", 529: "overloaded_error",
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		writeAnthropicError(w, 0, 404, "", fmt.Sprintf("llmtest serves POST /v1/messages only, not %s %s", r.Method, r.URL.Path))
		return
	}
	rr, err := parseAnthropicRequest(r)
	if err != nil {
		writeAnthropicError(w, 0, 400, "", err.Error())
		return
	}
	if status, msg := checkAnthropic(rr); status != 0 {
		s.record(&rr)
		writeAnthropicError(w, rr.N, status, "", msg)
		return
	}
	rep, ok := s.pick(&rr)
	if !ok {
		writeAnthropicError(w, rr.N, 500, "", fmt.Sprintf("llmtest: no scripted reply matches request #%d (model %q, last user message %q); add a reply with a matching \"when\"/\"model\" to the script",
			rr.N, rr.Model, clip(rr.LastUser(), 120)))
		return
	}
	if !replay.Sleep(r.Context(), rep.Latency) {
		return
	}
	switch {
	case rep.RejectField != "" && rr.Has(rep.RejectField):
		writeAnthropicError(w, rr.N, 400, "", fieldRefusal("anthropic", rep.RejectField))
	case rep.MaxOutput > 0 && rr.MaxTokens > rep.MaxOutput:
		writeAnthropicError(w, rr.N, 400, "", fmt.Sprintf("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", rr.MaxTokens, rep.MaxOutput, rr.Model))
	case rep.Kind == Repetition:
		writeAnthropicError(w, rr.N, 500, "", "llmtest: the repetition kind is vLLM's; the Anthropic server has no such stop")
	case !rep.Kind.streamed():
		writeAnthropicErrorReply(w, rr.N, rep)
	case !rr.Stream:
		writeAnthropicMessage(w, rr, rep)
	default:
		streamAnthropic(w, r, rr, rep)
	}
}

// record adds a request that is answered without a reply (a refused one).
func (s *Server) record(rr *RecordedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rr.N = len(s.requests) + 1
	s.requests = append(s.requests, *rr)
}

func parseAnthropicRequest(r *http.Request) (RecordedRequest, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return RecordedRequest{}, err
	}
	var in struct {
		Model     string           `json:"model"`
		Messages  []replay.Message `json:"messages"`
		System    replay.Content   `json:"system"`
		MaxTokens int              `json:"max_tokens"`
		Stream    bool             `json:"stream"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return RecordedRequest{}, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	rr := RecordedRequest{Path: r.URL.Path, Model: in.Model, Messages: in.Messages, System: string(in.System),
		MaxTokens: in.MaxTokens, Stream: in.Stream, Body: body,
		Authorization: r.Header.Get("X-Api-Key"), Bearer: r.Header.Get("Authorization") != "",
		APIVersion: r.Header.Get("Anthropic-Version")}
	json.Unmarshal(body, &rr.Fields)
	if rr.Has("max_tokens") {
		rr.MaxTokensField = "max_tokens"
	}
	return rr, nil
}

// checkAnthropic refuses what the API refuses: no key or version header, a
// missing field, a role other than user and assistant, an empty text, an
// unknown field, a temperature above 1.
func checkAnthropic(rr RecordedRequest) (int, string) {
	switch {
	case rr.Authorization == "":
		return 401, "x-api-key header is required"
	case rr.APIVersion == "":
		return 400, "anthropic-version: header is required"
	case rr.Model == "":
		return 400, "model: Field required"
	case !rr.Has("max_tokens"):
		return 400, "max_tokens: Field required"
	case rr.MaxTokens < 1:
		return 400, "max_tokens: Input should be greater than or equal to 1"
	case len(rr.Messages) == 0:
		return 400, "messages: at least one message is required"
	}
	for i, m := range rr.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return 400, fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if strings.TrimSpace(m.Content) == "" {
			return 400, fmt.Sprintf("messages.%d: text content blocks must contain non-whitespace text", i)
		}
	}
	for _, k := range sortedFields(rr.Fields) {
		if !slices.Contains(anthropicFields, k) {
			return 400, k + ": Extra inputs are not permitted"
		}
	}
	var t float64
	if json.Unmarshal(rr.Fields["temperature"], &t) == nil && t > 1 {
		return 400, "temperature: Input should be less than or equal to 1"
	}
	return 0, ""
}

func sortedFields(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeAnthropicError writes {"type":"error","error":{"type","message"},
// "request_id"}; typ "" = the type of the status.
func writeAnthropicError(w http.ResponseWriter, n, status int, typ, msg string) {
	if typ == "" {
		typ = anthropicTypes[status]
		if typ == "" {
			typ = "api_error"
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg},
		"request_id": fmt.Sprintf("req_llmtest_%d", n)})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", fmt.Sprintf("req_llmtest_%d", n))
	w.WriteHeader(status)
	w.Write(b)
}

// anthropicErrorShape gives the status and message Anthropic sends for each
// error kind (the type follows the status).
func anthropicErrorShape(k Kind) (int, string) {
	switch k {
	case RateLimit:
		return 429, "This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later."
	case Quota:
		return 400, "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."
	case ContextLength:
		return 400, "prompt is too long: 210034 tokens > 200000 maximum"
	case BadRequest:
		return 400, "messages.0.content: the request is malformed."
	case Overloaded:
		return 529, "Overloaded"
	}
	return 500, "Internal server error"
}

func writeAnthropicErrorReply(w http.ResponseWriter, n int, rep Reply) {
	status, msg := anthropicErrorShape(rep.Kind)
	if rep.Status != 0 {
		status = rep.Status
	}
	if rep.Message != "" {
		msg = rep.Message
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	if status == 429 {
		w.Header().Set("Anthropic-Ratelimit-Requests-Remaining", "0")
	}
	writeAnthropicError(w, n, status, rep.ErrorType, msg)
}

// anthropicStream writes the named events of one message.
type anthropicStream struct {
	w http.ResponseWriter
	r *http.Request
}

func (a anthropicStream) event(name string, v map[string]any) bool {
	v["type"] = name
	b, _ := json.Marshal(v)
	if _, err := fmt.Fprintf(a.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return false
	}
	if f, ok := a.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// block streams one content block of the given type ("thinking" or "text")
// token by token; cut stops after that many tokens (0 = all) and reports
// that the block was cut.
func (a anthropicStream) block(index int, typ string, toks []string, rep Reply, cut int) bool {
	start := map[string]any{"type": typ, typ: ""}
	if typ == "thinking" {
		start["signature"] = ""
	}
	if !a.event("content_block_start", map[string]any{"index": index, "content_block": start}) {
		return false
	}
	for i, t := range toks {
		if cut > 0 && i == cut {
			return false
		}
		if !replay.Sleep(a.r.Context(), rep.ChunkDelay) || !a.event("content_block_delta", map[string]any{"index": index,
			"delta": map[string]any{"type": typ + "_delta", typ: t}}) {
			return false
		}
	}
	if typ == "thinking" && !a.event("content_block_delta", map[string]any{"index": index,
		"delta": map[string]any{"type": "signature_delta", "signature": "RXJsbXRlc3Qgc2lnbmF0dXJl"}}) {
		return false
	}
	return a.event("content_block_stop", map[string]any{"index": index})
}

// streamAnthropic streams a reply as Anthropic does: message_start (with the
// prompt's usage), ping, a thinking block when the reply has Thinking, the
// text block, message_delta (stop_reason and cumulative usage) and
// message_stop. Drop closes the connection mid-text; StreamError sends an
// error event there (overloaded_error unless ErrorType says otherwise).
func streamAnthropic(w http.ResponseWriter, r *http.Request, rr RecordedRequest, rep Reply) {
	toks := tokenTexts(generate(rep, 1, rr.LastUser()))
	thinking := Split(rep.Thinking)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	a := anthropicStream{w: w, r: r}
	prompt := anthropicPrompt(rr, rep)
	cached := min(rep.CachedTokens, prompt)
	usage := func(out int) map[string]any {
		return map[string]any{"input_tokens": prompt - cached, "cache_creation_input_tokens": 0,
			"cache_read_input_tokens": cached, "output_tokens": out}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_llmtest_%d", rr.N), "type": "message", "role": "assistant",
		"model": rr.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil}
	if !rep.NoUsage {
		msg["usage"] = usage(1)
	}
	if !a.event("message_start", map[string]any{"message": msg}) || !a.event("ping", map[string]any{}) {
		return
	}
	idx := 0
	if len(thinking) > 0 {
		if !a.block(idx, "thinking", thinking, rep, 0) {
			return
		}
		idx++
	}
	cut := 0
	if rep.Kind == Drop || rep.Kind == StreamError {
		cut = rep.DropAfter
		if cut <= 0 || cut > len(toks) {
			cut = max(1, len(toks)/2)
		}
	}
	if !a.block(idx, "text", toks, rep, cut) {
		switch rep.Kind {
		case Drop:
			panic(http.ErrAbortHandler) // closes the connection mid-stream
		case StreamError:
			typ := rep.ErrorType
			if typ == "" {
				typ = "overloaded_error"
			}
			a.event("error", map[string]any{"error": map[string]any{"type": typ, "message": "Overloaded"}})
		}
		return
	}
	delta := map[string]any{"delta": map[string]any{"stop_reason": anthropicStop(rep), "stop_sequence": nil}}
	if !rep.NoUsage {
		delta["usage"] = usage(len(thinking) + len(toks))
	}
	if a.event("message_delta", delta) {
		a.event("message_stop", map[string]any{})
	}
}

func tokenTexts(toks []replay.Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

func anthropicStop(rep Reply) string {
	if rep.FinishReason != "" {
		return rep.FinishReason
	}
	return "end_turn"
}

// anthropicPrompt is the prompt's size in tokens: Reply.PromptTokens, else
// the characters of the system prompt and messages / 4.
func anthropicPrompt(rr RecordedRequest, rep Reply) int {
	if rep.PromptTokens > 0 {
		return rep.PromptTokens
	}
	return promptTokens(rr, rep) + (len([]rune(rr.System))+3)/4
}

// writeAnthropicMessage answers a request without "stream": true with one
// message object.
func writeAnthropicMessage(w http.ResponseWriter, rr RecordedRequest, rep Reply) {
	toks := tokenTexts(generate(rep, 1, rr.LastUser()))
	content := []any{}
	if rep.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": rep.Thinking, "signature": "RXJsbXRlc3Q="})
	}
	content = append(content, map[string]any{"type": "text", "text": strings.Join(toks, "")})
	prompt := anthropicPrompt(rr, rep)
	b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("msg_llmtest_%d", rr.N), "type": "message", "role": "assistant",
		"model": rr.Model, "content": content, "stop_reason": anthropicStop(rep), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": prompt, "output_tokens": len(toks) + len(Split(rep.Thinking))}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
