package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// Kind is the kind of a scripted reply.
type Kind string

// Reply kinds.
const (
	Healthy       Kind = "healthy"            // Text streamed with fluent logprobs (the default kind)
	NoLogprobs    Kind = "no_logprobs"        // Text streamed without logprobs, even when asked
	Loop          Kind = "loop"               // Text repeated until Tokens tokens, entropy falling in each copy
	Confused      Kind = "confused"           // Tokens tokens of word salad from a flat distribution
	Repetition    Kind = "repetition"         // Text, then vLLM's finish_reason "repetition"
	Drop          Kind = "drop"               // Text cut off mid-stream: the connection is closed
	StreamError   Kind = "stream_error"       // Text cut off mid-stream by an SSE error event (vLLM does this)
	RateLimit     Kind = "rate_limit"         // 429 rate_limit_exceeded, with Retry-After if set
	Quota         Kind = "insufficient_quota" // 429 insufficient_quota
	ServerError   Kind = "server_error"       // Status (default 500) with an error body
	ContextLength Kind = "context_length"     // 400 context_length_exceeded
	BadRequest    Kind = "bad_request"        // 400 invalid_request_error
	Overloaded    Kind = "overloaded"         // 529 overloaded_error (Anthropic's "API is temporarily overloaded")
)

// Dialects: the server flavours whose stream shapes the fake reproduces.
const (
	OpenAI   = "openai"   // OpenAI: {"error":{...}} errors, usage chunk with empty choices
	VLLM     = "vllm"     // vLLM: stop_reason in choices, top-level {"object":"error"} errors
	LlamaCPP = "llamacpp" // llama.cpp server: an "id" in every logprob entry, numeric error codes
	// OpenRouter: ": OPENROUTER PROCESSING" comments before the first chunk,
	// usage always sent with cost and prompt_tokens_details, numeric error
	// codes and 402 for spent credits.
	OpenRouter = "openrouter"
)

// Reply is one scripted answer. The zero value streams "OK." as a healthy
// reply.
type Reply struct {
	Kind Kind   `json:"kind,omitempty"`
	Text string `json:"text,omitempty"`
	// Tokens is the length in tokens of Loop and Confused replies (default
	// 300) and of a Healthy reply without Text (generated prose).
	Tokens int `json:"tokens,omitempty"`
	// TopK is the number of alternatives per token; 0 = the request's
	// top_logprobs.
	TopK    int    `json:"top_k,omitempty"`
	Dialect string `json:"dialect,omitempty"` // OpenAI (default), VLLM or LlamaCPP
	// FinishReason overrides "stop" for streamed kinds.
	FinishReason string `json:"finish_reason,omitempty"`
	// Status overrides the HTTP status of error kinds.
	Status int `json:"status,omitempty"`
	// RetryAfter is the Retry-After header value (seconds or an HTTP date).
	RetryAfter string `json:"retry_after,omitempty"`
	// Message overrides the error message of error kinds.
	Message string `json:"message,omitempty"`
	// DropAfter is the number of tokens a Drop or StreamError reply sends
	// before the cut (default half of them, at least one).
	DropAfter int `json:"drop_after,omitempty"`
	// Latency delays the response headers; ChunkDelay delays every chunk.
	Latency    time.Duration `json:"-"`
	ChunkDelay time.Duration `json:"-"`
	// NoLogprobs streams any kind without logprobs, even when asked (the
	// NoLogprobs kind is a healthy reply with this set).
	NoLogprobs bool `json:"no_logprobs,omitempty"`
	// NoUsage suppresses the usage chunk even when include_usage was asked.
	NoUsage bool `json:"no_usage,omitempty"`
	// PromptTokens is reported in usage; 0 = characters of the messages / 4.
	PromptTokens int `json:"prompt_tokens,omitempty"`
	// RejectLogprobs answers 400 (an error about logprobs) to a request
	// that asks for logprobs, without consuming the reply, the way servers
	// without logprob support do.
	RejectLogprobs bool `json:"reject_logprobs,omitempty"`
	// RejectMaxTokens answers 400 to a request that sends max_tokens (not
	// max_completion_tokens), without consuming the reply, the way OpenAI's
	// reasoning models do.
	RejectMaxTokens bool `json:"reject_max_tokens,omitempty"`
	// RejectField answers 400 naming the field to a request whose body has
	// it at the top level, without consuming the reply, in the server's
	// words (OpenAI "Unsupported parameter: 'x' …", vLLM's pydantic list,
	// llama.cpp "Unsupported param: x", Anthropic "x: Extra inputs are not
	// permitted").
	RejectField string `json:"reject_field,omitempty"`
	// MaxOutput answers Anthropic's 400 "max_tokens: N > MaxOutput, which is
	// the maximum allowed number of output tokens for …" to a request whose
	// max_tokens is larger, without consuming the reply.
	MaxOutput int `json:"max_output,omitempty"`
	// Thinking is reasoning streamed before the answer: an Anthropic
	// thinking block, or reasoning_content deltas (reasoning for OpenRouter).
	// Its tokens count in the usage's completion tokens.
	Thinking string `json:"thinking,omitempty"`
	// CachedTokens is reported as the part of the prompt read from the cache
	// (prompt_tokens_details.cached_tokens; Anthropic cache_read_input_tokens).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// Cost is reported in the usage as OpenRouter does (usage.cost, US
	// dollars); nil = none (OpenRouter dialect: 0).
	Cost *float64 `json:"cost,omitempty"`
	// ErrorType overrides the error type of error kinds and of the error
	// event of StreamError (Anthropic's default there: overloaded_error).
	ErrorType string `json:"error_type,omitempty"`

	// When, Model and Times select and repeat a reply of a queue or script:
	// When is a regexp (RE2) on the last user message, Model an exact model
	// name, Times the number of uses (0 = 1, -1 = unlimited).
	When  string `json:"when,omitempty"`
	Model string `json:"model,omitempty"`
	Times int    `json:"times,omitempty"`
}

// replyJSON is Reply's JSON shape when written: durations are strings ("250ms").
type replyJSON struct {
	replyAlias
	Latency    string `json:"latency,omitempty"`
	ChunkDelay string `json:"chunk_delay,omitempty"`
}

type replyAlias Reply

// UnmarshalJSON reads a reply in the script format: package replay reads the fields of a
// healthy reply (durations as Go durations, "250ms"), the others are Reply's JSON fields.
func (r *Reply) UnmarshalJSON(b []byte) error {
	h, other, err := replay.Decode(b)
	if err != nil {
		return err
	}
	return r.fill(h, other)
}

// fill sets r from a reply's healthy fields, decoded by package replay, and its other fields,
// which must be Reply's: a typo in a script must not pass silently.
func (r *Reply) fill(h replay.Reply, other map[string]json.RawMessage) error {
	var a replyAlias
	if len(other) > 0 {
		b, err := json.Marshal(other)
		if err != nil {
			return err
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return fmt.Errorf("%s; the fields are listed in llm/llmtest's package documentation (Script files)", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	*r = Reply(a)
	r.Text, r.Thinking, r.Latency, r.ChunkDelay = h.Text, h.Thinking, h.Latency, h.ChunkDelay
	r.When, r.Model, r.Times = h.When, h.Model, h.Times
	return nil
}

// rule is the reply's rule in the queue.
func (r Reply) rule() replay.Rule { return replay.Rule{When: r.When, Model: r.Model, Times: r.Times} }

// MarshalJSON writes a reply in the script format.
func (r Reply) MarshalJSON() ([]byte, error) {
	j := replyJSON{replyAlias: replyAlias(r)}
	if r.Latency > 0 {
		j.Latency = r.Latency.String()
	}
	if r.ChunkDelay > 0 {
		j.ChunkDelay = r.ChunkDelay.String()
	}
	return json.Marshal(j)
}

// streamed reports whether the kind streams a completion (vs. an error).
func (k Kind) streamed() bool {
	switch k {
	case "", Healthy, NoLogprobs, Loop, Confused, Repetition, Drop, StreamError:
		return true
	}
	return false
}

// unknownKind is the error for a kind that is not one of the constants.
func unknownKind(k Kind) error {
	return fmt.Errorf("unknown kind %q; write one of the kinds in llm/llmtest's package documentation (healthy, loop, rate_limit, …)", k)
}

func (k Kind) valid() bool {
	switch k {
	case RateLimit, Quota, ServerError, ContextLength, BadRequest, Overloaded:
		return true
	}
	return k.streamed()
}
