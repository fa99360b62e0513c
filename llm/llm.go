package llm

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
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
	// Ladder picks the escalation ladder: Root (Config.Models, the zero
	// value) or Sub (Config.SubModels, else Config.Models).
	Ladder Ladder
	// Model names one configured model (a ladder entry or a Config.Catalog
	// key) to answer with instead of the ladder's first. On the request's
	// ladder, the call starts there and may escalate up it; off the ladder,
	// that model answers alone. An unknown name is a fault.Schema error that
	// lists the configured models.
	Model string
	// Tier is the index into the ladder to start from (0 = its first model;
	// clamped to the ladder); ignored when Model is set. An early abort
	// escalates to Tier+1, ...
	Tier int
	// MaxTokens caps the completion (with the model's max_tokens setting,
	// the smaller wins); 0 = that setting, else the backend's default. The
	// client lowers it further so that one call cannot overrun the token or
	// dollar budget.
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
	// CachedTokens is the part of PromptTokens the server read from its
	// prompt cache (priced at Price.Cached); 0 when not reported.
	CachedTokens int
	// Source is "usage" (the backend's usage chunk), "logprobs" (completion
	// tokens counted from logprob entries, prompt estimated) or "estimate"
	// (characters / 4 on both sides, reasoning text included).
	Source string
}

// Total is PromptTokens + CompletionTokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Response is the answer to a Request.
type Response struct {
	Text         string
	Model        string // the model that answered (its configured name)
	Backend      string // the backend that served it ("default" or a Config.Endpoints key)
	FinishReason string // "stop", "length", … (Anthropic's stop_reason mapped: see doc.go)
	Usage        Usage
	Cost         Cost          // of the answering attempt
	Latency      time.Duration // of the answering attempt
	Attempts     int           // HTTP attempts for the final model
	Logprobs     bool          // the monitor saw logprobs
	// Escalations has one "model: reason" entry for each tier that was
	// aborted early before this answer.
	Escalations []string
}

// Spent is what a task has used of its budgets. PromptTokens and CompletionTokens split
// Tokens as the attempts' counts do (Call); no budget bounds them apart.
type Spent struct {
	Calls, Tokens                  int
	PromptTokens, CompletionTokens int
	Cost                           Cost
}

// Call is one API attempt, reported to Config.Observer for the audit trail.
type Call struct {
	Agent string
	// Model is the configured name of the model called; Backend the name of
	// the backend that served it ("default" or a Config.Endpoints key).
	Model, Backend   string
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int    // part of PromptTokens read from the server's cache
	Source           string // of the token counts: "usage", "logprobs", "estimate", "none"
	// Cost is the attempt's price: the server's reported cost, else the
	// model's Price applied to the tokens, else unknown (Cost.Unknown = 1).
	// An attempt that got no tokens costs a known $0.
	Cost    Cost
	Latency time.Duration
	// Status is "ok", "early_abort" or "error:<category>": rate_limit,
	// server, transport, connect_timeout, idle_timeout, quota,
	// context_length, logprobs_refused, max_tokens_param, param_refused,
	// bad_request, canceled. A call that a budget refuses is never made and not
	// reported.
	Status string
	Err    string // redacted
	At     time.Time
	// Probe marks the cheap request that checks whether a quota came back.
	Probe bool
}

// Config configures a Client. Zero values mean the defaults given per field.
//
// The simplest Config is one backend (BaseURL, APIKey, Provider) and a ladder
// (Models). Several backends are named in Endpoints; Catalog gives models
// their backend, sampling settings and price; SubModels is the ladder of
// sub-calls (Request.Ladder = Sub). All models share the budgets.
type Config struct {
	// The "default" backend: the one of models without a Catalog entry or
	// whose entry names none (see DefaultEndpoint).
	Provider Provider // "" = ProviderOpenAI
	BaseURL  string   // "" = the provider's public API (DefaultBaseURL, DefaultAnthropicBaseURL)
	APIKey   string
	// Models is the root escalation ladder; Models[0] is the default tier.
	// Monitor tiers: index 0 = monitor.TierWorker, 1 = TierCoder,
	// 2 and above = TierArchitect.
	Models []string
	// SubModels is the ladder of sub-calls (Request.Ladder = Sub), with the
	// same tiers; nil = Models.
	SubModels []string
	// Endpoints are named backends ([backends.NAME] in rlm.toml); the name
	// "default" is the one above and cannot be redefined.
	Endpoints map[string]Endpoint
	// DefaultEndpoint names the backend of models whose Catalog entry names
	// none; "" = "default".
	DefaultEndpoint string
	// Catalog configures models by name ([models.NAME]): backend, model id,
	// sampling, price. A model without an entry is sent under its own name
	// to DefaultEndpoint with nothing optional set and no price.
	Catalog map[string]ModelConfig

	MaxCalls  int // 0 = 80 API calls (HTTP attempts, probes included)
	MaxTokens int // 0 = 200000 tokens (prompt + completion)
	// MaxCost is a budget in US dollars, checked before and after each
	// attempt like MaxTokens; 0 = no dollar budget (calls and tokens, always
	// finite, still bound the task). Under a dollar budget a model with no
	// Price whose server reports no cost stops the task at its first such
	// answer (fault.Limit), since its spending cannot be counted.
	MaxCost float64

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
	// Notify gets, as one redacted line each, what a person waiting on the task should see at
	// once: a missing API key for a remote server (before the first call), a retry after a
	// transient failure (such as "cannot connect to URL: connection refused"), a quota pause
	// with the time of the next probe, the quota coming back. It is
	// called synchronously, from concurrent calls too; may be nil.
	Notify func(msg string)
	Log    *slog.Logger // nil = discard
	// Redactor cleans every error message, log line and Call.Err; the keys
	// of every backend (Keys) are always redacted too. nil = redact.New(Keys()...).
	Redactor  *redact.Redactor
	NoMonitor bool

	// Sleep waits (backoff, quota probes); nil = a real timer. Now is the
	// clock of the breaker window and the deadline; nil = time.Now. Tests
	// inject both to run without real waits.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// Backend does the HTTP of the "default" backend; nil = the one built
	// from Provider, BaseURL, APIKey and ConnectTimeout.
	Backend Backend
}

// Keys returns the API keys of every backend (the default one and
// Endpoints), for a redactor.
func (c Config) Keys() []string {
	var out []string
	if c.APIKey != "" {
		out = append(out, c.APIKey)
	}
	for _, e := range c.Endpoints {
		if e.APIKey != "" {
			out = append(out, e.APIKey)
		}
	}
	return out
}

// DefaultBaseURL is the base URL of an OpenAI-compatible backend without one.
const DefaultBaseURL = "https://api.openai.com/v1/"

// DefaultAnthropicBaseURL is the base URL of an Anthropic backend without one.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

func (c Config) withDefaults() Config {
	c.MaxCalls = limits.Or(c.MaxCalls, limits.MaxCalls)
	c.MaxTokens = limits.Or(c.MaxTokens, limits.MaxTokens)
	c.MaxAttempts = limits.Or(c.MaxAttempts, limits.CallAttempts)
	c.BreakerErrors = limits.Or(c.BreakerErrors, limits.BreakerErrors)
	c.ConnectTimeout = limits.Or(c.ConnectTimeout, limits.ConnectTimeout)
	c.IdleTimeout = limits.Or(c.IdleTimeout, limits.StreamIdle)
	c.MinBackoff = limits.Or(c.MinBackoff, limits.RetryMinBackoff)
	c.MaxBackoff = limits.Or(c.MaxBackoff, limits.RetryMaxBackoff)
	c.BreakerWindow = limits.Or(c.BreakerWindow, limits.BreakerWindow)
	c.QuotaProbe = limits.Or(c.QuotaProbe, limits.QuotaProbe)
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Redactor == nil {
		c.Redactor = redact.New(c.Keys()...)
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

// FromEnv reads the default backend and the ladders from the environment:
//
//   - RLM_PROVIDER: "openai" (the default) or "anthropic";
//   - the base URL from RLM_BASE_URL, else OPENAI_BASE_URL (ANTHROPIC_BASE_URL
//     for Anthropic), else the provider's public API;
//   - the API key from RLM_API_KEY, else OPENAI_API_KEY (ANTHROPIC_API_KEY for
//     Anthropic): keys come only from the environment;
//   - the root ladder from RLM_MODEL and the sub-call ladder from
//     RLM_SUB_MODEL, comma-separated ("small,medium,large").
//
// It fails with a fault.Schema error when RLM_MODEL is unset or empty (the
// Config is still filled in, for a caller that has the ladder from elsewhere)
// or RLM_PROVIDER names no provider. Other fields keep their zero values
// (defaults).
func FromEnv() (Config, error) {
	var cfg Config
	p, err := ParseProvider(os.Getenv("RLM_PROVIDER"))
	if err != nil {
		return cfg, configError("RLM_PROVIDER: %v", err)
	}
	cfg.Provider = p
	if p == ProviderAnthropic {
		cfg.BaseURL = firstEnv("RLM_BASE_URL", "ANTHROPIC_BASE_URL")
		cfg.APIKey = firstEnv("RLM_API_KEY", "ANTHROPIC_API_KEY")
	} else {
		cfg.BaseURL = firstEnv("RLM_BASE_URL", "OPENAI_BASE_URL")
		cfg.APIKey = firstEnv("RLM_API_KEY", "OPENAI_API_KEY")
	}
	cfg.Models = SplitLadder(os.Getenv("RLM_MODEL"))
	cfg.SubModels = SplitLadder(os.Getenv("RLM_SUB_MODEL"))
	if len(cfg.Models) == 0 {
		return cfg, configError("RLM_MODEL is not set: set it to a model name, or a comma-separated ladder such as RLM_MODEL=small,large")
	}
	return cfg, nil
}

// SplitLadder splits a comma-separated ladder ("small, large") into its
// model names, dropping empty ones.
func SplitLadder(s string) []string {
	var out []string
	for m := range strings.SplitSeq(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
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
