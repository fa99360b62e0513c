package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// TestBreaker: 5 API errors within 60 s open the breaker for every later
// call; errors spread over more than the window do not.
func TestBreaker(t *testing.T) { forProviders(t, testBreaker) }

func testBreaker(t *testing.T, p llm.Provider) {
	tests := []struct {
		name     string
		edit     func(*llm.Config)
		wantKind fault.Kind
		wantMsg  string
		wantReqs int
	}{
		{"5 errors in the window", nil, fault.Unavailable, "Circuit breaker: API error rate", 5},
		{"3 errors in the window", func(c *llm.Config) { c.BreakerErrors = 3 }, fault.Unavailable, "Circuit breaker: API error rate", 3},
		{"errors 61 s apart", func(c *llm.Config) { c.MinBackoff, c.MaxBackoff = 61*time.Second, 61*time.Second }, fault.Unavailable, "unavailable after 5 attempts", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, p, tc.edit, llmtest.Reply{Kind: llmtest.ServerError, Times: -1})
			_, err := h.complete(ask("hello"))
			if fault.KindOf(err) != tc.wantKind || !strings.HasPrefix(err.Error(), tc.wantMsg) && !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v (%s), want %s containing %q", err, fault.KindOf(err), tc.wantKind, tc.wantMsg)
			}
			if got := len(h.srv.Requests()); got != tc.wantReqs {
				t.Errorf("requests = %d, want %d", got, tc.wantReqs)
			}
			if tc.wantKind != fault.Limit {
				return
			}
			if !strings.HasPrefix(err.Error(), "Circuit breaker: API error rate") {
				t.Errorf("message %q does not start with the breaker prefix", err)
			}
			var fe *fault.Error
			if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &fe) || fe.Msg != err.Error() {
				t.Errorf("the breaker's error %v: want llm.ErrUnavailable and a *fault.Error with the same message", err)
			}
			_, err2 := h.complete(ask("again"))
			if err2 == nil || !strings.HasPrefix(err2.Error(), "Circuit breaker: API error rate") {
				t.Errorf("second call: err = %v, want the open breaker", err2)
			}
			if got := len(h.srv.Requests()); got != tc.wantReqs {
				t.Errorf("the open breaker let a request through: %d requests", got)
			}
		})
	}
}

type budgetCase struct {
	name      string
	edit      func(*llm.Config)
	replies   []llmtest.Reply
	prompts   []string
	wantOK    int // calls that succeed before the refusal
	wantMsg   string
	wantReqs  int
	wantSpent llm.Spent
}

var long = strings.Repeat("word ", 200) // about 254 tokens estimated

var budgetTab = []budgetCase{
	{name: "call budget", edit: func(c *llm.Config) { c.MaxCalls = 2 },
		replies: []llmtest.Reply{{Text: "a", PromptTokens: 5, Times: -1}}, prompts: []string{"1", "2", "3"},
		wantOK: 2, wantMsg: "budget: 2 of 2 API calls used", wantReqs: 2, wantSpent: llm.Spent{Calls: 2, Tokens: 12, PromptTokens: 10, CompletionTokens: 2, Cost: llm.Cost{Unknown: 2}}},
	{name: "resumed task already spent", edit: func(c *llm.Config) { c.Spent = llm.Spent{Calls: 80, Tokens: 10} },
		replies: []llmtest.Reply{{Text: "a"}}, prompts: []string{"1"},
		wantOK: 0, wantMsg: "budget: 80 of 80 API calls used", wantReqs: 0, wantSpent: llm.Spent{Calls: 80, Tokens: 10}},
	{name: "retries count as calls", edit: func(c *llm.Config) { c.MaxCalls = 2 },
		replies: []llmtest.Reply{{Kind: llmtest.ServerError, Times: -1}}, prompts: []string{"1"},
		wantOK: 0, wantMsg: "budget: 2 of 2 API calls used", wantReqs: 2, wantSpent: llm.Spent{Calls: 2}},
	{name: "tokens checked before", edit: func(c *llm.Config) { c.MaxTokens = 100 },
		replies: []llmtest.Reply{{Text: "a"}}, prompts: []string{long},
		wantOK: 0, wantMsg: "budget: 0 of 100 tokens used", wantReqs: 0},
	{name: "tokens added after", edit: func(c *llm.Config) { c.MaxTokens = 56 },
		replies: []llmtest.Reply{{Text: "x y z", PromptTokens: 50, Times: -1}}, prompts: []string{"1", "2"},
		wantOK: 1, wantMsg: "budget: 53 of 56 tokens used", wantReqs: 1, wantSpent: llm.Spent{Calls: 1, Tokens: 53, PromptTokens: 50, CompletionTokens: 3, Cost: llm.Cost{Unknown: 1}}},
}

// TestBudgets: calls and tokens are checked before each attempt (refused
// without a request) and after it (tokens added).
func TestBudgets(t *testing.T) { forProviders(t, testBudgets) }

func testBudgets(t *testing.T, p llm.Provider) {
	for _, tc := range budgetTab {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, p, tc.edit, tc.replies...)
			okN, lastErr := 0, error(nil)
			for _, p := range tc.prompts {
				if _, err := h.complete(ask(p)); err != nil {
					lastErr = err
					break
				}
				okN++
			}
			if okN != tc.wantOK || lastErr == nil || fault.KindOf(lastErr) != fault.Limit || !strings.Contains(lastErr.Error(), tc.wantMsg) {
				t.Fatalf("%d calls ok then err = %v; want %d then a limit containing %q", okN, lastErr, tc.wantOK, tc.wantMsg)
			}
			if got := len(h.srv.Requests()); got != tc.wantReqs {
				t.Errorf("requests = %d, want %d", got, tc.wantReqs)
			}
			if got := h.c.Spent(); tc.wantSpent != (llm.Spent{}) && got != tc.wantSpent {
				t.Errorf("spent = %+v, want %+v", got, tc.wantSpent)
			}
			calls, in, out := 0, 0, 0
			for _, c := range h.Calls() {
				calls++
				in, out = in+c.PromptTokens, out+c.CompletionTokens
			}
			var start llm.Config
			tc.edit(&start)
			if sp := h.c.Spent(); sp.Calls != start.Spent.Calls+calls || sp.Tokens != start.Spent.Tokens+in+out ||
				sp.PromptTokens != start.Spent.PromptTokens+in || sp.CompletionTokens != start.Spent.CompletionTokens+out {
				t.Errorf("observer saw %d calls / %d+%d tokens from %+v, spent says %+v", calls, in, out, start.Spent, sp)
			}
		})
	}
}

// TestMaxTokensCappedByBudget: a request's max_tokens is lowered to what
// is left of the token budget; without MaxTokens none is sent to an
// OpenAI-compatible server, and Anthropic's default, lowered, to Anthropic.
func TestMaxTokensCappedByBudget(t *testing.T) { forProviders(t, testMaxTokensCappedByBudget) }

func testMaxTokensCappedByBudget(t *testing.T, p llm.Provider) {
	h := newHarnessFor(t, p, func(c *llm.Config) { c.MaxTokens = 100 }, llmtest.Reply{Text: "a", Times: -1})
	req := ask("hi") // 1 + 4 framing tokens estimated
	req.MaxTokens = 1000
	if _, err := h.complete(req); err != nil {
		t.Fatal(err)
	}
	if _, err := h.complete(ask("hi")); err != nil {
		t.Fatal(err)
	}
	rs := h.srv.Requests()
	if got, want := rs[0].MaxTokens, 95; got != want {
		t.Errorf("max_tokens = %d, want %d (budget 100 − 5 prompt)", got, want)
	}
	// Second call: 100 − 2 spent (1 prompt + 1 completion) − 5 estimated.
	want := map[llm.Provider]int{llm.ProviderOpenAI: 0, llm.ProviderAnthropic: 93}[p]
	if rs[1].MaxTokens != want {
		t.Errorf("max_tokens = %d without a request cap, want %d", rs[1].MaxTokens, want)
	}
}

// TestConcurrentCalls: Complete is safe for concurrent use and the
// counters stay exact.
func TestConcurrentCalls(t *testing.T) { forProviders(t, testConcurrentCalls) }

func testConcurrentCalls(t *testing.T, p llm.Provider) {
	h := newHarnessFor(t, p, nil, llmtest.Reply{Text: "a b", PromptTokens: 3, Times: -1})
	done := make(chan error)
	for range 8 {
		go func() { _, err := h.c.Complete(context.Background(), ask("x")); done <- err }()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if got, want := h.c.Spent(), (llm.Spent{Calls: 8, Tokens: 8 * 5, PromptTokens: 8 * 3, CompletionTokens: 8 * 2, Cost: llm.Cost{Unknown: 8}}); got != want {
		t.Errorf("spent = %+v, want %+v", got, want)
	}
}

// TestChargeCountsAgainstBudgets: spending charged from outside (a sub-run) counts against the
// budgets: a call that would exceed them is refused.
func TestChargeCountsAgainstBudgets(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Models: []string{"m"}, MaxCalls: 5, MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	charged := llm.Spent{Calls: 5, Tokens: 10, PromptTokens: 7, CompletionTokens: 3, Cost: llm.Cost{USD: 0.5, Unknown: 1}}
	c.Charge(charged)
	if got := c.Remaining(); got != (llm.Spent{Calls: 0, Tokens: 990}) {
		t.Errorf("Remaining = %+v; want 0 calls, 990 tokens", got)
	}
	if got := c.Spent(); got != charged {
		t.Errorf("Spent = %+v; want what was charged, %+v", got, charged)
	}
	_, err = c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "budget: 5 of 5 API calls used") {
		t.Fatalf("err = %v; want the call budget refusal", err)
	}
}
