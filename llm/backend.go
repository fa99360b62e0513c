package llm

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/rlm-sandbox/rlm/limits"
)

// Backend makes one streaming chat completion attempt. It does not retry:
// the Client owns the one retry policy.
type Backend interface {
	// Stream sends req and calls onChunk for every streamed chunk, in order.
	// If onChunk returns an error, Stream stops reading, closes the stream
	// and returns that error. A failed HTTP exchange is returned as an
	// *APIError; transport failures as the underlying error. A stream that
	// ends without a finish reason was dropped: return it without error and
	// the Client treats it as a transient failure.
	Stream(ctx context.Context, req BackendRequest, onChunk func(Chunk) error) error
}

// BackendRequest is what one attempt sends.
type BackendRequest struct {
	Model     string
	Messages  []Message
	MaxTokens int // 0 = backend default
	// MaxCompletionTokens sends the cap as max_completion_tokens instead of
	// max_tokens (OpenAI's reasoning models refuse max_tokens).
	MaxCompletionTokens bool
	// Logprobs asks for logprobs with TopLogprobs alternatives per token.
	Logprobs    bool
	TopLogprobs int
	// Sampling holds the optional fields to send, each only where set
	// (MaxTokens above is the cap to send; Sampling.MaxTokens is ignored).
	Sampling Sampling
}

// TokenLogprob is one logprob entry: a token, its natural-log probability and
// those of the top alternatives at its position.
type TokenLogprob struct {
	Token   string
	Logprob float64
	Top     []float64
}

// Chunk is one streamed chunk, reduced to what the Client needs. A chunk
// with nothing set (an Anthropic ping) still shows the stream is alive.
type Chunk struct {
	Text string
	// Reasoning is thinking text (Anthropic's thinking blocks, the
	// reasoning_content or reasoning deltas of vLLM, llama.cpp, DeepSeek and
	// OpenRouter): kept out of the answer, counted in an estimated usage.
	Reasoning    string
	Logprobs     []TokenLogprob // the chunk's logprob entries, if any
	FinishReason string
	// Usage is set by the usage chunk (stream_options.include_usage) or by
	// Anthropic's message_start and message_delta (cumulative).
	Usage *Usage
	// Cost is the attempt's cost in US dollars when the server reports it
	// (OpenRouter's usage.cost).
	Cost *float64
}

// APIError is an HTTP error answer from the backend.
type APIError struct {
	Status     int
	Type, Code string
	Message    string
	// RetryAfter is the parsed Retry-After header (seconds or HTTP date);
	// HasRetryAfter says whether there was a usable one.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

func (e *APIError) Error() string {
	s := "HTTP " + strconv.Itoa(e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	if _, numeric := strconv.Atoi(e.Code); e.Code != "" && numeric != nil {
		s += " (" + e.Code + ")"
	} else if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// openAIBackend is the OpenAI-compatible backend (OpenAI, vLLM, llama.cpp
// server, Ollama) over openai-go with its retries off.
type openAIBackend struct {
	svc openai.ChatCompletionService
	now func() time.Time
}

// NewOpenAIBackend returns the OpenAI-compatible streaming backend. The
// openai-go client is built without reading the environment and with its own
// retries off; connectTimeout bounds TCP connect and TLS handshake.
func NewOpenAIBackend(baseURL, apiKey string, connectTimeout time.Duration) Backend {
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	svc := openai.NewChatCompletionService(
		option.WithBaseURL(baseURL),
		option.WithAPIKey(apiKey),
		option.WithHTTPClient(httpClient(connectTimeout)),
		option.WithMaxRetries(0),
	)
	return &openAIBackend{svc: svc, now: time.Now}
}

// httpClient is the HTTP client of a backend: connectTimeout (0 = limits.ConnectTimeout)
// bounds TCP connect and TLS handshake; the proxy comes from the
// environment; there is no overall timeout (the Client's idle timer and the
// caller's context bound a stream).
func httpClient(connectTimeout time.Duration) *http.Client {
	if connectTimeout <= 0 {
		connectTimeout = limits.ConnectTimeout
	}
	d := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		TLSHandshakeTimeout: connectTimeout,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        16,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: tr}
}

func (b *openAIBackend) params(req BackendRequest) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	switch {
	case req.MaxTokens > 0 && req.MaxCompletionTokens:
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	case req.MaxTokens > 0:
		// max_tokens by default: vLLM, llama.cpp and Ollama all accept it.
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Logprobs {
		p.Logprobs = openai.Bool(true)
		if req.TopLogprobs > 0 {
			p.TopLogprobs = openai.Int(int64(req.TopLogprobs))
		}
	}
	setSampling(&p, req.Sampling)
	return p
}

// setSampling adds the optional fields that are set.
func setSampling(p *openai.ChatCompletionNewParams, s Sampling) {
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if s.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(s.ReasoningEffort)
	}
	if len(s.Extra) > 0 {
		p.SetExtraFields(s.Extra)
	}
}

// Stream implements Backend.
func (b *openAIBackend) Stream(ctx context.Context, req BackendRequest, onChunk func(Chunk) error) error {
	var raw *http.Response
	stream := b.svc.NewStreaming(ctx, b.params(req), option.WithResponseInto(&raw))
	defer stream.Close()
	for stream.Next() {
		if err := onChunk(convertChunk(stream.Current())); err != nil {
			return err
		}
	}
	err := stream.Err()
	if err == nil {
		return nil
	}
	if raw != nil && raw.StatusCode >= 400 {
		return b.apiError(raw)
	}
	return err
}

// apiError builds an *APIError from the response itself rather than from
// openai-go's *openai.Error: that one only reads {"error":{...}}, so vLLM's
// top-level {"object":"error","message":...} body leaves its Code and
// Message empty, and its Error() is a bare status line.
func (b *openAIBackend) apiError(res *http.Response) *APIError {
	e := &APIError{Status: res.StatusCode}
	if res.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		e.Type, e.Code, e.Message = parseErrorBody(body)
	}
	e.RetryAfter, e.HasRetryAfter = parseRetryAfter(res.Header.Get("Retry-After"), b.now())
	return e
}

// parseErrorBody reads the error shapes of OpenAI and llama.cpp
// ({"error":{"message","type","code"}}, code a string or a number) and of
// vLLM ({"object":"error","message","type","code"}).
func parseErrorBody(body []byte) (typ, code, msg string) {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return "", "", strings.TrimSpace(string(body))
	}
	typ, code, msg = shape.Type, rawString(shape.Code), shape.Message
	if len(shape.Error) > 0 && shape.Error[0] == '{' {
		var inner struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(shape.Error, &inner) == nil {
			typ, code, msg = inner.Type, rawString(inner.Code), inner.Message
		}
	} else if s := rawString(shape.Error); s != "" && msg == "" {
		msg = s
	}
	return typ, code, msg
}

// extraFloat reads a JSON number (OpenRouter's usage.cost); nil when absent
// or not a number.
func extraFloat(raw string) *float64 {
	var v float64
	if raw == "" || json.Unmarshal([]byte(raw), &v) != nil {
		return nil
	}
	return &v
}

// extraString reads a JSON string; "" when absent or not a string.
func extraString(raw string) string {
	var v string
	if raw == "" || json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}
	return v
}

func rawString(r json.RawMessage) string {
	if len(r) == 0 || string(r) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return string(r)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func convertChunk(c openai.ChatCompletionChunk) Chunk {
	var out Chunk
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens > 0 || c.Usage.CompletionTokens > 0) {
		out.Usage = &Usage{
			PromptTokens:     int(c.Usage.PromptTokens),
			CompletionTokens: int(c.Usage.CompletionTokens),
			CachedTokens:     int(c.Usage.PromptTokensDetails.CachedTokens),
			Source:           "usage",
		}
		out.Cost = extraFloat(c.Usage.JSON.ExtraFields["cost"].Raw())
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		out.Text += ch.Delta.Content
		for _, k := range []string{"reasoning_content", "reasoning"} {
			out.Reasoning += extraString(ch.Delta.JSON.ExtraFields[k].Raw())
		}
		if ch.FinishReason != "" {
			out.FinishReason = ch.FinishReason
		}
		for _, lp := range ch.Logprobs.Content {
			t := TokenLogprob{Token: lp.Token, Logprob: lp.Logprob}
			for _, top := range lp.TopLogprobs {
				t.Top = append(t.Top, top.Logprob)
			}
			out.Logprobs = append(out.Logprobs, t)
		}
	}
	return out
}
