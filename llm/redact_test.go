package llm_test

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// TestAPIKeyNeverLeaks: servers echo keys in error messages; the key must
// not appear in any error, log line or Call.
func TestAPIKeyNeverLeaks(t *testing.T) {
	echo := "Incorrect API key provided: " + testKey + ". You can find your API key at https://example.invalid."
	tests := []struct {
		name    string
		replies []llmtest.Reply
	}{
		{"401 echoing the key", []llmtest.Reply{{Kind: llmtest.BadRequest, Status: 401, Message: echo}}},
		{"5xx echoing the key, retried", []llmtest.Reply{{Kind: llmtest.ServerError, Message: echo, Times: 2}, {Text: "Fine."}}},
		{"breaker with the key", []llmtest.Reply{{Kind: llmtest.ServerError, Message: echo, Times: -1}}},
		{"quota with the key", []llmtest.Reply{{Kind: llmtest.Quota, Message: echo}}},
		{"context length with the key", []llmtest.Reply{{Kind: llmtest.ContextLength, Message: echo}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, tc.replies...)
			_, err := h.complete(ask("hello"))
			var out strings.Builder
			if err != nil {
				out.WriteString(err.Error() + "\n")
			}
			out.WriteString(h.log.String())
			for _, c := range h.Calls() {
				out.WriteString(c.Err + " " + c.Status + " " + c.Model + " " + c.Agent + "\n")
			}
			if strings.Contains(out.String(), testKey) || strings.Contains(out.String(), "TESTKEY0123456789") {
				t.Fatalf("the API key leaked:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "[REDACTED") {
				t.Errorf("expected a redaction marker where the key was:\n%s", out.String())
			}
			if got := h.srv.Requests()[0].Authorization; got != testKey {
				t.Errorf("the server saw bearer %q, want the configured key", got)
			}
		})
	}
}

// TestFromEnv: settings and keys come from the environment only.
func TestFromEnv(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		wantURL    string
		wantKey    string
		wantModels string
		wantErr    bool
	}{
		{"rlm names win", map[string]string{"RLM_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1", "RLM_API_KEY": "k1", "OPENAI_API_KEY": "k2", "RLM_MODEL": "m"},
			"http://a/v1", "k1", "m", false},
		{"openai fallbacks", map[string]string{"OPENAI_BASE_URL": "http://b/v1", "OPENAI_API_KEY": "k2", "RLM_MODEL": " small , large "},
			"http://b/v1", "k2", "small,large", false},
		{"no model", map[string]string{"RLM_API_KEY": "k1"}, "", "k1", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"RLM_BASE_URL", "OPENAI_BASE_URL", "RLM_API_KEY", "OPENAI_API_KEY", "RLM_MODEL"} {
				t.Setenv(k, tc.env[k])
			}
			cfg, err := llm.FromEnv()
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if cfg.BaseURL != tc.wantURL || cfg.APIKey != tc.wantKey || joinStrings(cfg.Models) != tc.wantModels {
				t.Errorf("got %q %q %q, want %q %q %q", cfg.BaseURL, cfg.APIKey, cfg.Models, tc.wantURL, tc.wantKey, tc.wantModels)
			}
		})
	}
}
