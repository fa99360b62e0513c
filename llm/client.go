package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// Client makes model calls under one task's budgets, breaker and quota
// state. It is safe for concurrent use.
type Client struct {
	cfg     Config
	backend Backend

	mu       sync.Mutex
	spent    Spent
	errTimes []time.Time          // API errors inside the breaker window
	tripped  *fault.Error         // the open breaker, once tripped
	lp       map[string]lpState   // per base URL and model
	base     map[string][]float64 // per agent: first latencies, in seconds
	quota    *pause               // non-nil while calls are paused on quota
	quotaGen int                  // pauses ended with the quota back
	// maxCompletion marks models that refuse max_tokens.
	maxCompletion map[string]bool
}

// New returns a Client for cfg. It fails when cfg.Models is empty.
func New(cfg Config) (*Client, error) {
	if len(cfg.Models) == 0 {
		return nil, configError("llm: no model configured; set RLM_MODEL (a model name or a comma-separated ladder)")
	}
	for i, m := range cfg.Models {
		if m == "" {
			return nil, configError("llm: model %d of the ladder is empty; list model names separated by commas", i)
		}
	}
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, backend: cfg.Backend, spent: cfg.Spent,
		lp: map[string]lpState{}, base: map[string][]float64{}, maxCompletion: map[string]bool{}}
	if c.backend == nil {
		c.backend = NewOpenAIBackend(cfg.BaseURL, cfg.APIKey, cfg.ConnectTimeout)
	}
	return c, nil
}

// Spent returns what the task has spent so far (Config.Spent included).
func (c *Client) Spent() Spent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spent
}

// Charge adds what was spent for the task outside this client (a recursive sub-run's own model
// calls) to its totals, so that the budgets cover it.
func (c *Client) Charge(s Spent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spent.Calls += max(s.Calls, 0)
	c.spent.Tokens += max(s.Tokens, 0)
}

// Remaining is what is left of the budgets: calls and tokens (never negative).
func (c *Client) Remaining() Spent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Spent{Calls: max(c.cfg.MaxCalls-c.spent.Calls, 0), Tokens: max(c.cfg.MaxTokens-c.spent.Tokens, 0)}
}

// Models returns the escalation ladder.
func (c *Client) Models() []string { return append([]string(nil), c.cfg.Models...) }

// Complete answers req, starting at model req.Tier and escalating to the next
// model of the ladder each time the monitor aborts a generation. Errors are
// *fault.Error; see the package documentation for the kinds.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, configError("llm: request from agent %q has no messages; send at least one user message", req.Agent)
	}
	models := c.cfg.Models
	tier := min(max(req.Tier, 0), len(models)-1)
	var esc []string
	for t := tier; t < len(models); t++ {
		resp, ab, err := c.runModel(ctx, req, t)
		if err == nil {
			resp.Escalations = esc
			c.checkSlow(req.Agent, resp.Model, resp.Latency)
			return resp, nil
		}
		if ab == nil {
			return Response{Escalations: esc}, err
		}
		if t+1 == len(models) {
			return Response{Escalations: esc}, faultFor(failure{cat: catEarlyAbort, model: models[t],
				agent: req.Agent, attempts: 1, err: ab}, c.red)
		}
		esc = append(esc, models[t]+": "+ab.reason)
		c.log(slog.LevelWarn, fmt.Sprintf("[agent:%s] early abort on %s (%s); escalating to %s",
			req.Agent, models[t], ab.detail, models[t+1]))
	}
	panic("unreachable")
}

// runModel answers req with one model, retrying transient failures. It
// returns the monitor's abort separately so that Complete can escalate.
func (c *Client) runModel(ctx context.Context, req Request, tier int) (Response, *abortError, error) {
	model := c.cfg.Models[tier]
	attempts, transient := 0, 0
	for {
		maxTok, err := c.admit(ctx, req)
		if err != nil {
			return Response{}, nil, err
		}
		gen := c.quotaGeneration()
		resp, cat, err := c.attempt(ctx, req, tier, maxTok)
		attempts++
		if err == nil {
			resp.Attempts = attempts
			return resp, nil, nil
		}
		var ab *abortError
		if errors.As(err, &ab) {
			return Response{}, ab, err
		}
		if tripped := c.noteError(cat, err); tripped != nil {
			return Response{}, nil, tripped
		}
		switch {
		case cat == catLogprobs:
			c.setLogprobs(model, lpRefused)
			continue
		case cat == catMaxParam:
			c.setMaxCompletion(model)
			continue
		case cat == catQuota:
			if err := c.quotaPause(ctx, req.Agent, model, c.red(err.Error()), gen); err != nil {
				return Response{}, nil, err
			}
			continue
		case retryable(cat) && transient+1 < c.cfg.MaxAttempts:
			transient++
			if err := c.backoff(ctx, req.Agent, model, transient, err); err != nil {
				return Response{}, nil, err
			}
			continue
		}
		return Response{}, nil, faultFor(failure{cat: cat, model: model, agent: req.Agent,
			attempts: attempts, err: err, ctxErr: ctx.Err()}, c.red)
	}
}

// backoff waits before transient retry n (1-based): Retry-After when the
// server sent one, else MinBackoff·2^(n-1); both capped at MaxBackoff.
func (c *Client) backoff(ctx context.Context, agent, model string, n int, err error) error {
	d := c.backoffDelay(n, err)
	c.log(slog.LevelInfo, fmt.Sprintf("[agent:%s] %s: %s; retry %d in %s", agent, model, err.Error(), n, d))
	if err := c.cfg.Sleep(ctx, d); err != nil {
		return ctxFault(ctx, fmt.Sprintf("model %s (agent %s): cancelled while backing off", model, agent))
	}
	return nil
}

func (c *Client) backoffDelay(n int, err error) time.Duration {
	var api *APIError
	if errors.As(err, &api) && api.HasRetryAfter {
		return min(api.RetryAfter, c.cfg.MaxBackoff)
	}
	d := c.cfg.MinBackoff
	for i := 1; i < n && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, c.cfg.MaxBackoff)
}

// admit checks the breaker and the budgets before an attempt and reserves
// the call. It returns the completion cap for the attempt: the request's
// MaxTokens lowered to what is left of the token budget (no cap is sent when
// the request has none: a large max_tokens is refused by servers whose
// context is smaller, with an error that reads like a context overflow).
func (c *Client) admit(ctx context.Context, req Request) (int, error) {
	if err := c.waitQuota(ctx); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, ctxFault(ctx, fmt.Sprintf("agent %s: call cancelled", req.Agent))
	}
	need := estimatePrompt(req.Messages)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tripped != nil {
		return 0, c.tripped
	}
	if c.spent.Calls >= c.cfg.MaxCalls {
		return 0, budgetCallsError(c.spent.Calls, c.cfg.MaxCalls)
	}
	left := c.cfg.MaxTokens - c.spent.Tokens - need
	if left < 1 {
		return 0, budgetTokensError(c.spent.Tokens, need+1, c.cfg.MaxTokens)
	}
	c.spent.Calls++
	if req.MaxTokens > 0 {
		return min(req.MaxTokens, left), nil
	}
	return 0, nil
}

// noteError records an API error for the breaker and returns the breaker's
// error when this error trips it.
func (c *Client) noteError(cat string, err error) *fault.Error {
	if !countsForBreaker(cat) {
		return nil
	}
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tripped != nil {
		return c.tripped
	}
	keep := c.errTimes[:0]
	for _, t := range c.errTimes {
		if now.Sub(t) < c.cfg.BreakerWindow {
			keep = append(keep, t)
		}
	}
	c.errTimes = append(keep, now)
	if len(c.errTimes) >= c.cfg.BreakerErrors {
		c.tripped = breakerError(len(c.errTimes), c.cfg.BreakerWindow, c.red(err.Error()))
		return c.tripped
	}
	return nil
}

// red redacts s.
func (c *Client) red(s string) string { return c.cfg.Redactor.String(s) }

// log writes a redacted line.
func (c *Client) log(level slog.Level, msg string) {
	c.cfg.Log.Log(context.Background(), level, c.red(msg))
}
