package llm_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

var s = time.Second

type retryCase struct {
	name      string
	edit      func(*llm.Config)
	replies   []llmtest.Reply
	wantErr   fault.Kind // "" = success
	wantMsg   string
	wantWaits []time.Duration // nil = not checked
	wantReqs  int
	wantState []string
	// only limits the case to one provider ("" = both); anthropicState
	// overrides wantState on the Anthropic server.
	only           llm.Provider
	anthropicState []string
}

var (
	okReply  = llmtest.Reply{Text: "Fine."}
	e500     = llmtest.Reply{Kind: llmtest.ServerError, Times: -1}
	noBreak  = func(c *llm.Config) { c.BreakerErrors = 100 }
	noWaits  = []time.Duration{}
	retryTab = []retryCase{
		{name: "429 Retry-After seconds honoured",
			replies:   []llmtest.Reply{{Kind: llmtest.RateLimit, RetryAfter: "3"}, okReply},
			wantWaits: []time.Duration{3 * s}, wantReqs: 2, wantState: []string{"error:rate_limit", "ok"}},
		{name: "429 Retry-After capped at MaxBackoff",
			replies:   []llmtest.Reply{{Kind: llmtest.RateLimit, RetryAfter: "120"}, okReply},
			wantWaits: []time.Duration{30 * s}, wantReqs: 2},
		{name: "429 without Retry-After backs off 1 s",
			replies:   []llmtest.Reply{{Kind: llmtest.RateLimit}, okReply},
			wantWaits: []time.Duration{s}, wantReqs: 2},
		{name: "5xx backoff 1,2,4,8 then success",
			replies:   []llmtest.Reply{{Kind: llmtest.ServerError, Times: 2}, {Kind: llmtest.ServerError, Status: 503}, {Kind: llmtest.ServerError, Status: 502}, okReply},
			wantWaits: []time.Duration{s, 2 * s, 4 * s, 8 * s}, wantReqs: 5,
			wantState: []string{"error:server", "error:server", "error:server", "error:server", "ok"}},
		{name: "backoff capped at MaxBackoff",
			edit:      func(c *llm.Config) { c.MaxAttempts, c.MaxBackoff, c.BreakerErrors = 7, 5*s, 100 },
			replies:   []llmtest.Reply{{Kind: llmtest.ServerError, Times: 6}, okReply},
			wantWaits: []time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s}, wantReqs: 7},
		{name: "5xx gives up after 5 attempts", edit: noBreak,
			replies: []llmtest.Reply{e500}, wantErr: fault.Unavailable, wantMsg: "unavailable after 5 attempts",
			wantWaits: []time.Duration{s, 2 * s, 4 * s, 8 * s}, wantReqs: 5},
		{name: "persistent 429 is a limit", edit: noBreak,
			replies: []llmtest.Reply{{Kind: llmtest.RateLimit, Times: -1}}, wantErr: fault.Limit,
			wantMsg: "rate-limited after 5 attempts", wantReqs: 5},
		{name: "dropped stream retried",
			replies:   []llmtest.Reply{{Kind: llmtest.Drop, Text: "one two three four five six"}, okReply},
			wantWaits: []time.Duration{s}, wantReqs: 2, wantState: []string{"error:transport", "ok"}},
		{name: "SSE error event retried",
			replies:   []llmtest.Reply{{Kind: llmtest.StreamError, Text: "one two three four"}, okReply},
			wantWaits: []time.Duration{s}, wantReqs: 2, wantState: []string{"error:transport", "ok"},
			anthropicState: []string{"error:server", "ok"}}, // Anthropic's error event says overloaded_error
		{name: "rate_limit_error event retried", only: llm.ProviderAnthropic,
			replies:   []llmtest.Reply{{Kind: llmtest.StreamError, ErrorType: "rate_limit_error", Text: "one two three four"}, okReply},
			wantWaits: []time.Duration{s}, wantReqs: 2, wantState: []string{"error:rate_limit", "ok"}},
		{name: "invalid_request_error event not retried", only: llm.ProviderAnthropic,
			replies: []llmtest.Reply{{Kind: llmtest.StreamError, ErrorType: "invalid_request_error", Text: "one two three four"}, okReply},
			wantErr: fault.Format, wantMsg: "not retried", wantWaits: noWaits, wantReqs: 1, wantState: []string{"error:bad_request"}},
		{name: "529 overloaded backs off 1,2 then success",
			replies:   []llmtest.Reply{{Kind: llmtest.Overloaded, Times: 2}, okReply},
			wantWaits: []time.Duration{s, 2 * s}, wantReqs: 3, wantState: []string{"error:server", "error:server", "ok"}},
		{name: "529 overloaded with retry-after honoured",
			replies:   []llmtest.Reply{{Kind: llmtest.Overloaded, RetryAfter: "7"}, okReply},
			wantWaits: []time.Duration{7 * s}, wantReqs: 2},
		{name: "504 timeout_error retried",
			replies:   []llmtest.Reply{{Kind: llmtest.ServerError, Status: 504}, okReply},
			wantWaits: []time.Duration{s}, wantReqs: 2, wantState: []string{"error:server", "ok"}},
		{name: "context length never retried",
			replies: []llmtest.Reply{{Kind: llmtest.ContextLength}, okReply}, wantErr: fault.Limit,
			wantMsg: "split the prompt", wantWaits: noWaits, wantReqs: 1, wantState: []string{"error:context_length"}},
		{name: "413 request too large is a context-length error",
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest, Status: 413, Message: "Request exceeds the maximum allowed number of bytes."}, okReply},
			wantErr: fault.Limit, wantMsg: "split the prompt", wantReqs: 1, wantState: []string{"error:context_length"}},
		{name: "Anthropic context limit with max_tokens never retried", only: llm.ProviderAnthropic,
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest, Message: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again"}, okReply},
			wantErr: fault.Limit, wantMsg: "split the prompt", wantReqs: 1, wantState: []string{"error:context_length"}},
		{name: "context length in vLLM shape never retried", only: llm.ProviderOpenAI,
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest, Dialect: llmtest.VLLM, Message: "This model's maximum context length is 4096 tokens."}, okReply},
			wantErr: fault.Limit, wantMsg: "split the prompt", wantReqs: 1},
		{name: "400 never retried",
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest}, okReply}, wantErr: fault.Format,
			wantMsg: "not retried", wantWaits: noWaits, wantReqs: 1, wantState: []string{"error:bad_request"}},
		{name: "401 never retried",
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest, Status: 401, Message: "Incorrect API key provided"}, okReply},
			wantErr: fault.Format, wantReqs: 1},
		{name: "quota without deadline never retried",
			replies: []llmtest.Reply{{Kind: llmtest.Quota}, okReply}, wantErr: fault.Limit,
			wantMsg: "quota exhausted", wantWaits: noWaits, wantReqs: 1, wantState: []string{"error:quota"}},
		{name: "402 billing is a quota, never retried",
			replies: []llmtest.Reply{{Kind: llmtest.Quota, Status: 402}, okReply}, wantErr: fault.Limit,
			wantMsg: "quota exhausted", wantWaits: noWaits, wantReqs: 1, wantState: []string{"error:quota"}},
		{name: "OpenRouter 402 insufficient credits is a quota", only: llm.ProviderOpenAI,
			replies: []llmtest.Reply{{Kind: llmtest.Quota, Dialect: llmtest.OpenRouter}, okReply}, wantErr: fault.Limit,
			wantMsg: "quota exhausted", wantReqs: 1, wantState: []string{"error:quota"}},
		{name: "403 never retried",
			replies: []llmtest.Reply{{Kind: llmtest.BadRequest, Status: 403, Message: "Your API key does not have permission to use the specified resource."}, okReply},
			wantErr: fault.Format, wantReqs: 1, wantState: []string{"error:bad_request"}},
	}
)

// TestRetries covers the retry rules: which failures are retried, the
// backoff sequence, Retry-After, and the kind of the final error, against
// the OpenAI-compatible and the Anthropic fake.
func TestRetries(t *testing.T) {
	forProviders(t, func(t *testing.T, p llm.Provider) {
		for _, tc := range retryTab {
			if tc.only != "" && tc.only != p {
				continue
			}
			if p == llm.ProviderAnthropic && tc.anthropicState != nil {
				tc.wantState = tc.anthropicState
			}
			t.Run(tc.name, func(t *testing.T) { checkRetry(t, p, tc) })
		}
		t.Run("429 Retry-After HTTP date honoured", func(t *testing.T) { checkRetryDate(t, p) })
	})
}

func checkRetryDate(t *testing.T, p llm.Provider) {
	httpDate := time.Now().Add(10 * s).UTC().Format(http.TimeFormat)
	h := newHarnessFor(t, p, nil, llmtest.Reply{Kind: llmtest.RateLimit, RetryAfter: httpDate}, okReply)
	if _, err := h.complete(ask("hello")); err != nil {
		t.Fatal(err)
	}
	w := h.clock.Waits()
	if len(w) != 1 || w[0] < 7*s || w[0] > 10*s {
		t.Errorf("waits = %v, want one wait of about 10 s", w)
	}
}

func checkRetry(t *testing.T, p llm.Provider, tc retryCase) {
	h := newHarnessFor(t, p, tc.edit, tc.replies...)
	resp, err := h.complete(ask("hello"))
	if got := fault.KindOf(err); got != tc.wantErr {
		t.Fatalf("error kind = %q (%v), want %q", got, err, tc.wantErr)
	}
	if err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) {
			t.Errorf("error %T is not a *fault.Error", err)
		}
		if !strings.Contains(err.Error(), tc.wantMsg) {
			t.Errorf("error = %q, want it to contain %q", err, tc.wantMsg)
		}
	} else if resp.Text != "Fine." || resp.Attempts != tc.wantReqs {
		t.Errorf("response = %q after %d attempts, want %q after %d", resp.Text, resp.Attempts, "Fine.", tc.wantReqs)
	}
	if got := h.clock.Waits(); tc.wantWaits != nil && !equalDurations(got, tc.wantWaits) {
		t.Errorf("waits = %v, want %v", got, tc.wantWaits)
	}
	if got := len(h.srv.Requests()); got != tc.wantReqs {
		t.Errorf("requests = %d, want %d", got, tc.wantReqs)
	}
	if tc.wantState != nil && joinStrings(h.statuses()) != joinStrings(tc.wantState) {
		t.Errorf("call statuses = %v, want %v", h.statuses(), tc.wantState)
	}
}

// TestIdleTimeout: a stream silent for longer than IdleTimeout is cancelled
// and retried; one that stays silent ends in fault.Timeout.
func TestIdleTimeout(t *testing.T) { forProviders(t, testIdleTimeout) }

func testIdleTimeout(t *testing.T, p llm.Provider) {
	idle := func(c *llm.Config) { c.IdleTimeout, c.BreakerErrors, c.MaxAttempts = 40*time.Millisecond, 100, 3 }
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		wantErr  fault.Kind
		wantStat []string
	}{
		{"silent between chunks, then ok",
			[]llmtest.Reply{{Text: "a b c", ChunkDelay: 400 * time.Millisecond}, {Text: "Fine."}}, "",
			[]string{"error:idle_timeout", "ok"}},
		{"silent before the first byte, then ok",
			[]llmtest.Reply{{Text: "a b c", Latency: 400 * time.Millisecond}, {Text: "Fine."}}, "",
			[]string{"error:idle_timeout", "ok"}},
		{"always silent",
			[]llmtest.Reply{{Text: "a b c", Latency: 400 * time.Millisecond, Times: -1}}, fault.Timeout,
			[]string{"error:idle_timeout", "error:idle_timeout", "error:idle_timeout"}},
		{"slow but never idle",
			[]llmtest.Reply{{Text: "a b c d e", ChunkDelay: 10 * time.Millisecond}}, "",
			[]string{"ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, p, idle, tc.replies...)
			start := time.Now()
			_, err := h.complete(ask("hello"))
			if got := fault.KindOf(err); got != tc.wantErr {
				t.Fatalf("error kind = %q (%v), want %q", got, err, tc.wantErr)
			}
			if joinStrings(h.statuses()) != joinStrings(tc.wantStat) {
				t.Errorf("statuses = %v, want %v", h.statuses(), tc.wantStat)
			}
			if el := time.Since(start); el > 350*time.Millisecond {
				t.Errorf("took %s: the idle timer did not cancel the attempt", el)
			}
		})
	}
}
