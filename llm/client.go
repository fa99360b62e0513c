package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/redact"
)

// Client makes model calls under one task's budgets, breaker and quota
// state. It is safe for concurrent use.
type Client struct {
	cfg Config
	res *resolved
	red func(string) string

	mu         sync.Mutex
	spent      Spent
	errTimes   []time.Time            // API errors inside the breaker window
	tripped    error                  // the open breaker (ErrUnavailable), once tripped
	state      map[string]*modelState // per model name
	base       map[string][]float64   // per agent: first latencies, in seconds
	quota      map[string]*pause      // per backend: non-nil while its calls are paused on quota
	quotaGen   map[string]int         // per backend: pauses ended with the quota back
	keyWarning sync.Once              // MissingKey, told before the first call
}

// modelState is what the client has learnt about a model.
type modelState struct {
	lp            lpState
	maxCompletion bool            // refuses max_tokens: send max_completion_tokens
	dropped       map[string]bool // optional fields it refused
	outCap        int             // the server's stated max_tokens maximum; 0 = none
	costUnknown   bool            // answered without price nor cost under a dollar budget
}

// stateOf returns the model's state (c.mu held).
func (c *Client) stateOf(m *model) *modelState {
	st := c.state[m.name]
	if st == nil {
		st = &modelState{dropped: map[string]bool{}}
		c.state[m.name] = st
	}
	return st
}

// New returns a Client for cfg. It fails with a fault.Schema error naming
// the setting when cfg is not usable: no root ladder, an empty model name,
// an unknown backend or provider, a setting out of range (see Sampling,
// Price), a negative MaxCost.
func New(cfg Config) (*Client, error) {
	custom := cfg.Redactor != nil
	cfg = cfg.withDefaults()
	res, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, res: res, spent: cfg.Spent, state: map[string]*modelState{},
		base: map[string][]float64{}, quota: map[string]*pause{}, quotaGen: map[string]int{}}
	c.red = cfg.Redactor.String
	if custom { // the caller's redactor may not know every backend's key
		own := redact.New(cfg.Keys()...)
		c.red = func(s string) string { return own.String(cfg.Redactor.String(s)) }
	}
	return c, nil
}

// Spent returns what the task has spent so far (Config.Spent included); nothing for a nil
// Client.
func (c *Client) Spent() Spent {
	if c == nil { // a run without a model (rlm run --script) has no client
		return Spent{}
	}
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
	c.spent.PromptTokens += max(s.PromptTokens, 0)
	c.spent.CompletionTokens += max(s.CompletionTokens, 0)
	c.spent.Cost = c.spent.Cost.Add(Cost{USD: max(s.Cost.USD, 0), Unknown: max(s.Cost.Unknown, 0)})
}

// Remaining is what is left of the budgets: calls, tokens and, under a
// dollar budget (MaxCost > 0), dollars in Cost.USD; never negative.
func (c *Client) Remaining() Spent {
	c.mu.Lock()
	defer c.mu.Unlock()
	left := Spent{Calls: max(c.cfg.MaxCalls-c.spent.Calls, 0), Tokens: max(c.cfg.MaxTokens-c.spent.Tokens, 0)}
	if c.cfg.MaxCost > 0 {
		left.Cost.USD = max(c.cfg.MaxCost-c.spent.Cost.USD, 0)
	}
	return left
}

// Models returns the root escalation ladder.
func (c *Client) Models() []string { return names(c.res.ladders[Root]) }

// Complete answers req, starting at the request's model or tier of its
// ladder and escalating to the next model of the ladder each time the
// monitor aborts a generation. Errors are *fault.Error; see the package
// documentation for the kinds.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, configError("llm: request from agent %q has no messages; send at least one user message", req.Agent)
	}
	models, tier, err := c.route(req)
	if err != nil {
		return Response{}, err
	}
	c.keyWarning.Do(func() {
		for _, msg := range c.missingKeys() {
			c.notify("warning: %s", msg)
		}
	})
	var esc []string
	for t := tier; t < len(models); t++ {
		resp, ab, err := c.runModel(ctx, req, models[t], t)
		if err == nil {
			resp.Escalations = esc
			c.checkSlow(req.Agent, resp.Model, resp.Latency)
			return resp, nil
		}
		if ab == nil {
			return Response{Escalations: esc}, err
		}
		if t+1 == len(models) {
			return Response{Escalations: esc}, faultFor(failure{cat: catEarlyAbort, model: models[t].name,
				agent: req.Agent, attempts: 1, err: ab}, c.red)
		}
		esc = append(esc, models[t].name+": "+ab.reason)
		c.log(slog.LevelWarn, fmt.Sprintf("[agent:%s] early abort on %s (%s); escalating to %s",
			req.Agent, models[t].name, ab.detail, models[t+1].name))
	}
	panic("unreachable")
}

// runModel answers req with one model, retrying transient failures. It
// returns the monitor's abort separately so that Complete can escalate.
func (c *Client) runModel(ctx context.Context, req Request, m *model, tier int) (Response, *abortError, error) {
	attempts, transient := 0, 0
	for {
		maxTok, err := c.admit(ctx, req, m)
		if err != nil {
			return Response{}, nil, err
		}
		gen := c.quotaGeneration(m.ep)
		resp, cat, err := c.attempt(ctx, req, m, tier, maxTok)
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
		var rf *refusedError
		switch {
		case cat == catLogprobs:
			c.setLogprobs(m, lpRefused)
			continue
		case cat == catMaxParam:
			c.setMaxCompletion(m)
			continue
		case errors.As(err, &rf):
			c.refuse(m, rf)
			continue
		case cat == catQuota:
			if err := c.quotaPause(ctx, req.Agent, m, c.red(err.Error()), gen); err != nil {
				return Response{}, nil, err
			}
			continue
		case retryable(cat) && transient+1 < c.cfg.MaxAttempts:
			transient++
			if err := c.backoff(ctx, req.Agent, m.name, transient, err); err != nil {
				return Response{}, nil, err
			}
			continue
		}
		return Response{}, nil, faultFor(failure{cat: cat, model: m.name, agent: req.Agent,
			attempts: attempts, err: err, ctxErr: ctx.Err(), setting: m.ep.setting()}, c.red)
	}
}

// backoff waits before transient retry n (1-based): Retry-After when the
// server sent one, else MinBackoff·2^(n-1); both capped at MaxBackoff.
func (c *Client) backoff(ctx context.Context, agent, model string, n int, err error) error {
	d := c.backoffDelay(n, err)
	c.log(slog.LevelInfo, fmt.Sprintf("[agent:%s] %s: %s; retry %d in %s", agent, model, err.Error(), n, d))
	c.notify("model %s (%s): %s; retry %d of %d in %s", model, agent, err, n, c.cfg.MaxAttempts-1, d)
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
// the call. It returns the completion cap for the attempt (0 = none sent):
// the smallest of the request's MaxTokens, the model's max_tokens and the
// server's stated maximum (Anthropic: limits.AnthropicMaxTokens when none
// is set), lowered to what is left of the token and dollar budgets. No cap
// is sent to an OpenAI-compatible server when none is set: a large
// max_tokens is refused by servers whose context is smaller, with an error
// that reads like a context overflow.
func (c *Client) admit(ctx context.Context, req Request, m *model) (int, error) {
	if err := c.waitQuota(ctx, m.ep); err != nil {
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
	want := capOf(req.MaxTokens, m.set.MaxTokens, c.stateOf(m).outCap)
	if want == 0 && m.ep.provider == ProviderAnthropic {
		want = capOf(limits.AnthropicMaxTokens, c.stateOf(m).outCap)
	}
	if want > 0 {
		want = min(want, left)
	}
	want, err := c.admitCost(m, need, want)
	if err != nil {
		return 0, err
	}
	c.spent.Calls++
	return want, nil
}

// capOf is the smallest positive cap (0 = none).
func capOf(caps ...int) int {
	out := 0
	for _, v := range caps {
		if v > 0 && (out == 0 || v < out) {
			out = v
		}
	}
	return out
}

// noteError records an API error for the breaker and returns the breaker's
// error when this error trips it.
func (c *Client) noteError(cat string, err error) error {
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
		var ce *connectError
		setting := ""
		if errors.As(err, &ce) {
			setting = ce.setting
		}
		c.tripped = breakerError(len(c.errTimes), c.cfg.BreakerWindow, c.red(err.Error()), setting)
		return c.tripped
	}
	return nil
}

// log writes a redacted line.
func (c *Client) log(level slog.Level, msg string) {
	c.cfg.Log.Log(context.Background(), level, c.red(msg))
}

// Budget is what a task may spend, and when the circuit breaker opens, as a Client enforces it.
type Budget struct {
	Calls, Tokens int           // API calls (retries and probes included) and tokens per task
	BreakerErrors int           // API errors ...
	BreakerWindow time.Duration // ... within this window open the breaker and end the task
}

// Budget returns the client's effective budgets.
func (c *Client) Budget() Budget {
	return Budget{Calls: c.cfg.MaxCalls, Tokens: c.cfg.MaxTokens, BreakerErrors: c.cfg.BreakerErrors, BreakerWindow: c.cfg.BreakerWindow}
}
