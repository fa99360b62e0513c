package llm

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/monitor"
	"github.com/rlm-sandbox/rlm/redact"
)

// Message is one chat message.
type Message struct {
	Role    string // "system" | "user" | "assistant"
	Content string
}

// Request is one logical model call: the client may make several HTTP
// attempts and climb the model ladder to answer it.
type Request struct {
	Messages []Message
	// Agent names the caller ("root", "sub", ...). It is recorded in every
	// Call, keys the slow-step baseline and appears in messages.
	Agent string
	// Tier is the index into Config.Models to start from (0 = the default
	// model; clamped to the ladder). An early abort escalates to Tier+1, ...
	Tier int
	// MaxTokens caps the completion; 0 = the backend's default. The client
	// lowers it further so that one call cannot overrun the token budget.
	MaxTokens int
	// ExpectedTokens feeds the monitor's runaway_length check; 0 = unknown.
	ExpectedTokens int
	// Task overrides the monitor's thresholds for the kind of generation;
	// "" keeps the tier's thresholds.
	Task monitor.Task
}

// Usage is the token count of one attempt and where it came from.
type Usage struct {
	PromptTokens, CompletionTokens int
	// Source is "usage" (the backend's usage chunk), "logprobs" (completion
	// tokens counted from logprob entries, prompt estimated) or "estimate"
	// (characters / 4 on both sides).
	Source string
}

// Total is PromptTokens + CompletionTokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Response is the answer to a Request.
type Response struct {
	Text         string
	Model        string // the model that answered
	FinishReason string
	Usage        Usage
	Latency      time.Duration // of the answering attempt
	Attempts     int           // HTTP attempts for the final model
	Logprobs     bool          // the monitor saw logprobs
	// Escalations has one "model: reason" entry for each tier that was
	// aborted early before this answer.
	Escalations []string
}

// Spent is what a task has used of its budgets.
type Spent struct{ Calls, Tokens int }

// Call is one API attempt, reported to Config.Observer for the audit trail.
type Call struct {
	Agent, Model     string
	PromptTokens     int
	CompletionTokens int
	Latency          time.Duration
	// Status is "ok", "early_abort" or "error:<category>": rate_limit,
	// server, transport, connect_timeout, idle_timeout, quota,
	// context_length, logprobs_refused, max_tokens_param, bad_request,
	// canceled. A call that a budget refuses is never made and not
	// reported.
	Status string
	Err    string // redacted
	At     time.Time
	// Probe marks the cheap request that checks whether a quota came back.
	Probe bool
}

// Config configures a Client. Zero values mean the defaults given per field.
type Config struct {
	BaseURL string // "" = https://api.openai.com/v1/
	APIKey  string
	// Models is the escalation ladder; Models[0] is the default tier.
	// Monitor tiers: index 0 = monitor.TierWorker, 1 = TierCoder,
	// 2 and above = TierArchitect.
	Models []string

	MaxCalls  int // 0 = 80 API calls (HTTP attempts, probes included)
	MaxTokens int // 0 = 200000 tokens (prompt + completion)

	ConnectTimeout time.Duration // 0 = 30 s (TCP + TLS)
	IdleTimeout    time.Duration // 0 = 30 s without a chunk (first byte included)

	MaxAttempts int           // 0 = 5 HTTP attempts per model for transient errors
	MinBackoff  time.Duration // 0 = 1 s; doubles per attempt
	MaxBackoff  time.Duration // 0 = 30 s; also caps Retry-After

	BreakerErrors int           // 0 = 5 API errors ...
	BreakerWindow time.Duration // 0 = ... within 60 s

	QuotaProbe time.Duration // 0 = 5 min between quota probes
	// Deadline is the task's wall clock; a quota pause never waits past it
	// (nor past the context's deadline). Zero: no pause, quota fails at once.
	Deadline time.Time
	Spent    Spent // already spent by a resumed task

	// Observer is called synchronously for every attempt; may be nil.
	Observer func(Call)
	Log      *slog.Logger // nil = discard
	// Redactor cleans every error message, log line and Call.Err;
	// nil = redact.New(APIKey).
	Redactor  *redact.Redactor
	NoMonitor bool

	// Sleep waits (backoff, quota probes); nil = a real timer. Now is the
	// clock of the breaker window and the deadline; nil = time.Now. Tests
	// inject both to run without real waits.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// Backend does the HTTP; nil = the OpenAI-compatible backend built from
	// BaseURL, APIKey and ConnectTimeout.
	Backend Backend
}

// DefaultBaseURL is the base URL used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1/"

func (c Config) withDefaults() Config {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&c.MaxCalls, 80)
	def(&c.MaxTokens, 200000)
	def(&c.MaxAttempts, 5)
	def(&c.BreakerErrors, 5)
	defD(&c.ConnectTimeout, 30*time.Second)
	defD(&c.IdleTimeout, 30*time.Second)
	defD(&c.MinBackoff, time.Second)
	defD(&c.MaxBackoff, 30*time.Second)
	defD(&c.BreakerWindow, 60*time.Second)
	defD(&c.QuotaProbe, 5*time.Minute)
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Redactor == nil {
		c.Redactor = redact.New(c.APIKey)
	}
	if c.Sleep == nil {
		c.Sleep = sleepCtx
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FromEnv reads the backend settings from the environment: the base URL from
// RLM_BASE_URL or else OPENAI_BASE_URL, the API key from RLM_API_KEY or else
// OPENAI_API_KEY (keys come only from the environment), and the model ladder
// from RLM_MODEL, comma-separated ("small,medium,large"). It fails with a
// fault.Schema error when RLM_MODEL is unset or empty. Other fields keep their zero values (defaults).
func FromEnv() (Config, error) {
	var cfg Config
	cfg.BaseURL = firstEnv("RLM_BASE_URL", "OPENAI_BASE_URL")
	cfg.APIKey = firstEnv("RLM_API_KEY", "OPENAI_API_KEY")
	for m := range strings.SplitSeq(os.Getenv("RLM_MODEL"), ",") {
		if m = strings.TrimSpace(m); m != "" {
			cfg.Models = append(cfg.Models, m)
		}
	}
	if len(cfg.Models) == 0 {
		return cfg, configError("RLM_MODEL is not set: set it to a model name, or a comma-separated ladder such as RLM_MODEL=small,large")
	}
	return cfg, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// tierOf maps a ladder index to the monitor tier.
func tierOf(i int) monitor.Tier {
	switch i {
	case 0:
		return monitor.TierWorker
	case 1:
		return monitor.TierCoder
	default:
		return monitor.TierArchitect
	}
}
