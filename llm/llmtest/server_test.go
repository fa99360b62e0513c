package llmtest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// post sends a chat completions request and returns the response.
func post(t *testing.T, srv *llmtest.Server, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer fake-key")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// events reads the SSE data lines of a stream.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

const streamReq = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"logprobs":true,"top_logprobs":20,
	"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hello"}]}]}`

type chunk struct {
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		Logprobs     *struct {
			Content []map[string]any `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// TestStreamShapes checks the chunk shapes against the documented formats.
func TestStreamShapes(t *testing.T) {
	tests := []struct {
		dialect       string
		usageOwnChunk bool // usage on a chunk with empty choices
		wantID        bool // llama.cpp's "id" in logprob entries
	}{
		{llmtest.OpenAI, true, false},
		{llmtest.VLLM, true, false},
		{llmtest.LlamaCPP, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			srv := llmtest.New(llmtest.Reply{Text: "Hi there.", Dialect: tc.dialect, PromptTokens: 7})
			defer srv.Close()
			res := post(t, srv, streamReq)
			if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("content type %q", ct)
			}
			ev := events(t, res.Body)
			if len(ev) < 3 || ev[len(ev)-1] != "[DONE]" {
				t.Fatalf("events %q: want chunks then [DONE]", ev)
			}
			text, finish, usageSeen := checkChunks(t, ev[:len(ev)-1], tc.usageOwnChunk, tc.wantID)
			if text != "Hi there." || finish != "stop" || !usageSeen {
				t.Errorf("text %q finish %q usage %v", text, finish, usageSeen)
			}
			rr := srv.Requests()[0]
			if !rr.Logprobs || rr.TopLogprobs != 20 || !rr.IncludeUsage || rr.LastUser() != "hello" || rr.Authorization != "fake-key" {
				t.Errorf("recorded %+v", rr)
			}
		})
	}
}

// checkChunks checks each chunk of a stream and returns the text, the
// finish reason and whether usage was seen.
func checkChunks(t *testing.T, ev []string, usageOwnChunk, wantID bool) (string, string, bool) {
	t.Helper()
	var text strings.Builder
	var finish string
	var usageSeen bool
	for i, e := range ev {
		var c chunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "m" {
			t.Errorf("chunk %d: object %q model %q", i, c.Object, c.Model)
		}
		if i == 0 && (len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant") {
			t.Errorf("first chunk has no assistant role: %s", e)
		}
		if c.Usage != nil {
			usageSeen = true
			if c.Usage.PromptTokens != 7 || c.Usage.CompletionTokens != 3 || c.Usage.TotalTokens != 10 {
				t.Errorf("usage %+v, want 7+3", *c.Usage)
			}
			if own := len(c.Choices) == 0; own != usageOwnChunk {
				t.Errorf("usage on its own chunk = %v, want %v", own, usageOwnChunk)
			}
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			if ch.Logprobs == nil || len(ch.Logprobs.Content) == 0 {
				continue
			}
			lp := ch.Logprobs.Content[0]
			top, _ := lp["top_logprobs"].([]any)
			_, hasID := lp["id"]
			_, hasBytes := lp["bytes"]
			if len(top) != 20 || hasID != wantID || !hasBytes || lp["token"] != *ch.Delta.Content {
				t.Errorf("logprob entry %v: want token = content, 20 alternatives, bytes, id %v", lp, wantID)
			}
		}
	}
	return text.String(), finish, usageSeen
}

// TestErrorShapes checks the error replies: status, headers and body shape.
func TestErrorShapes(t *testing.T) {
	tests := []struct {
		rep        llmtest.Reply
		status     int
		retryAfter string
		wantBody   string
	}{
		{llmtest.Reply{Kind: llmtest.RateLimit, RetryAfter: "2"}, 429, "2", `"code":"rate_limit_exceeded"`},
		{llmtest.Reply{Kind: llmtest.Quota}, 429, "", `"type":"insufficient_quota"`},
		{llmtest.Reply{Kind: llmtest.ContextLength}, 400, "", `"code":"context_length_exceeded"`},
		{llmtest.Reply{Kind: llmtest.ServerError, Status: 503}, 503, "", `"type":"server_error"`},
		{llmtest.Reply{Kind: llmtest.BadRequest, Dialect: llmtest.VLLM}, 400, "", `"object":"error"`},
		{llmtest.Reply{Kind: llmtest.BadRequest, Dialect: llmtest.LlamaCPP}, 400, "", `"code":400`},
		{llmtest.Reply{RejectLogprobs: true}, 400, "", `logprobs`},
	}
	for _, tc := range tests {
		srv := llmtest.New(tc.rep)
		res := post(t, srv, streamReq)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != tc.status || res.Header.Get("Retry-After") != tc.retryAfter || !strings.Contains(string(body), tc.wantBody) {
			t.Errorf("%+v: got %d Retry-After %q body %s; want %d %q %s", tc.rep, res.StatusCode, res.Header.Get("Retry-After"), body, tc.status, tc.retryAfter, tc.wantBody)
		}
		srv.Close()
	}
}

// TestDropCutsTheStream: a Drop reply closes the connection mid-stream,
// without finish reason or [DONE].
func TestDropCutsTheStream(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Kind: llmtest.Drop, Text: "a b c d e f", DropAfter: 2})
	defer srv.Close()
	res := post(t, srv, streamReq)
	_, err := io.ReadAll(res.Body)
	if err == nil {
		t.Fatal("reading a dropped stream gave no error")
	}
}

// TestScript: the file format, matching by when/model/times, and the
// unmatched answer.
func TestScript(t *testing.T) {
	script := `[
	  {"when": "^solve", "text": "` + "```go\\nprint(search(context, \\\"x\\\"))\\n```" + `", "times": 1},
	  {"when": "^solve", "model": "big", "text": "big answer"},
	  {"when": "Output", "text": "FINAL", "latency": "5ms", "chunk_delay": "1ms"},
	  {"kind": "rate_limit", "retry_after": "1", "times": -1, "when": "^limit"}
	]`
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, []byte(script), 0o600)
	sc, err := llmtest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc[2].Latency != 5*time.Millisecond || sc[2].ChunkDelay != time.Millisecond {
		t.Errorf("durations %v %v", sc[2].Latency, sc[2].ChunkDelay)
	}
	srv := llmtest.New(sc...)
	defer srv.Close()
	send := func(model, user string) (int, string) {
		res := post(t, srv, `{"model":"`+model+`","stream":true,"messages":[{"role":"user","content":"`+user+`"}]}`)
		if res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b)
		}
		var text strings.Builder
		for _, e := range events(t, res.Body) {
			var c chunk
			if json.Unmarshal([]byte(e), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
				text.WriteString(*c.Choices[0].Delta.Content)
			}
		}
		return 200, text.String()
	}
	tests := []struct {
		model, user string
		status      int
		want        string
	}{
		{"small", "solve it", 200, "```go\nprint(search(context, \"x\"))\n```"},
		{"small", "solve again", 500, `no scripted reply matches request #2 (model \"small\", last user message \"solve again\")`},
		{"big", "solve", 200, "big answer"},
		{"small", "Output: 3", 200, "FINAL"},
		{"small", "limit 1", 429, "rate_limit_exceeded"},
		{"small", "limit 2", 429, "rate_limit_exceeded"},
	}
	for _, tc := range tests {
		status, got := send(tc.model, tc.user)
		if status != tc.status || !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: got %d %q, want %d %q", tc.model, tc.user, status, got, tc.status, tc.want)
		}
	}
	if srv.Pending() != 1 {
		t.Errorf("pending = %d, want 1 (the unlimited rate limit)", srv.Pending())
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[{"txet": "typo"}]`, `line 1: reply 1: unknown field "txet"`},
		{"[{},\n {\"kind\": \"nope\"}]", `line 2: reply 2: unknown kind "nope"`},
		{`[{"when": "("}]`, `reply 1: when: "(" is not a regular expression`},
		{`[{"latency": "soon"}]`, `reply 1: latency: "soon" is not a duration`},
		{`[{"status": "500"}]`, `reply 1: cannot unmarshal string into Go struct field`},
		{`{"replies": [{"text": "ok"}], "extra": 1}`, `unknown key "extra"`},
	}
	for _, tc := range tests {
		_, err := llmtest.ParseScript([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseScript(%s) = %v, want an error about %q", tc.in, err, tc.want)
		}
	}
	if sc, err := llmtest.ParseScript([]byte(`{"replies": [{"text": "ok"}]}`)); err != nil || len(sc) != 1 {
		t.Errorf("object form: %v %v", sc, err)
	}
}

// TestHandler: SetHandler answers every request.
func TestHandler(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Text: "echo " + r.LastUser()}
	})
	res := post(t, srv, `{"model":"m","messages":[{"role":"user","content":"ping"}]}`)
	var body struct {
		Choices []struct{ Message struct{ Content string } }
	}
	json.NewDecoder(res.Body).Decode(&body)
	if len(body.Choices) != 1 || body.Choices[0].Message.Content != "echo ping" {
		t.Errorf("non-streamed answer %+v", body)
	}
}
