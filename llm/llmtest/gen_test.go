package llmtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm/replay"
	"github.com/rlm-sandbox/rlm/monitor"
)

// feed runs generated tokens through a monitor the way the client does.
func feed(toks []replay.Token, tier monitor.Tier, withLP bool) monitor.Verdict {
	m := monitor.New(monitor.ForTier(tier), 0)
	for _, t := range toks {
		tok := monitor.Token{Text: t.Text}
		if withLP {
			tok.Logprob, tok.HasLogprobs = t.Logprob, true
			for _, a := range t.Top {
				tok.TopLogprobs = append(tok.TopLogprobs, a.Logprob)
			}
		}
		if v := m.Observe(tok); v.Abort {
			return v
		}
	}
	return m.Finish("stop")
}

// TestMonitorVerdicts: the generated logprobs are realistic enough that
// the monitor passes healthy text and aborts loops and confusion, on every
// tier, with top-20 and top-5 lists and (loops, healthy) without logprobs.
func TestMonitorVerdicts(t *testing.T) {
	tiers := []monitor.Tier{monitor.TierWorker, monitor.TierCoder, monitor.TierArchitect}
	loopText := "Let me check the input again, because the count may be off by one. "
	tests := []struct {
		rep       Reply
		k         int
		withLP    bool
		wantAbort bool
	}{
		{Reply{Tokens: 800}, 20, true, false},
		{Reply{Tokens: 800}, 5, true, false},
		{Reply{Tokens: 800}, 20, false, false},
		{Reply{Text: strings.Repeat("The quick parser reads each line once. ", 1) + "Then it stops."}, 20, true, false},
		{Reply{Kind: Loop}, 20, true, true},
		{Reply{Kind: Loop, Text: loopText, Tokens: 500}, 5, true, true},
		{Reply{Kind: Loop, Text: loopText, Tokens: 500}, 20, false, true},
		{Reply{Kind: Confused}, 20, true, true},
	}
	for _, tc := range tests {
		for _, tier := range tiers {
			for seed := range 3 {
				name := fmt.Sprintf("%s/%d tokens/top-%d/logprobs %v/%s/seed %d", kindName(tc.rep.Kind), tc.rep.Tokens, tc.k, tc.withLP, tier, seed)
				v := feed(generate(tc.rep, tc.k, fmt.Sprint(seed)), tier, tc.withLP)
				if v.Abort != tc.wantAbort {
					t.Errorf("%s: abort = %v (%s %s), want %v", name, v.Abort, v.Reason, v.Detail, tc.wantAbort)
				}
			}
		}
	}
}

func kindName(k Kind) string {
	if k == "" {
		return "healthy"
	}
	return string(k)
}
