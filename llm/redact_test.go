package llm_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/redact"
)

// TestAPIKeyNeverLeaks: servers echo keys in error messages; the key must
// not appear in any error, log line or Call, on either API. The OpenAI key
// goes only in the bearer header, the Anthropic key only in x-api-key.
func TestAPIKeyNeverLeaks(t *testing.T) { forProviders(t, testAPIKeyNeverLeaks) }

func testAPIKeyNeverLeaks(t *testing.T, p llm.Provider) {
	_, key := fakeFor(p)
	echo := "Incorrect API key provided: " + key + ". You can find your API key at https://example.invalid."
	tests := []struct {
		name    string
		replies []llmtest.Reply
	}{
		{"401 echoing the key", []llmtest.Reply{{Kind: llmtest.BadRequest, Status: 401, Message: echo}}},
		{"5xx echoing the key, retried", []llmtest.Reply{{Kind: llmtest.ServerError, Message: echo, Times: 2}, {Text: "Fine."}}},
		{"breaker with the key", []llmtest.Reply{{Kind: llmtest.ServerError, Message: echo, Times: -1}}},
		{"quota with the key", []llmtest.Reply{{Kind: llmtest.Quota, Message: echo}}},
		{"context length with the key", []llmtest.Reply{{Kind: llmtest.ContextLength, Message: echo}}},
		{"overloaded with the key", []llmtest.Reply{{Kind: llmtest.Overloaded, Message: echo, Times: -1}}},
		{"refused field with the key", []llmtest.Reply{{Kind: llmtest.BadRequest, Message: "temperature: unsupported for key " + key}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, p, func(c *llm.Config) {
				c.Catalog = map[string]llm.ModelConfig{"small": {Sampling: llm.Sampling{Temperature: ptr(0.5)}}}
			}, tc.replies...)
			_, err := h.complete(ask("hello"))
			out := leakText(h, err)
			if strings.Contains(out, key) || strings.Contains(out, "KEY0123456789") {
				t.Fatalf("the API key leaked:\n%s", out)
			}
			if !strings.Contains(out, "[REDACTED") {
				t.Errorf("expected a redaction marker where the key was:\n%s", out)
			}
			r := h.srv.Requests()[0]
			if r.Authorization != key || r.Bearer != (p == llm.ProviderOpenAI) {
				t.Errorf("the server saw key %q (bearer %v), want the configured key in %s", r.Authorization, r.Bearer,
					map[llm.Provider]string{llm.ProviderOpenAI: "Authorization", llm.ProviderAnthropic: "x-api-key"}[p])
			}
		})
	}
}

// leakText gathers everything a client let out: the error, the log and
// every field of every Call.
func leakText(h *harness, err error) string {
	var out strings.Builder
	if err != nil {
		out.WriteString(err.Error() + "\n")
	}
	out.WriteString(h.log.String())
	for _, c := range h.Calls() {
		fmt.Fprintf(&out, "%+v\n", c)
	}
	return out.String()
}

// TestKeysStayWithTheirBackend: with two backends, each key is sent only to
// its own server, and a custom Redactor that knows neither key still keeps
// both out of every record.
func TestKeysStayWithTheirBackend(t *testing.T) {
	// Keys of no known shape: only the client's own redaction of its keys catches them.
	const keyA, keyB = "zzopenaikey7f3a9q2", "zzanthropickey8b4c1w7"
	oa := llmtest.New(llmtest.Reply{Kind: llmtest.BadRequest, Status: 401, Message: "bad key " + keyA + " / " + keyB})
	defer oa.Close()
	an := llmtest.NewAnthropic(llmtest.Reply{Kind: llmtest.ServerError, Message: "echo " + keyB + " and " + keyA, Times: -1})
	defer an.Close()
	h := &harness{clock: newClock(), log: &syncBuffer{}}
	c, err := llm.New(llm.Config{
		BaseURL: oa.URL(), APIKey: keyA, Models: []string{"root"}, SubModels: []string{"claude"},
		Endpoints: map[string]llm.Endpoint{"ant": {Provider: llm.ProviderAnthropic, BaseURL: an.URL(), APIKey: keyB}},
		Catalog:   map[string]llm.ModelConfig{"claude": {Endpoint: "ant"}},
		Redactor:  redact.New(), Sleep: h.clock.Sleep, Now: h.clock.Now, MaxAttempts: 2,
		Log:      slog.New(slog.NewTextHandler(h.log, nil)),
		Observer: func(c llm.Call) { h.mu.Lock(); h.calls = append(h.calls, c); h.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.Complete(context.Background(), ask("root question"))
	req := ask("sub question")
	req.Ladder = llm.Sub
	_, err2 := c.Complete(context.Background(), req)
	out := leakText(h, errors.Join(err1, err2))
	if err1 == nil || err2 == nil || strings.Contains(out, keyA) || strings.Contains(out, keyB) || !strings.Contains(out, "[REDACTED") {
		t.Fatalf("errors %v / %v; a key leaked or a call did not fail:\n%s", err1, err2, out)
	}
	for _, r := range oa.Requests() {
		if r.Authorization != keyA || strings.Contains(string(r.Body), keyB) {
			t.Errorf("OpenAI server saw %q", r.Authorization)
		}
	}
	for _, r := range an.Requests() {
		if r.Authorization != keyB || r.Bearer || strings.Contains(string(r.Body), keyA) {
			t.Errorf("Anthropic server saw key %q bearer %v", r.Authorization, r.Bearer)
		}
	}
	if len(oa.Requests()) != 1 || len(an.Requests()) != 2 {
		t.Errorf("requests: %d to OpenAI, %d to Anthropic; want 1 and 2", len(oa.Requests()), len(an.Requests()))
	}
}

func ptr[T any](v T) *T { return &v }

// TestFromEnv: settings and keys come from the environment only.
func TestFromEnv(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		wantURL    string
		wantKey    string
		wantModels string
		wantSub    string
		wantProv   llm.Provider
		wantErr    string
	}{
		{"rlm names win", map[string]string{"RLM_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1", "RLM_API_KEY": "k1", "OPENAI_API_KEY": "k2", "RLM_MODEL": "m"},
			"http://a/v1", "k1", "m", "", llm.ProviderOpenAI, ""},
		{"openai fallbacks", map[string]string{"OPENAI_BASE_URL": "http://b/v1", "OPENAI_API_KEY": "k2", "RLM_MODEL": " small , large ", "RLM_SUB_MODEL": "tiny, ,small"},
			"http://b/v1", "k2", "small,large", "tiny,small", llm.ProviderOpenAI, ""},
		{"anthropic fallbacks", map[string]string{"RLM_PROVIDER": "Anthropic", "ANTHROPIC_BASE_URL": "http://c", "ANTHROPIC_API_KEY": "k3", "OPENAI_API_KEY": "k2", "RLM_MODEL": "claude"},
			"http://c", "k3", "claude", "", llm.ProviderAnthropic, ""},
		{"anthropic with rlm names", map[string]string{"RLM_PROVIDER": "anthropic", "RLM_API_KEY": "k1", "ANTHROPIC_API_KEY": "k3", "RLM_MODEL": "claude"},
			"", "k1", "claude", "", llm.ProviderAnthropic, ""},
		{"no model", map[string]string{"RLM_API_KEY": "k1"}, "", "k1", "", "", llm.ProviderOpenAI, "RLM_MODEL is not set"},
		{"bad provider", map[string]string{"RLM_PROVIDER": "cohere", "RLM_MODEL": "m"}, "", "", "", "", "", `unknown provider "cohere"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"RLM_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "RLM_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "RLM_MODEL", "RLM_SUB_MODEL", "RLM_PROVIDER"} {
				t.Setenv(k, tc.env[k])
			}
			cfg, err := llm.FromEnv()
			if (err != nil) != (tc.wantErr != "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if err != nil && tc.wantProv == "" {
				return
			}
			got := []string{cfg.BaseURL, cfg.APIKey, joinStrings(cfg.Models), joinStrings(cfg.SubModels), string(cfg.Provider)}
			want := []string{tc.wantURL, tc.wantKey, tc.wantModels, tc.wantSub, string(tc.wantProv)}
			if joinStrings(got) != joinStrings(want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
