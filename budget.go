package rlm

import (
	"sync"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// budget is a Budget's state.
type budget struct {
	mu    sync.Mutex
	limit llm.Spent
	used  llm.Spent
}

func (b *budget) charge(s llm.Spent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used.Calls += max(s.Calls, 0)
	b.used.Tokens += max(s.Tokens, 0)
	b.used.PromptTokens += max(s.PromptTokens, 0)
	b.used.CompletionTokens += max(s.CompletionTokens, 0)
	b.used.Cost = b.used.Cost.Add(llm.Cost{USD: max(s.Cost.USD, 0), Unknown: max(s.Cost.Unknown, 0)})
}

func (b *budget) spent() llm.Spent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *budget) check() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, u := b.limit, b.used
	switch {
	case l.Calls > 0 && u.Calls >= l.Calls:
		return fault.New(fault.Limit, "shared budget spent: %d of %d API calls used by the runs that share it", u.Calls, l.Calls)
	case l.Tokens > 0 && u.Tokens >= l.Tokens:
		return fault.New(fault.Limit, "shared budget spent: %d of %d tokens used by the runs that share it", u.Tokens, l.Tokens)
	case l.Cost.USD > 0 && u.Cost.USD >= l.Cost.USD:
		return fault.New(fault.Limit, "shared budget spent: %s of %s used by the runs that share it", u.Cost, llm.Cost{USD: l.Cost.USD})
	}
	return nil
}

// fit lowers a run's budgets (the effective ones of its client, eff) to what is left of the
// shared budget, which check has found not spent. It reports whether it lowered any.
func (b *budget) fit(cfg *llm.Config, eff llm.Budget) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, u := b.limit, b.used
	lowered := false
	if l.Calls > 0 && l.Calls-u.Calls < eff.Calls {
		cfg.MaxCalls, lowered = max(l.Calls-u.Calls, 1), true
	}
	if l.Tokens > 0 && l.Tokens-u.Tokens < eff.Tokens {
		cfg.MaxTokens, lowered = max(l.Tokens-u.Tokens, 1), true
	}
	if left := l.Cost.USD - u.Cost.USD; l.Cost.USD > 0 && (cfg.MaxCost <= 0 || left < cfg.MaxCost) {
		cfg.MaxCost, lowered = max(left, 1e-9), true
	}
	return lowered
}
