package llmtest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// postAnthropic sends a Messages request with the usual headers (edit may
// change them) and returns the response.
func postAnthropic(t *testing.T, srv *llmtest.Server, body string, edit func(http.Header)) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", "fake-key")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req.Header)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

type sse struct {
	name string
	data map[string]any
}

// namedEvents reads "event:"/"data:" pairs.
func namedEvents(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var out []sse
	sc := bufio.NewScanner(r)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var d map[string]any
			if err := json.Unmarshal([]byte(v), &d); err != nil {
				t.Fatalf("data %q: %v", v, err)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			out = append(out, sse{name, d})
		}
	}
	return out
}

const anthropicReq = `{"model":"claude-x","max_tokens":100,"stream":true,"system":"Be brief.",
	"messages":[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"},{"role":"user","content":[{"type":"text","text":"again"}]}]}`

// TestAnthropicStreamShapes checks the event sequence and payloads against
// the documented Messages streaming format.
func TestAnthropicStreamShapes(t *testing.T) {
	srv := llmtest.NewAnthropic(llmtest.Reply{Text: "Hi there.", Thinking: "Think.", PromptTokens: 30, CachedTokens: 10})
	defer srv.Close()
	res := postAnthropic(t, srv, anthropicReq, nil)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || res.StatusCode != 200 {
		t.Fatalf("status %d content type %q", res.StatusCode, ct)
	}
	ev := namedEvents(t, res.Body)
	var names []string
	var text, thinking string
	for _, e := range ev {
		names = append(names, e.name)
		if d, ok := e.data["delta"].(map[string]any); ok {
			switch d["type"] {
			case "text_delta":
				text += d["text"].(string)
			case "thinking_delta":
				thinking += d["thinking"].(string)
			}
		}
	}
	want := "message_start,ping,content_block_start,content_block_delta,content_block_delta,content_block_delta,content_block_stop," +
		"content_block_start,content_block_delta,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"
	if strings.Join(names, ",") != want {
		t.Errorf("events %s\nwant   %s", strings.Join(names, ","), want)
	}
	if text != "Hi there." || thinking != "Think." {
		t.Errorf("text %q thinking %q", text, thinking)
	}
	start := ev[0].data["message"].(map[string]any)["usage"].(map[string]any)
	if start["input_tokens"] != 20.0 || start["cache_read_input_tokens"] != 10.0 || start["output_tokens"] != 1.0 {
		t.Errorf("message_start usage %v", start)
	}
	md := ev[len(ev)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "end_turn" || md["usage"].(map[string]any)["output_tokens"] != 5.0 {
		t.Errorf("message_delta %v", md)
	}
	rr := srv.Requests()[0]
	if rr.System != "Be brief." || rr.LastUser() != "again" || rr.Authorization != "fake-key" || rr.APIVersion != "2023-06-01" || rr.MaxTokens != 100 {
		t.Errorf("recorded %+v", rr)
	}
}

// TestAnthropicErrorShapes: statuses, types, retry-after and the error
// envelope; a mid-stream error event.
func TestAnthropicErrorShapes(t *testing.T) {
	tests := []struct {
		rep        llmtest.Reply
		status     int
		retryAfter string
		wantBody   string
	}{
		{llmtest.Reply{Kind: llmtest.RateLimit, RetryAfter: "2"}, 429, "2", `"type":"rate_limit_error"`},
		{llmtest.Reply{Kind: llmtest.Overloaded}, 529, "", `"type":"overloaded_error"`},
		{llmtest.Reply{Kind: llmtest.Quota}, 400, "", `credit balance is too low`},
		{llmtest.Reply{Kind: llmtest.Quota, Status: 402}, 402, "", `"type":"billing_error"`},
		{llmtest.Reply{Kind: llmtest.ContextLength}, 400, "", `prompt is too long`},
		{llmtest.Reply{Kind: llmtest.ServerError}, 500, "", `"type":"api_error"`},
		{llmtest.Reply{Kind: llmtest.BadRequest, Status: 401}, 401, "", `"type":"authentication_error"`},
		{llmtest.Reply{Kind: llmtest.BadRequest, Status: 403}, 403, "", `"type":"permission_error"`},
		{llmtest.Reply{RejectField: "temperature"}, 400, "", `temperature: Extra inputs are not permitted`},
		{llmtest.Reply{MaxOutput: 50}, 400, "", `max_tokens: 100 \u003e 50, which is the maximum allowed number of output tokens for claude-x`},
	}
	for _, tc := range tests {
		srv := llmtest.NewAnthropic(tc.rep)
		res := postAnthropic(t, srv, strings.Replace(anthropicReq, `"max_tokens"`, `"temperature":0.5,"max_tokens"`, 1), nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != tc.status || res.Header.Get("Retry-After") != tc.retryAfter || !strings.Contains(string(body), tc.wantBody) ||
			!strings.HasPrefix(string(body), `{"error":{`) || !strings.Contains(string(body), `"type":"error"`) {
			t.Errorf("%+v: got %d Retry-After %q body %s; want %d %q %s", tc.rep, res.StatusCode, res.Header.Get("Retry-After"), body, tc.status, tc.retryAfter, tc.wantBody)
		}
		srv.Close()
	}
	srv := llmtest.NewAnthropic(llmtest.Reply{Kind: llmtest.StreamError, Text: "a b c d", DropAfter: 2})
	defer srv.Close()
	ev := namedEvents(t, postAnthropic(t, srv, anthropicReq, nil).Body)
	last := ev[len(ev)-1]
	if last.name != "error" || last.data["error"].(map[string]any)["type"] != "overloaded_error" {
		t.Errorf("last event %+v, want an overloaded_error event", last)
	}
}

// TestAnthropicRefusesBadRequests: the fake refuses what the API refuses,
// so a client bug shows up in tests.
func TestAnthropicRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		header func(http.Header)
		status int
		want   string
	}{
		{"no key", anthropicReq, func(h http.Header) { h.Del("X-Api-Key") }, 401, "x-api-key header is required"},
		{"no version", anthropicReq, func(h http.Header) { h.Del("Anthropic-Version") }, 400, "anthropic-version: header is required"},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, nil, 400, "max_tokens: Field required"},
		{"system role", `{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"s"},{"role":"user","content":"x"}]}`, nil, 400, "messages.0.role"},
		{"empty text", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"  "}]}`, nil, 400, "non-whitespace text"},
		{"unknown field", `{"model":"m","max_tokens":5,"logprobs":true,"messages":[{"role":"user","content":"x"}]}`, nil, 400, "logprobs: Extra inputs are not permitted"},
		{"temperature above 1", `{"model":"m","max_tokens":5,"temperature":1.5,"messages":[{"role":"user","content":"x"}]}`, nil, 400, "temperature: Input should be less than or equal to 1"},
	}
	for _, tc := range tests {
		srv := llmtest.NewAnthropic(llmtest.Reply{Text: "ok", Times: -1})
		res := postAnthropic(t, srv, tc.body, tc.header)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %s, want %d %q", tc.name, res.StatusCode, body, tc.status, tc.want)
		}
		if srv.Pending() != 1 || len(srv.Requests()) != 1 {
			t.Errorf("%s: a refused request used a reply or was not recorded", tc.name)
		}
		srv.Close()
	}
}

// TestOpenRouterDialect: comments before the first chunk, usage with cost
// even without include_usage, 402 for spent credits.
func TestOpenRouterDialect(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Text: "Hi.", Dialect: llmtest.OpenRouter, Cost: new(0.0021), CachedTokens: 3},
		llmtest.Reply{Kind: llmtest.Quota, Dialect: llmtest.OpenRouter})
	defer srv.Close()
	res := post(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hello"}]}`)
	raw, _ := io.ReadAll(res.Body)
	if !strings.HasPrefix(string(raw), ": OPENROUTER PROCESSING\n\n") {
		t.Errorf("stream does not start with OpenRouter's comment: %.80s", raw)
	}
	if !strings.Contains(string(raw), `"cost":0.0021`) || !strings.Contains(string(raw), `"prompt_tokens_details":{"cached_tokens":3}`) {
		t.Errorf("no usage with cost: %s", raw)
	}
	res = post(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hello"}]}`)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 402 || !strings.Contains(string(body), `"code":402`) {
		t.Errorf("quota: %d %s", res.StatusCode, body)
	}
}

// TestRejectFieldShapes: each server refuses a field in its own words.
func TestRejectFieldShapes(t *testing.T) {
	tests := []struct{ dialect, want string }{
		{llmtest.OpenAI, `Unsupported parameter: 'seed' is not supported with this model.`},
		{llmtest.VLLM, `('body', 'seed')`},
		{llmtest.LlamaCPP, `Unsupported param: seed`},
	}
	for _, tc := range tests {
		srv := llmtest.New(llmtest.Reply{RejectField: "seed", Dialect: tc.dialect})
		with := post(t, srv, `{"model":"m","seed":1,"messages":[{"role":"user","content":"x"}]}`)
		body, _ := io.ReadAll(with.Body)
		without := post(t, srv, `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
		if with.StatusCode != 400 || !strings.Contains(string(body), tc.want) || without.StatusCode != 200 {
			t.Errorf("%s: %d %s then %d", tc.dialect, with.StatusCode, body, without.StatusCode)
		}
		srv.Close()
	}
}
