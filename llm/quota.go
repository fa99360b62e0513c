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

// quotaGeneration counts the backend's pauses that ended with the quota back.
func (c *Client) quotaGeneration(ep *endpoint) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quotaGen[ep.name]
}

// waitQuota blocks while the backend's calls are paused on quota.
func (c *Client) waitQuota(ctx context.Context, ep *endpoint) error {
	for {
		c.mu.Lock()
		p := c.quota[ep.name]
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

// quotaPause pauses every call to the model's backend after a quota answer
// (the quota is the key's, shared by the backend's models; other backends go
// on) and probes once every QuotaProbe until the quota is back (nil: requeue
// the call) or the next probe would be past the deadline (fault.Timeout). A
// caller that finds a pause under way waits for it; one whose attempt
// started before the last resume (gen is older) is requeued at once instead
// of pausing again.
func (c *Client) quotaPause(ctx context.Context, agent string, m *model, cause string, gen int) error {
	ep := m.ep
	c.mu.Lock()
	if c.quota[ep.name] != nil {
		c.mu.Unlock()
		return c.waitQuota(ctx, ep)
	}
	if gen != c.quotaGen[ep.name] {
		c.mu.Unlock()
		return nil
	}
	p := &pause{done: make(chan struct{})}
	c.quota[ep.name] = p
	c.mu.Unlock()

	err := c.probeLoop(ctx, agent, m, cause)
	c.mu.Lock()
	p.err, p.canceled = err, ctx.Err() != nil
	delete(c.quota, ep.name)
	if err == nil {
		c.quotaGen[ep.name]++
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

func (c *Client) probeLoop(ctx context.Context, agent string, m *model, cause string) error {
	deadline := c.deadline(ctx)
	if deadline.IsZero() {
		return quotaNoDeadlineError(m.name, cause)
	}
	for n := 1; ; n++ {
		if c.cfg.Now().Add(c.cfg.QuotaProbe).After(deadline) {
			return quotaDeadlineError(m.name, cause)
		}
		c.log(slog.LevelWarn, fmt.Sprintf("[agent:%s] API quota exhausted on %s (%s); all calls to backend %s paused, probe %d in %s",
			agent, m.name, cause, m.ep.name, n, c.cfg.QuotaProbe))
		next := c.cfg.Now().Add(c.cfg.QuotaProbe)
		if n == 1 {
			c.notify("API quota exhausted on model %s (%s): the run is paused; it probes the quota at %s, then every %s until %s (the task's deadline); add credit or use another key to go on",
				m.name, cause, clock(next), c.cfg.QuotaProbe, clock(deadline))
		} else {
			c.notify("API quota still exhausted on model %s: the run stays paused; next probe at %s", m.name, clock(next))
		}
		if err := c.cfg.Sleep(ctx, c.cfg.QuotaProbe); err != nil {
			return ctxFault(ctx, "call cancelled while paused on the API quota")
		}
		ok, err := c.probe(ctx, agent, m)
		if err != nil {
			return err
		}
		if ok {
			c.log(slog.LevelInfo, fmt.Sprintf("[agent:%s] API quota is back on %s; resuming the paused calls", agent, m.name))
			c.notify("API quota is back on model %s: the run resumes", m.name)
			return nil
		}
	}
}

// probe sends one cheap request (one token, no optional fields). It counts
// against the budgets.
func (c *Client) probe(ctx context.Context, agent string, m *model) (bool, error) {
	msgs := []Message{{Role: "user", Content: "ping"}}
	if _, err := c.admitProbe(msgs); err != nil {
		return false, err
	}
	st := newStreamState(nil)
	start := time.Now()
	br := BackendRequest{Model: m.id, Messages: msgs, MaxTokens: 1, MaxCompletionTokens: c.useMaxCompletion(m)}
	err := c.explain(m.ep, c.stream(ctx, m.ep, br, st.add))
	lat := time.Since(start)
	if err == nil && st.finish == "" {
		err = errDropped
	}
	u := Usage{Source: "none"}
	if st.started {
		u = st.usage(msgs)
	}
	cost := costOf(m, u, st.cost)
	c.addTokens(u)
	c.noteCost(m, cost)
	cat := ""
	if err != nil {
		cat = classify(err, ctx.Err(), false, false)
	}
	c.report(Call{Agent: agent, Model: m.name, Backend: m.ep.name, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		CachedTokens: u.CachedTokens, Source: u.Source, Cost: cost, Latency: lat, Status: status(cat), Err: errText(err), Probe: true})
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
