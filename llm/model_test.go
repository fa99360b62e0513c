package llm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

type escCase struct {
	name      string
	edit      func(*llm.Config)
	tier      int
	replies   []llmtest.Reply
	wantErr   fault.Kind
	wantModel string
	wantEsc   string
	wantStat  string
	wantReqs  string // models requested, in order
	only      llm.Provider
}

var three = func(c *llm.Config) { c.Models = []string{"small", "medium", "large"} }

var escTab = []escCase{
	{name: "loop escalates", replies: []llmtest.Reply{{Kind: llmtest.Loop, Model: "small"}, {Text: "Fine.", Model: "large"}},
		wantModel: "large", wantEsc: "small: loop", wantStat: "early_abort,ok", wantReqs: "small,large"},
	{name: "confusion escalates", only: llm.ProviderOpenAI, replies: []llmtest.Reply{{Kind: llmtest.Confused, Model: "small"}, {Text: "Fine.", Model: "large"}},
		wantModel: "large", wantEsc: "small: high_entropy", wantStat: "early_abort,ok", wantReqs: "small,large"},
	{name: "loop without logprobs escalates", replies: []llmtest.Reply{{Kind: llmtest.Loop, Model: "small", NoLogprobs: true, Text: "Let me look at the whole file once more before I answer the question. "}, {Text: "Fine.", Model: "large"}},
		wantModel: "large", wantEsc: "small: loop", wantStat: "early_abort,ok", wantReqs: "small,large"},
	{name: "vLLM repetition stop escalates", only: llm.ProviderOpenAI, replies: []llmtest.Reply{{Kind: llmtest.Repetition, Model: "small", Text: "and and and"}, {Text: "Fine.", Model: "large"}},
		wantModel: "large", wantEsc: "small: backend_repetition", wantStat: "early_abort,ok", wantReqs: "small,large"},
	{name: "two aborts climb two tiers", edit: three, only: llm.ProviderOpenAI,
		replies:   []llmtest.Reply{{Kind: llmtest.Loop, Model: "small"}, {Kind: llmtest.Confused, Model: "medium"}, {Text: "Fine.", Model: "large"}},
		wantModel: "large", wantEsc: "small: loop,medium: high_entropy", wantStat: "early_abort,early_abort,ok", wantReqs: "small,medium,large"},
	{name: "Tier starts higher", tier: 1, replies: []llmtest.Reply{{Text: "Fine.", Model: "large"}},
		wantModel: "large", wantStat: "ok", wantReqs: "large"},
	{name: "abort on the last tier", tier: 1, replies: []llmtest.Reply{{Kind: llmtest.Loop, Model: "large"}},
		wantErr: fault.EarlyAbort, wantStat: "early_abort", wantReqs: "large"},
	{name: "healthy long text is not aborted", replies: []llmtest.Reply{{Tokens: 600, Model: "small"}},
		wantModel: "small", wantStat: "ok", wantReqs: "small"},
	{name: "NoMonitor lets a loop through", edit: func(c *llm.Config) { c.NoMonitor = true },
		replies:   []llmtest.Reply{{Kind: llmtest.Loop, Model: "small", Tokens: 120}},
		wantModel: "small", wantStat: "ok", wantReqs: "small"},
}

// TestEscalation: an early abort cancels the stream at once (no retry) and
// the same request goes to the next model of the ladder. On Anthropic (no
// logprobs) the monitor's text-only detectors do it.
func TestEscalation(t *testing.T) {
	forProviders(t, func(t *testing.T, p llm.Provider) {
		for _, tc := range escTab {
			if tc.only == "" || tc.only == p {
				t.Run(tc.name, func(t *testing.T) { checkEscalation(t, p, tc) })
			}
		}
	})
}

func checkEscalation(t *testing.T, p llm.Provider, tc escCase) {
	h := newHarnessFor(t, p, tc.edit, tc.replies...)
	req := ask("hello")
	req.Tier = tc.tier
	resp, err := h.complete(req)
	if fault.KindOf(err) != tc.wantErr {
		t.Fatalf("err = %v (%q), want kind %q", err, fault.KindOf(err), tc.wantErr)
	}
	if resp.Model != tc.wantModel || joinStrings(resp.Escalations) != tc.wantEsc {
		t.Errorf("model %q escalations %q, want %q and %q", resp.Model, resp.Escalations, tc.wantModel, tc.wantEsc)
	}
	if joinStrings(h.statuses()) != tc.wantStat {
		t.Errorf("statuses = %v, want %s", h.statuses(), tc.wantStat)
	}
	var models []string
	for _, r := range h.srv.Requests() {
		models = append(models, r.Model)
	}
	if joinStrings(models) != tc.wantReqs {
		t.Errorf("requested models %v, want %s", models, tc.wantReqs)
	}
	for _, c := range h.Calls() {
		if c.Status == "early_abort" && c.CompletionTokens >= 300 {
			t.Errorf("aborted call streamed %d tokens: the abort did not cut the stream", c.CompletionTokens)
		}
	}
}

// TestEarlyAbortMessage: the last tier's abort is fault.EarlyAbort and says
// what to do.
func TestEarlyAbortMessage(t *testing.T) {
	h := newHarness(t, func(c *llm.Config) { c.Models = []string{"only"} }, llmtest.Reply{Kind: llmtest.Confused})
	_, err := h.complete(ask("hello"))
	if fault.KindOf(err) != fault.EarlyAbort || !strings.Contains(err.Error(), "stronger model") {
		t.Fatalf("err = %v, want an early_abort that suggests a stronger model", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("requests = %d, want 1 (an abort is never retried)", n)
	}
}

// TestLogprobFallback: logprobs are asked for, dropped once for a server
// that refuses them (and remembered), and remembered absent when a stream
// has none, per model.
func TestLogprobFallback(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		h := newHarness(t, nil, llmtest.Reply{Text: "Fine.", RejectLogprobs: true, Times: -1})
		for range 2 {
			resp, err := h.complete(ask("hi"))
			if err != nil || resp.Logprobs || resp.Text != "Fine." {
				t.Fatalf("resp %+v err %v", resp, err)
			}
		}
		var asked []bool
		for _, r := range h.srv.Requests() {
			asked = append(asked, r.Logprobs)
		}
		if len(asked) != 3 || !asked[0] || asked[1] || asked[2] {
			t.Errorf("logprobs asked per request = %v, want [true false false]", asked)
		}
		if got := h.c.LogprobsKnown("small"); got != "refused" {
			t.Errorf("LogprobsKnown = %q, want refused", got)
		}
		if got := h.c.LogprobsKnown("large"); got != "unknown" {
			t.Errorf("LogprobsKnown(large) = %q, want unknown (memory is per model)", got)
		}
	})
	t.Run("absent", func(t *testing.T) {
		h := newHarness(t, nil, llmtest.Reply{Kind: llmtest.NoLogprobs, Text: "Fine.", Times: -1})
		resp, err := h.complete(ask("hi"))
		if err != nil || resp.Logprobs {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if _, err := h.complete(ask("hi")); err != nil {
			t.Fatal(err)
		}
		rs := h.srv.Requests()
		if !rs[0].Logprobs || rs[0].TopLogprobs != 20 || rs[1].Logprobs {
			t.Errorf("requests asked logprobs %v/%d then %v, want true/20 then false", rs[0].Logprobs, rs[0].TopLogprobs, rs[1].Logprobs)
		}
		if got := h.c.LogprobsKnown("small"); got != "absent" {
			t.Errorf("LogprobsKnown = %q, want absent", got)
		}
	})
	t.Run("Anthropic has none and is never asked", func(t *testing.T) {
		h := newHarnessFor(t, llm.ProviderAnthropic, nil, llmtest.Reply{Text: "Fine.", Times: -1})
		resp, err := h.complete(ask("hi"))
		if err != nil || resp.Logprobs {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if r := h.srv.Requests()[0]; r.Has("logprobs") || r.Has("top_logprobs") || r.Has("stream_options") || !r.Stream {
			t.Errorf("request fields %s: want a stream without logprobs or stream_options", r.Body)
		}
		if got := h.c.LogprobsKnown("small"); got != "absent" {
			t.Errorf("LogprobsKnown = %q, want absent", got)
		}
	})
	t.Run("works", func(t *testing.T) {
		h := newHarness(t, nil, llmtest.Reply{Text: "Fine.", Times: -1})
		resp, err := h.complete(ask("hi"))
		if err != nil || !resp.Logprobs || h.c.LogprobsKnown("small") != "works" {
			t.Fatalf("resp %+v err %v known %s", resp, err, h.c.LogprobsKnown("small"))
		}
		if r := h.srv.Requests()[0]; !r.IncludeUsage || !r.Stream {
			t.Errorf("stream %v include_usage %v, want both", r.Stream, r.IncludeUsage)
		}
	})
}

// TestMaxCompletionTokensFallback: a model that refuses max_tokens gets
// max_completion_tokens, once and from then on.
func TestMaxCompletionTokensFallback(t *testing.T) {
	h := newHarness(t, nil, llmtest.Reply{Text: "Fine.", RejectMaxTokens: true, Times: -1})
	req := ask("hi")
	req.MaxTokens = 50
	for range 2 {
		if _, err := h.complete(req); err != nil {
			t.Fatal(err)
		}
	}
	var fields []string
	for _, r := range h.srv.Requests() {
		fields = append(fields, r.MaxTokensField)
	}
	if got, want := joinStrings(fields), "max_tokens,max_completion_tokens,max_completion_tokens"; got != want {
		t.Errorf("fields sent = %s, want %s", got, want)
	}
	if got, want := joinStrings(h.statuses()), "error:max_tokens_param,ok,ok"; got != want {
		t.Errorf("statuses = %s, want %s", got, want)
	}
}

// TestUsageSources: the usage chunk, else logprob entries, else an estimate.
func TestUsageSources(t *testing.T) {
	text := "one two three four five six seven." // 8 tokens, 34 chars
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  llm.Usage
	}{
		{"usage chunk", llmtest.Reply{Text: text, PromptTokens: 17}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, Source: "usage"}},
		{"usage on the finish chunk (llama.cpp)", llmtest.Reply{Text: text, PromptTokens: 17, Dialect: llmtest.LlamaCPP}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, Source: "usage"}},
		{"usage chunk (vLLM)", llmtest.Reply{Text: text, PromptTokens: 17, Dialect: llmtest.VLLM}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, Source: "usage"}},
		{"logprob entries", llmtest.Reply{Text: text, NoUsage: true}, llm.Usage{PromptTokens: 6, CompletionTokens: 8, Source: "logprobs"}},
		{"estimate", llmtest.Reply{Kind: llmtest.NoLogprobs, Text: text, NoUsage: true}, llm.Usage{PromptTokens: 6, CompletionTokens: 9, Source: "estimate"}},
		{"cached prompt tokens", llmtest.Reply{Text: text, PromptTokens: 17, CachedTokens: 12}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, CachedTokens: 12, Source: "usage"}},
		{"reasoning_content counted, not answered", llmtest.Reply{Text: text, Thinking: "Let me think.", PromptTokens: 17, Dialect: llmtest.VLLM}, llm.Usage{PromptTokens: 17, CompletionTokens: 8 + 4, Source: "usage"}},
		{"reasoning in the estimate", llmtest.Reply{Kind: llmtest.NoLogprobs, Text: text, Thinking: "Let me think.", NoUsage: true}, llm.Usage{PromptTokens: 6, CompletionTokens: 9 + 4, Source: "estimate"}},
		{"OpenRouter usage with cost", llmtest.Reply{Text: text, PromptTokens: 17, CachedTokens: 5, Dialect: llmtest.OpenRouter}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, CachedTokens: 5, Source: "usage"}},
		{"Anthropic message_start and message_delta", llmtest.Reply{Text: text, PromptTokens: 17}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, Source: "usage"}},
		{"Anthropic cache read", llmtest.Reply{Text: text, PromptTokens: 17, CachedTokens: 12}, llm.Usage{PromptTokens: 17, CompletionTokens: 8, CachedTokens: 12, Source: "usage"}},
		{"Anthropic thinking counted, not answered", llmtest.Reply{Text: text, Thinking: "Let me think.", PromptTokens: 17}, llm.Usage{PromptTokens: 17, CompletionTokens: 8 + 4, Source: "usage"}},
		{"Anthropic without usage", llmtest.Reply{Text: text, Thinking: "Let me think.", NoUsage: true}, llm.Usage{PromptTokens: 6, CompletionTokens: 9 + 4, Source: "estimate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := llm.ProviderOpenAI
			if strings.HasPrefix(tc.name, "Anthropic") {
				p = llm.ProviderAnthropic
			}
			h := newHarnessFor(t, p, nil, tc.reply)
			resp, err := h.complete(ask("hello")) // 5 chars → 2 + 4 framing
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != tc.want {
				t.Errorf("usage = %+v, want %+v", resp.Usage, tc.want)
			}
			if resp.Text != text {
				t.Errorf("text = %q, want %q (reasoning kept out)", resp.Text, text)
			}
			if sp := h.c.Spent(); sp.Tokens != tc.want.PromptTokens+tc.want.CompletionTokens ||
				sp.PromptTokens != tc.want.PromptTokens || sp.CompletionTokens != tc.want.CompletionTokens {
				t.Errorf("spent tokens = %d (%d+%d), want %d+%d", sp.Tokens, sp.PromptTokens, sp.CompletionTokens, tc.want.PromptTokens, tc.want.CompletionTokens)
			}
		})
	}
}

// TestSlowStep: a step slower than 10× the agent's baseline logs a warning.
func TestSlowStep(t *testing.T) {
	fast := llmtest.Reply{Text: "Fine.", Latency: 10 * time.Millisecond, Times: 4}
	slow := llmtest.Reply{Text: "Fine.", Latency: 1500 * time.Millisecond} // far past 10x the baseline even on a loaded machine
	h := newHarness(t, nil, fast, slow)
	for i := range 5 {
		if _, err := h.complete(ask("hi")); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(h.log.String(), "slow step")
		if want := i == 4; warned != want {
			t.Fatalf("after call %d: warned = %v, want %v; log:\n%s", i+1, warned, want, h.log.String())
		}
	}
	if !strings.Contains(h.log.String(), "[agent:root] slow step") {
		t.Errorf("warning does not name the agent:\n%s", h.log.String())
	}
}
