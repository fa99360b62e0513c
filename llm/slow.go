package llm

import (
	"fmt"
	"log/slog"
	"slices"
	"time"
)

const (
	slowFactor     = 10 // a step slower than this × the baseline is slow
	baselineSample = 5  // the baseline is the median of the first latencies
	baselineMin    = 3  // samples needed before warning
)

// checkSlow compares a step's latency with its agent's baseline (the median
// of the agent's first five latencies) and logs a warning past 10×.
func (c *Client) checkSlow(agent, model string, lat time.Duration) {
	c.mu.Lock()
	s := c.base[agent]
	var base float64
	if len(s) >= baselineMin {
		sorted := slices.Sorted(slices.Values(s))
		base = sorted[len(sorted)/2]
	}
	if len(s) < baselineSample {
		c.base[agent] = append(s, lat.Seconds())
	}
	c.mu.Unlock()
	if base > 0 && lat.Seconds() > slowFactor*base {
		c.log(slog.LevelWarn, fmt.Sprintf("[agent:%s] slow step: %s took %s, more than %d× the agent's baseline of %s",
			agent, model, lat.Round(time.Millisecond), slowFactor, time.Duration(base*float64(time.Second)).Round(time.Millisecond)))
	}
}
