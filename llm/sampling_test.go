package llm_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// tuned is a model configuration with every optional setting.
func tuned(p llm.Provider) llm.ModelConfig {
	s := llm.Sampling{Temperature: f64(0.2), TopP: f64(0.9), MaxTokens: 300, ReasoningEffort: "high",
		Extra: map[string]any{"top_k": 40}}
	if p == llm.ProviderOpenAI {
		s.Seed = ptr(int64(7))
	}
	return llm.ModelConfig{Sampling: s}
}

// fields returns the request's top-level fields as JSON text.
func fields(r llmtest.RecordedRequest, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := r.Fields[n]; ok {
			out[n] = string(v)
		}
	}
	return out
}

var optional = []string{"temperature", "top_p", "max_tokens", "max_completion_tokens", "reasoning_effort", "output_config", "seed", "top_k"}

// TestSamplingSent: each setting is sent where set, in the provider's
// field, and nothing is sent where unset.
func TestSamplingSent(t *testing.T) {
	forProviders(t, func(t *testing.T, p llm.Provider) {
		h := newHarnessFor(t, p, func(c *llm.Config) {
			c.Catalog = map[string]llm.ModelConfig{"small": tuned(p)}
		}, llmtest.Reply{Text: "Fine.", Times: -1})
		capped := ask("hi")
		capped.MaxTokens = 100
		large := ask("hi")
		large.Tier = 1
		for _, req := range []llm.Request{ask("hi"), capped, large} {
			if _, err := h.complete(req); err != nil {
				t.Fatal(err)
			}
		}
		rs := h.srv.Requests()
		want := map[llm.Provider][]map[string]string{
			llm.ProviderOpenAI: {
				{"temperature": "0.2", "top_p": "0.9", "max_tokens": "300", "reasoning_effort": `"high"`, "seed": "7", "top_k": "40"},
				{"temperature": "0.2", "top_p": "0.9", "max_tokens": "100", "reasoning_effort": `"high"`, "seed": "7", "top_k": "40"},
				{},
			},
			llm.ProviderAnthropic: {
				{"temperature": "0.2", "top_p": "0.9", "max_tokens": "300", "output_config": `{"effort":"high"}`, "top_k": "40"},
				{"temperature": "0.2", "top_p": "0.9", "max_tokens": "100", "output_config": `{"effort":"high"}`, "top_k": "40"},
				{"max_tokens": "8192"},
			},
		}[p]
		for i, w := range want {
			if got := fields(rs[i], optional...); !equalMaps(got, w) {
				t.Errorf("request %d (model %s) sent %v, want %v", i, rs[i].Model, got, w)
			}
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestRefusedFieldRetried: a 400 naming an optional field gets one retry
// without it at once; the model is not sent it again, other fields still go,
// the other models still get it, and the breaker does not count it.
func TestRefusedFieldRetried(t *testing.T) {
	tests := []struct {
		name    string
		p       llm.Provider
		reply   llmtest.Reply
		field   string // as sent
		setting string // as remembered
	}{
		{"OpenAI temperature", llm.ProviderOpenAI, llmtest.Reply{RejectField: "temperature"}, "temperature", "temperature"},
		{"OpenAI reasoning_effort", llm.ProviderOpenAI, llmtest.Reply{RejectField: "reasoning_effort"}, "reasoning_effort", "reasoning_effort"},
		{"vLLM extra top_k", llm.ProviderOpenAI, llmtest.Reply{RejectField: "top_k", Dialect: llmtest.VLLM}, "top_k", "top_k"},
		{"llama.cpp seed", llm.ProviderOpenAI, llmtest.Reply{RejectField: "seed", Dialect: llmtest.LlamaCPP}, "seed", "seed"},
		{"OpenRouter top_p", llm.ProviderOpenAI, llmtest.Reply{RejectField: "top_p", Dialect: llmtest.OpenRouter}, "top_p", "top_p"},
		{"Anthropic temperature", llm.ProviderAnthropic, llmtest.Reply{RejectField: "temperature"}, "temperature", "temperature"},
		{"Anthropic effort", llm.ProviderAnthropic, llmtest.Reply{RejectField: "output_config"}, "output_config", "reasoning_effort"},
		{"Anthropic unknown extra field", llm.ProviderAnthropic, llmtest.Reply{}, "repetition_penalty", "repetition_penalty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.reply.Text, tc.reply.Times = "Fine.", -1
			mc := tuned(tc.p)
			if tc.field == "repetition_penalty" { // a field the Anthropic API does not know
				mc.Sampling.Extra[tc.field] = 1.1
			}
			h := newHarnessFor(t, tc.p, func(c *llm.Config) {
				c.Catalog = map[string]llm.ModelConfig{"small": mc, "large": mc}
				c.BreakerErrors = 1
			}, tc.reply)
			large := ask("hi")
			large.Tier = 1
			for _, req := range []llm.Request{ask("hi"), ask("hi"), large} {
				if _, err := h.complete(req); err != nil {
					t.Fatal(err)
				}
			}
			var sent []bool
			for _, r := range h.srv.Requests() {
				sent = append(sent, r.Has(tc.field))
				if !r.Has("top_p") && tc.field != "top_p" {
					t.Errorf("request %d lost top_p: %s", r.N, r.Body)
				}
			}
			if !slices.Equal(sent, []bool{true, false, false, true, false}) {
				t.Errorf("%s sent per request = %v, want [true false false true false] (small refuses, retried; large asked once, refuses)", tc.field, sent)
			}
			if got, want := joinStrings(h.statuses()), "error:param_refused,ok,ok,error:param_refused,ok"; got != want {
				t.Errorf("statuses = %s, want %s", got, want)
			}
			if got := h.c.Refused("small"); !slices.Equal(got, []string{tc.setting}) {
				t.Errorf("Refused = %v, want [%s]", got, tc.setting)
			}
		})
	}
}

// TestAnthropicMaxTokensLowered: a model that states a lower max_tokens
// maximum is asked again with it, and from then on.
func TestAnthropicMaxTokensLowered(t *testing.T) {
	h := newHarnessFor(t, llm.ProviderAnthropic, nil, llmtest.Reply{Text: "Fine.", MaxOutput: 4096, Times: -1})
	for range 2 {
		if _, err := h.complete(ask("hi")); err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	for _, r := range h.srv.Requests() {
		got = append(got, r.MaxTokens)
	}
	if !slices.Equal(got, []int{8192, 4096, 4096}) {
		t.Errorf("max_tokens sent = %v, want [8192 4096 4096]", got)
	}
	if r := h.c.Refused("small"); !slices.Equal(r, []string{"max_tokens<=4096"}) {
		t.Errorf("Refused = %v", r)
	}
}

// TestSamplingOverride: flags override a model's settings field by field.
func TestSamplingOverride(t *testing.T) {
	base := llm.Sampling{Temperature: f64(0.2), MaxTokens: 100, Extra: map[string]any{"a": 1, "b": 2}}
	got := base.Override(llm.Sampling{TopP: f64(0.5), MaxTokens: 50, Extra: map[string]any{"b": 3}})
	b, _ := json.Marshal(got)
	if want := `{"Temperature":0.2,"TopP":0.5,"MaxTokens":50,"ReasoningEffort":"","Seed":null,"Extra":{"a":1,"b":3}}`; string(b) != want {
		t.Errorf("Override = %s, want %s", b, want)
	}
	if base.Extra["b"] != 2 {
		t.Error("Override changed the receiver's Extra")
	}
}
