package llm

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// pause is one quota pause: every call waits on done; err is the outcome
// (nil = the quota came back, resume).
type pause struct {
	done     chan struct{}
	err      error
	canceled bool // the prober's own caller went away: waiters try again
}

// quotaGeneration counts the pauses that ended with the quota back.
func (c *Client) quotaGeneration() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quotaGen
}

// waitQuota blocks while the client is paused on quota.
func (c *Client) waitQuota(ctx context.Context) error {
	for {
		c.mu.Lock()
		p := c.quota
		c.mu.Unlock()
		if p == nil {
			return nil
		}
		select {
		case <-p.done:
			if !p.canceled {
				return p.err
			}
		case <-ctx.Done():
			return ctxFault(ctx, "call cancelled while paused on the API quota")
		}
	}
}

// quotaPause pauses every call of the client after an insufficient_quota
// answer and probes once every QuotaProbe until the quota is back (nil:
// requeue the call) or the next probe would be past the deadline
// (fault.Timeout). A caller that finds a pause under way waits for it; one
// whose attempt started before the last resume (gen is older) is requeued
// at once instead of pausing again.
func (c *Client) quotaPause(ctx context.Context, agent, model, cause string, gen int) error {
	c.mu.Lock()
	if c.quota != nil {
		c.mu.Unlock()
		return c.waitQuota(ctx)
	}
	if gen != c.quotaGen {
		c.mu.Unlock()
		return nil
	}
	p := &pause{done: make(chan struct{})}
	c.quota = p
	c.mu.Unlock()

	err := c.probeLoop(ctx, agent, model, cause)
	c.mu.Lock()
	p.err, p.canceled = err, ctx.Err() != nil
	c.quota = nil
	if err == nil {
		c.quotaGen++
	}
	c.mu.Unlock()
	close(p.done)
	return err
}

func (c *Client) deadline(ctx context.Context) time.Time {
	d := c.cfg.Deadline
	if cd, ok := ctx.Deadline(); ok && (d.IsZero() || cd.Before(d)) {
		d = cd
	}
	return d
}

func (c *Client) probeLoop(ctx context.Context, agent, model, cause string) error {
	deadline := c.deadline(ctx)
	if deadline.IsZero() {
		return quotaNoDeadlineError(model, cause)
	}
	for n := 1; ; n++ {
		if c.cfg.Now().Add(c.cfg.QuotaProbe).After(deadline) {
			return quotaDeadlineError(model, cause)
		}
		c.log(slog.LevelWarn, fmt.Sprintf("[agent:%s] API quota exhausted on %s (%s); all calls paused, probe %d in %s",
			agent, model, cause, n, c.cfg.QuotaProbe))
		if err := c.cfg.Sleep(ctx, c.cfg.QuotaProbe); err != nil {
			return ctxFault(ctx, "call cancelled while paused on the API quota")
		}
		ok, err := c.probe(ctx, agent, model)
		if err != nil {
			return err
		}
		if ok {
			c.log(slog.LevelInfo, fmt.Sprintf("[agent:%s] API quota is back on %s; resuming the paused calls", agent, model))
			return nil
		}
	}
}

// probe sends one cheap request (one token). It counts against the budgets.
func (c *Client) probe(ctx context.Context, agent, model string) (bool, error) {
	msgs := []Message{{Role: "user", Content: "ping"}}
	if _, err := c.admitProbe(msgs); err != nil {
		return false, err
	}
	st := newStreamState(nil)
	start := time.Now()
	br := BackendRequest{Model: model, Messages: msgs, MaxTokens: 1, MaxCompletionTokens: c.useMaxCompletion(model)}
	err := c.stream(ctx, br, st.add)
	lat := time.Since(start)
	if err == nil && st.finish == "" {
		err = errDropped
	}
	u := Usage{}
	if st.started {
		u = st.usage(msgs)
	}
	c.addTokens(u.Total())
	cat := ""
	if err != nil {
		cat = classify(err, ctx.Err(), false, false)
	}
	c.report(Call{Agent: agent, Model: model, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		Latency: lat, Status: status(cat), Err: errText(err), Probe: true})
	if cat == catCanceled {
		return false, ctxFault(ctx, "call cancelled while probing the API quota")
	}
	return err == nil, nil
}

func (c *Client) admitProbe(msgs []Message) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spent.Calls >= c.cfg.MaxCalls {
		return 0, budgetCallsError(c.spent.Calls, c.cfg.MaxCalls)
	}
	if need := estimatePrompt(msgs) + 1; c.spent.Tokens+need > c.cfg.MaxTokens {
		return 0, budgetTokensError(c.spent.Tokens, need, c.cfg.MaxTokens)
	}
	c.spent.Calls++
	return 1, nil
}
