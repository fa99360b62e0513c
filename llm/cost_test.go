package llm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

func priced(pr *llm.Price) func(*llm.Config) {
	return func(c *llm.Config) { c.Catalog = map[string]llm.ModelConfig{"small": {Price: pr}} }
}

// TestCostOfCalls: a Call's cost is the server's reported cost, else the
// price applied to the tokens (cached prompt tokens at their price), else
// unknown, never $0; an attempt without tokens costs a known $0.
func TestCostOfCalls(t *testing.T) {
	p := &llm.Price{In: 3, Out: 15}
	pc := &llm.Price{In: 3, Out: 15, Cached: f64(0.3)}
	tests := []struct {
		name     string
		p        llm.Provider
		edit     func(*llm.Config)
		replies  []llmtest.Reply
		want     []llm.Cost // per call
		wantText string     // Spent.Cost.String()
	}{
		{"priced", llm.ProviderOpenAI, priced(p), []llmtest.Reply{{Text: "a b", PromptTokens: 1000}},
			[]llm.Cost{{USD: (1000*3 + 2*15) / 1e6}}, "$0.00303"},
		{"cached at its price", llm.ProviderOpenAI, priced(pc), []llmtest.Reply{{Text: "a b", PromptTokens: 1000, CachedTokens: 600}},
			[]llm.Cost{{USD: (400*3 + 600*0.3 + 2*15) / 1e6}}, "$0.00141"},
		{"cached without a cached price", llm.ProviderOpenAI, priced(p), []llmtest.Reply{{Text: "a b", PromptTokens: 1000, CachedTokens: 600}},
			[]llm.Cost{{USD: (1000*3 + 2*15) / 1e6}}, "$0.00303"},
		{"Anthropic cache read at its price", llm.ProviderAnthropic, priced(pc), []llmtest.Reply{{Text: "a b", PromptTokens: 1000, CachedTokens: 600}},
			[]llm.Cost{{USD: (400*3 + 600*0.3 + 2*15) / 1e6}}, "$0.00141"},
		{"Anthropic thinking priced as output", llm.ProviderAnthropic, priced(p), []llmtest.Reply{{Text: "a b", Thinking: "hmm , ok", PromptTokens: 1000}},
			[]llm.Cost{{USD: (1000*3 + 5*15) / 1e6}}, "$0.003075"},
		{"OpenRouter's reported cost wins", llm.ProviderOpenAI, priced(p), []llmtest.Reply{{Text: "a b", PromptTokens: 1000, Dialect: llmtest.OpenRouter, Cost: f64(0.0042)}},
			[]llm.Cost{{USD: 0.0042}}, "$0.0042"},
		{"reported cost without a price", llm.ProviderOpenAI, nil, []llmtest.Reply{{Text: "a b", Cost: f64(0.0042)}},
			[]llm.Cost{{USD: 0.0042}}, "$0.0042"},
		{"no price: unknown", llm.ProviderOpenAI, nil, []llmtest.Reply{{Text: "a b"}},
			[]llm.Cost{{Unknown: 1}}, "unknown"},
		{"Anthropic no price: unknown", llm.ProviderAnthropic, nil, []llmtest.Reply{{Text: "a b"}},
			[]llm.Cost{{Unknown: 1}}, "unknown"},
		{"free local model", llm.ProviderOpenAI, priced(&llm.Price{}), []llmtest.Reply{{Text: "a b"}},
			[]llm.Cost{{}}, "$0"},
		{"refused attempt is free", llm.ProviderOpenAI, nil, []llmtest.Reply{{Kind: llmtest.RateLimit}, {Text: "a b"}},
			[]llm.Cost{{}, {Unknown: 1}}, "unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, tc.p, tc.edit, tc.replies...)
			resp, err := h.complete(ask("hello"))
			if err != nil {
				t.Fatal(err)
			}
			calls := h.Calls()
			if len(calls) != len(tc.want) {
				t.Fatalf("%d calls, want %d", len(calls), len(tc.want))
			}
			for i, c := range calls {
				if c.Cost.Unknown != tc.want[i].Unknown || math.Abs(c.Cost.USD-tc.want[i].USD) > 1e-12 {
					t.Errorf("call %d (%s) cost %+v, want %+v", i, c.Status, c.Cost, tc.want[i])
				}
			}
			if last := calls[len(calls)-1].Cost; resp.Cost != last {
				t.Errorf("response cost %+v, call cost %+v", resp.Cost, last)
			}
			if got := h.c.Spent().Cost.String(); got != tc.wantText {
				t.Errorf("spent cost %q, want %q", got, tc.wantText)
			}
		})
	}
}

// TestCostString: unknown is never shown as $0.
func TestCostString(t *testing.T) {
	tests := []struct {
		c    llm.Cost
		want string
	}{
		{llm.Cost{}, "$0"},
		{llm.Cost{USD: 0.0123}, "$0.0123"},
		{llm.Cost{USD: 1.5}, "$1.5"},
		{llm.Cost{USD: 0.1 + 0.2}, "$0.3"},
		{llm.Cost{Unknown: 3}, "unknown"},
		{llm.Cost{USD: 0.0123, Unknown: 1}, "≥ $0.0123 (1 call of unknown cost)"},
		{llm.Cost{USD: 2, Unknown: 2}, "≥ $2 (2 calls of unknown cost)"},
	}
	for _, tc := range tests {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v → %q, want %q", tc.c, got, tc.want)
		}
		if tc.c.Known() != (tc.c.Unknown == 0) {
			t.Errorf("%+v: Known = %v", tc.c, tc.c.Known())
		}
	}
}

type costCase struct {
	name     string
	only     llm.Provider
	edit     func(*llm.Config)
	replies  []llmtest.Reply
	prompts  []string
	maxTok   int
	wantOK   int
	wantMsg  string
	wantReqs int
	wantCap  int // max_tokens of the first request, when > 0
}

var costTab = []costCase{
	{name: "checked before: the prompt alone costs too much",
		edit:    func(c *llm.Config) { c.MaxCost = 0.001; priced(&llm.Price{In: 10, Out: 10})(c) },
		replies: []llmtest.Reply{{Text: "a"}}, prompts: []string{long},
		wantMsg: "budget: $0 of $0.001 spent and this call needs about $0.00254 more", wantReqs: 0},
	{name: "added after: the next call is refused",
		edit:    func(c *llm.Config) { c.MaxCost = 0.005; priced(&llm.Price{In: 2.5, Out: 10})(c) },
		replies: []llmtest.Reply{{Text: "a b", PromptTokens: 1000, Times: -1}}, prompts: []string{"1", "2", "3"},
		wantOK: 2, wantMsg: "budget: $0.00504 of $0.005 spent", wantReqs: 2},
	{name: "completion cap lowered to what the budget pays", maxTok: 1000,
		edit:    func(c *llm.Config) { c.MaxCost = 0.001; priced(&llm.Price{Out: 10})(c) },
		replies: []llmtest.Reply{{Text: "a b", Times: -1}}, prompts: []string{"1"}, wantOK: 1, wantCap: 100},
	{name: "no price and no reported cost stops the model", edit: func(c *llm.Config) { c.MaxCost = 5 },
		replies: []llmtest.Reply{{Text: "a b", Times: -1}}, prompts: []string{"1", "2"},
		wantOK: 1, wantMsg: "model small has no price and its server reports no cost", wantReqs: 1},
	{name: "reported cost counts", only: llm.ProviderOpenAI, edit: func(c *llm.Config) { c.MaxCost = 0.005 },
		replies: []llmtest.Reply{{Text: "a b", Dialect: llmtest.OpenRouter, Cost: f64(0.003), Times: -1}}, prompts: []string{"1", "2", "3"},
		wantOK: 2, wantMsg: "budget: $0.006 of $0.005 spent", wantReqs: 2},
	{name: "charged sub-run spending counts",
		edit:    func(c *llm.Config) { c.MaxCost = 0.01; c.Spent.Cost.USD = 0.01; priced(&llm.Price{In: 1, Out: 1})(c) },
		replies: []llmtest.Reply{{Text: "a"}}, prompts: []string{"1"}, wantMsg: "budget: $0.01 of $0.01 spent", wantReqs: 0},
}

// TestMaxCost: the dollar budget is checked before each attempt (refused
// without a request, the completion cap lowered) and after it (the cost
// added), like the token budget.
func TestMaxCost(t *testing.T) {
	forProviders(t, func(t *testing.T, p llm.Provider) {
		for _, tc := range costTab {
			if tc.only == "" || tc.only == p {
				t.Run(tc.name, func(t *testing.T) { checkCost(t, p, tc) })
			}
		}
	})
}

func checkCost(t *testing.T, p llm.Provider, tc costCase) {
	h := newHarnessFor(t, p, tc.edit, tc.replies...)
	okN, lastErr := 0, error(nil)
	for _, pr := range tc.prompts {
		req := ask(pr)
		req.MaxTokens = tc.maxTok
		if _, err := h.complete(req); err != nil {
			lastErr = err
			break
		}
		okN++
	}
	if okN != tc.wantOK {
		t.Fatalf("%d calls ok then %v, want %d", okN, lastErr, tc.wantOK)
	}
	if tc.wantMsg != "" && (fault.KindOf(lastErr) != fault.Limit || !strings.Contains(lastErr.Error(), tc.wantMsg)) {
		t.Errorf("err = %v, want a limit containing %q", lastErr, tc.wantMsg)
	}
	rs := h.srv.Requests()
	if tc.wantMsg != "" && len(rs) != tc.wantReqs {
		t.Errorf("requests = %d, want %d", len(rs), tc.wantReqs)
	}
	if tc.wantCap > 0 && (len(rs) == 0 || rs[0].MaxTokens != tc.wantCap) {
		t.Errorf("max_tokens sent %v, want %d", rs, tc.wantCap)
	}
}

// TestRemainingCost: Remaining has what is left of the dollar budget, and
// Charge adds a sub-run's cost, unknown part included.
func TestRemainingCost(t *testing.T) {
	h := newHarness(t, func(c *llm.Config) { c.MaxCost = 1 })
	h.c.Charge(llm.Spent{Calls: 2, Tokens: 10, Cost: llm.Cost{USD: 0.25, Unknown: 1}})
	if r := h.c.Remaining(); r.Cost.USD != 0.75 || h.c.MaxCost() != 1 {
		t.Errorf("Remaining %+v MaxCost %v", r, h.c.MaxCost())
	}
	if sp := h.c.Spent(); sp.Cost.String() != "≥ $0.25 (1 call of unknown cost)" {
		t.Errorf("spent %v", sp.Cost)
	}
	h2 := newHarness(t, nil)
	if r := h2.c.Remaining(); r.Cost != (llm.Cost{}) || h2.c.MaxCost() != 0 {
		t.Errorf("without a dollar budget: Remaining %+v MaxCost %v", r, h2.c.MaxCost())
	}
}
