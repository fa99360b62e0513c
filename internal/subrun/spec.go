package subrun

import (
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// Arg is the hidden argument a child is started with.
const Arg = "__subrun"

// MaxSpec bounds the spec a child reads from its stdin.
const MaxSpec = 4 << 20

// Spec is a child run, resolved: what rlm.Options holds that can cross a process boundary.
type Spec struct {
	Home          string              `json:"home"`
	Question      string              `json:"question"`
	Files         []string            `json:"files"`
	Lang          string              `json:"lang"`
	Name          string              `json:"name"`
	Chain         []string            `json:"chain"`
	Depth         int                 `json:"depth"`
	MaxDepth      int                 `json:"max_depth"`
	DepthCap      int                 `json:"depth_cap"`
	Limits        engine.Limits       `json:"limits"`
	Quota         repl.WorkspaceQuota `json:"quota"`
	MaxIterations int                 `json:"max_iterations"`
	MaxBlocks     int                 `json:"max_blocks"`
	FeedbackChars int                 `json:"feedback_chars"`
	CellTimeout   time.Duration       `json:"cell_timeout"`
	WorkerMemory  int64               `json:"worker_memory"`
	Timeout       time.Duration       `json:"timeout"`
	MinFreeMB     int                 `json:"min_free_mb"`
	AllowDegraded bool                `json:"allow_degraded"`
	NoLog         bool                `json:"no_log"`
	Model         Model               `json:"model"`
}

// Reply is what a child writes on its stdout when it ends.
type Reply struct {
	Answer           string   `json:"answer"`
	Error            *Failure `json:"error,omitempty"`
	Calls            int      `json:"calls"`
	Tokens           int      `json:"tokens"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Cost             llm.Cost `json:"cost"`
}

// Failure is how a child failed.
type Failure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Model is the data of an llm.Config: the fields that can cross a process boundary. The others
// (Observer, Notify, Log, Redactor, Sleep, Now, Backend, Deadline, Spent) belong to the process
// that builds the client; a child sets its own. TestModelCoversConfig fails when llm.Config
// gains a field this does not account for.
type Model struct {
	Provider        llm.Provider               `json:"provider,omitempty"`
	BaseURL         string                     `json:"base_url,omitempty"`
	APIKey          string                     `json:"api_key,omitempty"`
	Models          []string                   `json:"models,omitempty"`
	SubModels       []string                   `json:"sub_models,omitempty"`
	Endpoints       map[string]Endpoint        `json:"endpoints,omitempty"`
	DefaultEndpoint string                     `json:"default_endpoint,omitempty"`
	Catalog         map[string]llm.ModelConfig `json:"catalog,omitempty"`
	MaxCalls        int                        `json:"max_calls,omitempty"`
	MaxTokens       int                        `json:"max_tokens,omitempty"`
	MaxCost         float64                    `json:"max_cost,omitempty"`
	ConnectTimeout  time.Duration              `json:"connect_timeout,omitempty"`
	IdleTimeout     time.Duration              `json:"idle_timeout,omitempty"`
	MaxAttempts     int                        `json:"max_attempts,omitempty"`
	MinBackoff      time.Duration              `json:"min_backoff,omitempty"`
	MaxBackoff      time.Duration              `json:"max_backoff,omitempty"`
	BreakerErrors   int                        `json:"breaker_errors,omitempty"`
	BreakerWindow   time.Duration              `json:"breaker_window,omitempty"`
	QuotaProbe      time.Duration              `json:"quota_probe,omitempty"`
	NoMonitor       bool                       `json:"no_monitor,omitempty"`
}

// Endpoint is the data of an llm.Endpoint (its Backend belongs to the process).
type Endpoint struct {
	Provider llm.Provider `json:"provider,omitempty"`
	BaseURL  string       `json:"base_url,omitempty"`
	APIKey   string       `json:"api_key,omitempty"`
}

// ModelOf takes the data of c.
func ModelOf(c llm.Config) Model {
	m := Model{Provider: c.Provider, BaseURL: c.BaseURL, APIKey: c.APIKey, Models: c.Models, SubModels: c.SubModels,
		DefaultEndpoint: c.DefaultEndpoint, Catalog: c.Catalog, MaxCalls: c.MaxCalls, MaxTokens: c.MaxTokens,
		MaxCost: c.MaxCost, ConnectTimeout: c.ConnectTimeout, IdleTimeout: c.IdleTimeout, MaxAttempts: c.MaxAttempts,
		MinBackoff: c.MinBackoff, MaxBackoff: c.MaxBackoff, BreakerErrors: c.BreakerErrors, BreakerWindow: c.BreakerWindow,
		QuotaProbe: c.QuotaProbe, NoMonitor: c.NoMonitor}
	if len(c.Endpoints) > 0 {
		m.Endpoints = make(map[string]Endpoint, len(c.Endpoints))
		for name, e := range c.Endpoints {
			m.Endpoints[name] = Endpoint{Provider: e.Provider, BaseURL: e.BaseURL, APIKey: e.APIKey}
		}
	}
	return m
}

// Config is the llm.Config m describes.
func (m Model) Config() llm.Config {
	c := llm.Config{Provider: m.Provider, BaseURL: m.BaseURL, APIKey: m.APIKey, Models: m.Models, SubModels: m.SubModels,
		DefaultEndpoint: m.DefaultEndpoint, Catalog: m.Catalog, MaxCalls: m.MaxCalls, MaxTokens: m.MaxTokens,
		MaxCost: m.MaxCost, ConnectTimeout: m.ConnectTimeout, IdleTimeout: m.IdleTimeout, MaxAttempts: m.MaxAttempts,
		MinBackoff: m.MinBackoff, MaxBackoff: m.MaxBackoff, BreakerErrors: m.BreakerErrors, BreakerWindow: m.BreakerWindow,
		QuotaProbe: m.QuotaProbe, NoMonitor: m.NoMonitor}
	if len(m.Endpoints) > 0 {
		c.Endpoints = make(map[string]llm.Endpoint, len(m.Endpoints))
		for name, e := range m.Endpoints {
			c.Endpoints[name] = llm.Endpoint{Provider: e.Provider, BaseURL: e.BaseURL, APIKey: e.APIKey}
		}
	}
	return c
}
