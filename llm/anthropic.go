package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
)

// AnthropicVersion is the anthropic-version header sent with every request.
const AnthropicVersion = "2023-06-01"

// anthropicBackend speaks Anthropic's Messages API, streaming, over net/http.
type anthropicBackend struct {
	url    string // …/v1/messages
	key    string
	client *http.Client
	now    func() time.Time
}

// NewAnthropicBackend returns the Anthropic Messages API streaming backend.
// baseURL is the API root ("https://api.anthropic.com", with or without a
// trailing "/v1"); connectTimeout bounds TCP connect and TLS handshake.
func NewAnthropicBackend(baseURL, apiKey string, connectTimeout time.Duration) Backend {
	u := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(u, "/v1") {
		u += "/v1"
	}
	return &anthropicBackend{url: u + "/messages", key: apiKey, client: httpClient(connectTimeout), now: time.Now}
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// body builds the request: leading system messages become the top-level
// system field, later ones user turns; messages without text are left out
// (the API refuses empty text blocks). Optional fields are set only when
// given; Extra fields are added as they are.
func (b *anthropicBackend) body(req BackendRequest) map[string]any {
	var system []string
	var msgs []anthropicMessage
	for _, m := range req.Messages {
		if strings.TrimSpace(m.Content) == "" {
			continue
		}
		switch {
		case m.Role == "system" && len(msgs) == 0:
			system = append(system, m.Content)
		case m.Role == "assistant":
			msgs = append(msgs, anthropicMessage{"assistant", m.Content})
		default:
			msgs = append(msgs, anthropicMessage{"user", m.Content})
		}
	}
	if len(msgs) == 0 && len(system) > 0 { // a system prompt alone: send it as the question
		msgs, system = []anthropicMessage{{"user", strings.Join(system, "\n\n")}}, nil
	}
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = limits.AnthropicMaxTokens
	}
	body := map[string]any{"model": req.Model, "max_tokens": maxTok, "messages": msgs, "stream": true}
	for k, v := range req.Sampling.Extra {
		body[k] = v
	}
	if len(system) > 0 {
		body["system"] = strings.Join(system, "\n\n")
	}
	s := req.Sampling
	if s.Temperature != nil {
		body["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		body["top_p"] = *s.TopP
	}
	if s.ReasoningEffort != "" {
		body["output_config"] = map[string]any{"effort": s.ReasoningEffort}
	}
	return body
}

// Stream implements Backend.
func (b *anthropicBackend) Stream(ctx context.Context, req BackendRequest, onChunk func(Chunk) error) error {
	payload, err := json.Marshal(b.body(req))
	if err != nil {
		return fmt.Errorf("anthropic request: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-Api-Key", b.key)
	hr.Header.Set("Anthropic-Version", AnthropicVersion)
	res, err := b.client.Do(hr)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return b.apiError(res)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "text/event-stream" {
		return fmt.Errorf("anthropic: expected a text/event-stream answer, got %q (is the base URL an Anthropic API?)", res.Header.Get("Content-Type"))
	}
	return readAnthropicStream(res.Body, onChunk)
}

// apiError reads an error answer: {"type":"error","error":{"type","message"}}.
func (b *anthropicBackend) apiError(res *http.Response) *APIError {
	e := &APIError{Status: res.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	e.Type, e.Code, e.Message = parseErrorBody(body)
	e.RetryAfter, e.HasRetryAfter = parseRetryAfter(res.Header.Get("Retry-After"), b.now())
	return e
}

// anthropicEvent is the union of the stream's event payloads.
type anthropicEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
	} `json:"content_block"`
	Delta *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		Thinking   string `json:"thinking"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anthropicUsage is a usage object; in message_delta its counts are
// cumulative and may be partial (absent fields keep their values).
type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// usageTotals accumulates usage over message_start and message_delta.
type usageTotals struct{ input, output, cacheWrite, cacheRead int }

func (t *usageTotals) merge(u *anthropicUsage) {
	for _, f := range []struct {
		src *int
		dst *int
	}{{u.InputTokens, &t.input}, {u.OutputTokens, &t.output}, {u.CacheCreationInputTokens, &t.cacheWrite}, {u.CacheReadInputTokens, &t.cacheRead}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
}

// usage is the Client's view: every prompt token (input_tokens counts only
// those after the last cache breakpoint) and the part read from the cache.
func (t *usageTotals) usage() *Usage {
	return &Usage{PromptTokens: t.input + t.cacheWrite + t.cacheRead, CompletionTokens: t.output,
		CachedTokens: t.cacheRead, Source: "usage"}
}

// readAnthropicStream turns the events into Chunks until message_stop. A
// stream that ends before it returns nil (or io.ErrUnexpectedEOF inside an
// event); the Client sees no finish reason and treats it as dropped unless
// message_delta brought one.
func readAnthropicStream(r io.Reader, onChunk func(Chunk) error) error {
	sr := newSSEReader(r)
	var tot usageTotals
	for {
		raw, err := sr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var ev anthropicEvent
		if err := json.Unmarshal(raw.data, &ev); err != nil {
			return fmt.Errorf("anthropic stream: event %q is not JSON: %v", raw.name, err)
		}
		if ev.Type == "" {
			ev.Type = raw.name
		}
		ch, done, err := anthropicChunk(ev, &tot)
		if err != nil {
			return err
		}
		if err := onChunk(ch); err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// anthropicChunk converts one event. done is set by message_stop.
func anthropicChunk(ev anthropicEvent, tot *usageTotals) (Chunk, bool, error) {
	var ch Chunk
	switch ev.Type {
	case "message_start":
		if ev.Message != nil && ev.Message.Usage != nil {
			tot.merge(ev.Message.Usage)
			ch.Usage = tot.usage()
		}
	case "content_block_start":
		if b := ev.ContentBlock; b != nil {
			switch b.Type {
			case "text":
				ch.Text = b.Text
			case "thinking":
				ch.Reasoning = b.Thinking
			}
		}
	case "content_block_delta":
		if d := ev.Delta; d != nil {
			switch d.Type {
			case "text_delta":
				ch.Text = d.Text
			case "thinking_delta":
				ch.Reasoning = d.Thinking
			}
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			ch.FinishReason = finishOf(ev.Delta.StopReason)
		}
		if ev.Usage != nil {
			tot.merge(ev.Usage)
			ch.Usage = tot.usage()
		}
	case "message_stop":
		return ch, true, nil
	case "error":
		return ch, false, streamAPIError(ev)
	}
	// ping, content_block_stop and unknown events: an empty chunk (alive).
	return ch, false, nil
}

// finishOf maps Anthropic's stop_reason to the finish reasons the Client
// and the monitor know: end_turn and stop_sequence are "stop", max_tokens
// and model_context_window_exceeded "length", refusal "content_filter";
// others (tool_use, pause_turn) pass through.
func finishOf(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

// anthropicErrorStatus is the HTTP status Anthropic documents for each
// error type, so that an error event inside a stream is classified like the
// same error answered before it.
var anthropicErrorStatus = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
	"permission_error": 403, "not_found_error": 404, "request_too_large": 413,
	"rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}

func streamAPIError(ev anthropicEvent) *APIError {
	e := &APIError{Status: 500, Type: "api_error"}
	if ev.Error != nil {
		e.Type, e.Message = ev.Error.Type, ev.Error.Message
		if st, ok := anthropicErrorStatus[ev.Error.Type]; ok {
			e.Status = st
		}
	}
	e.Message = strings.TrimSpace("error event in the stream: " + e.Message)
	return e
}
