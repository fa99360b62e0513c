package llm

import (
	"fmt"
	"log/slog"
	"math"
	"strconv"

	"github.com/rlm-sandbox/rlm/fault"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	In, Out float64
	// Cached is the price of prompt tokens read from the server's cache;
	// nil = In (no discount assumed).
	Cached *float64
}

func (p *Price) check(name string) error {
	if p == nil {
		return nil
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"price_in", &p.In}, {"price_out", &p.Out}, {"price_cached", p.Cached}} {
		if f.v != nil && !(*f.v >= 0 && !math.IsInf(*f.v, 0)) {
			return configError("[models.%s] %s = %v: want a finite number ≥ 0 of US dollars per million tokens", name, f.key, *f.v)
		}
	}
	return nil
}

// of prices a usage: uncached prompt tokens at In, cached ones at Cached,
// completion tokens at Out.
func (p *Price) of(u Usage) float64 {
	cached := min(max(u.CachedTokens, 0), u.PromptTokens)
	cp := p.In
	if p.Cached != nil {
		cp = *p.Cached
	}
	return (float64(u.PromptTokens-cached)*p.In + float64(cached)*cp + float64(u.CompletionTokens)*p.Out) / 1e6
}

// Cost is an amount of US dollars that may be partly unknown: USD sums the
// attempts whose cost is known and Unknown counts the others (no price and
// no cost reported by the server). The zero value is a known $0. A Cost with
// Unknown > 0 is a lower bound: show it with String, never USD alone.
type Cost struct {
	USD     float64
	Unknown int
}

// unknownCost is the cost of one attempt that cannot be priced.
var unknownCost = Cost{Unknown: 1}

// Known reports whether USD is the whole cost.
func (c Cost) Known() bool { return c.Unknown == 0 }

// Add returns the sum of two costs.
func (c Cost) Add(o Cost) Cost { return Cost{USD: c.USD + o.USD, Unknown: c.Unknown + o.Unknown} }

// String formats the cost: "$0.0123", "unknown" (nothing known), or
// "≥ $0.0123 (2 calls of unknown cost)".
func (c Cost) String() string {
	switch {
	case c.Unknown == 0:
		return formatUSD(c.USD)
	case c.USD == 0:
		return "unknown"
	}
	calls := "calls"
	if c.Unknown == 1 {
		calls = "call"
	}
	return fmt.Sprintf("≥ %s (%d %s of unknown cost)", formatUSD(c.USD), c.Unknown, calls)
}

// formatUSD writes dollars with up to 6 decimals, trailing zeros dropped.
func formatUSD(v float64) string {
	return "$" + strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// costOf is an attempt's cost: the server's reported cost, else the price
// applied to the usage, else unknown. An attempt that got no tokens is free.
func costOf(m *model, u Usage, reported *float64) Cost {
	switch {
	case reported != nil && *reported >= 0 && !math.IsInf(*reported, 0):
		return Cost{USD: *reported}
	case u.PromptTokens+u.CompletionTokens == 0:
		return Cost{}
	case m.price != nil:
		return Cost{USD: m.price.of(u)}
	}
	return unknownCost
}

// admitCost checks the dollar budget before an attempt (c.mu held) and
// returns the completion cap lowered to what the budget can still pay for.
// want is the cap that would be sent (0 = none: then nothing is lowered, and
// the attempt may overrun the budget by its completion, as with tokens).
func (c *Client) admitCost(m *model, prompt, want int) (int, error) {
	if c.cfg.MaxCost <= 0 {
		return want, nil
	}
	if c.stateOf(m).costUnknown {
		return 0, costUnknownError(m.name, c.cfg.MaxCost)
	}
	left := c.cfg.MaxCost - c.spent.Cost.USD
	var need float64
	if m.price != nil {
		need = m.price.of(Usage{PromptTokens: prompt})
	}
	if left <= 0 || need >= left {
		return 0, budgetCostError(c.spent.Cost, need, c.cfg.MaxCost)
	}
	if m.price == nil || m.price.Out <= 0 || want == 0 {
		return want, nil
	}
	afford := (left - need) / m.price.Out * 1e6
	if afford < 1 {
		return 0, budgetCostError(c.spent.Cost, need+m.price.Out/1e6, c.cfg.MaxCost)
	}
	return int(min(float64(want), afford)), nil
}

// noteCost adds an attempt's cost to the spent figures; under a dollar
// budget, an unknown cost marks the model so that it is not called again.
func (c *Client) noteCost(m *model, cost Cost) {
	c.mu.Lock()
	c.spent.Cost = c.spent.Cost.Add(cost)
	first := false
	if !cost.Known() && c.cfg.MaxCost > 0 {
		st := c.stateOf(m)
		first, st.costUnknown = !st.costUnknown, true
	}
	c.mu.Unlock()
	if first {
		c.log(slog.LevelWarn, fmt.Sprintf("model %s has no price and its server reported no cost; under the dollar budget it is not called again", m.name))
	}
}

// MaxCost returns the dollar budget (0 = none). With Remaining, a caller
// can share what is left of it with a sub-run.
func (c *Client) MaxCost() float64 { return c.cfg.MaxCost }

func budgetCostError(spent Cost, need, maxUSD float64) *fault.Error {
	return fault.New(fault.Limit, "budget: %s of %s spent and this call needs about %s more; raise the dollar budget (rlm run --max-cost, llm.Config.MaxCost), use a cheaper model, or split the task", spent, formatUSD(maxUSD), formatUSD(need))
}

func costUnknownError(model string, maxUSD float64) *fault.Error {
	return fault.New(fault.Limit, "budget: a dollar budget (%s) is set but model %s has no price and its server reports no cost, so its spending cannot be counted; set price_in and price_out in [models.%s] of rlm.toml, or run without --max-cost", formatUSD(maxUSD), model, model)
}
