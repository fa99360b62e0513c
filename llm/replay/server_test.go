package replay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/replay"
)

func serve(t *testing.T, file string) *replay.Server {
	t.Helper()
	replies, err := replay.Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.Serve("model.json", replies)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestServerAnswersTheClient: the model client, unchanged, gets the replies in order, sub-calls
// by their "when", the usage counted by the server and logprobs; a request past the script is
// refused at once with a message that names the file.
func TestServerAnswersTheClient(t *testing.T) {
	srv := serve(t, `[
	  {"when": "^SUB", "text": "forty-two", "times": -1},
	  {"text": "first answer", "thinking": "let me see"},
	  {"text": "second"}
	]`)
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Models: []string{"replay"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		user       string
		want       string // the text, or the error's
		completion int    // tokens in the usage
	}{
		{"Question: what?", "first answer", 5},
		{"SUB: six times seven", "forty-two", 3},
		{"SUB: again", "forty-two", 3},
		{"Output: 1", "second", 1},
		{"Output: 2", `no reply of model.json matches request #5 (model "replay", last user message "Output: 2")`, 0},
	}
	for _, tc := range tests {
		resp, err := c.Complete(context.Background(), llm.Request{Agent: "root", Messages: []llm.Message{
			{Role: "system", Content: "You drive a REPL."}, {Role: "user", Content: tc.user}}})
		got := resp.Text
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) || resp.Usage.CompletionTokens != tc.completion {
			t.Errorf("%q: got %q with %d completion tokens, want %q with %d", tc.user, got, resp.Usage.CompletionTokens, tc.want, tc.completion)
		}
		if err == nil && (resp.Usage.Source != "usage" || !resp.Logprobs || resp.Usage.PromptTokens == 0) {
			t.Errorf("%q: usage %+v, logprobs %v; want the server's usage and logprobs", tc.user, resp.Usage, resp.Logprobs)
		}
	}
	if n := srv.Pending(); n != 1 {
		t.Errorf("pending = %d, want 1 (the sub-call reply, for ever)", n)
	}
}

// TestServerWire: the chunks of a stream as OpenAI sends them, and the refusals.
func TestServerWire(t *testing.T) {
	srv := serve(t, `[{"text": "Hi, you.", "thinking": "hm", "times": -1}]`)
	msgs := `"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hello"}]}]`
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string // the events, summarised; or the error's message
	}{
		{"usage and logprobs", "POST", "/v1/chat/completions", `{"model":"replay","stream":true,"stream_options":{"include_usage":true},"logprobs":true,"top_logprobs":2,` + msgs + `}`,
			200, `role | think "hm" | say "Hi" lp 2 | say "," lp 2 | say " you" lp 2 | say "." lp 2 | finish stop | usage 2+5 | [DONE]`},
		{"plain", "POST", "/v1/chat/completions", `{"model":"replay","stream":true,` + msgs + `}`,
			200, `role | think "hm" | say "Hi" | say "," | say " you" | say "." | finish stop | [DONE]`},
		{"not a stream", "POST", "/v1/chat/completions", `{"model":"replay",` + msgs + `}`,
			400, `the replay model streams its answers only; send "stream": true`},
		{"not JSON", "POST", "/v1/chat/completions", `{"model":`, 400, "request body is not valid JSON"},
		{"other path", "GET", "/v1/models", "", 404, "the replay model serves POST /v1/chat/completions only, not GET /v1/models"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, strings.TrimSuffix(srv.URL(), "/v1")+tc.path, strings.NewReader(tc.body))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var got string
			if res.StatusCode == 200 {
				got = summarise(t, res.Body)
			} else {
				got = errorMessage(t, res.Body)
			}
			if res.StatusCode != tc.status || !strings.Contains(got, tc.want) {
				t.Errorf("got %d %s\nwant %d %s", res.StatusCode, got, tc.status, tc.want)
			}
		})
	}
}

// chunk is what the summary reads of a chunk.
type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"delta"`
		Logprobs *struct {
			Content []struct {
				TopLogprobs []any `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// summarise reads an event stream into one line per event.
func summarise(t *testing.T, r io.Reader) string {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			out = append(out, data)
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("not a chunk: %s (%v)", data, err)
		}
		out = append(out, c.summary())
	}
	return strings.Join(out, " | ")
}

func (c chunk) summary() string {
	switch {
	case c.Usage != nil:
		return fmt.Sprintf("usage %d+%d", c.Usage.PromptTokens, c.Usage.CompletionTokens)
	case len(c.Choices) != 1:
		return fmt.Sprintf("%d choices", len(c.Choices))
	}
	ch := c.Choices[0]
	switch {
	case ch.Delta.Role != "":
		return "role"
	case ch.FinishReason != nil:
		return "finish " + *ch.FinishReason
	case ch.Delta.ReasoningContent != "":
		return fmt.Sprintf("think %q", ch.Delta.ReasoningContent)
	case ch.Logprobs != nil:
		return fmt.Sprintf("say %q lp %d", ch.Delta.Content, len(ch.Logprobs.Content[0].TopLogprobs))
	}
	return fmt.Sprintf("say %q", ch.Delta.Content)
}

func errorMessage(t *testing.T, r io.Reader) string {
	var body struct{ Error struct{ Message string } }
	if err := json.NewDecoder(r).Decode(&body); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return body.Error.Message
}
