package llm

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // "name|data"
		wantErr  error
	}{
		{"LF", "event: a\ndata: {\"x\":1}\n\nevent: b\ndata: 2\n\n", []string{"a|{\"x\":1}", "b|2"}, io.EOF},
		{"CRLF and CR", "event: a\r\ndata: 1\r\n\r\ndata: 2\r\r", []string{"a|1", "|2"}, io.EOF},
		{"comments and blank lines skipped", ": keep-alive\n\n\n: OPENROUTER PROCESSING\n\ndata: x\n\n", []string{"|x"}, io.EOF},
		{"multi-line data, no space after colon", "data:a\ndata: b\nid: 7\nretry: 10\n\n", []string{"|a\nb"}, io.EOF},
		{"cut inside an event", "event: a\ndata: 1\n\nevent: b\ndata: {\"x\"", []string{"a|1"}, io.ErrUnexpectedEOF},
		{"empty stream", "", nil, io.EOF},
	}
	for _, tc := range tests {
		sr := newSSEReader(strings.NewReader(tc.in))
		var got []string
		var err error
		for {
			var ev sseEvent
			if ev, err = sr.next(); err != nil {
				break
			}
			got = append(got, ev.name+"|"+string(ev.data))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
	sr := newSSEReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	sr.max = 50
	if _, err := sr.next(); err == nil || !strings.Contains(err.Error(), "longer than 50 bytes") {
		t.Errorf("an over-long line: err = %v", err)
	}
}

// TestAnthropicBody: system messages go to the top-level field, empty
// messages are left out, optional fields only where set.
func TestAnthropicBody(t *testing.T) {
	b := &anthropicBackend{}
	tests := []struct {
		name string
		req  BackendRequest
		want string
	}{
		{"system to the top level",
			BackendRequest{Model: "m", Messages: []Message{{"system", "Be brief."}, {"system", "Use Go."}, {"user", "Hi"}, {"assistant", " "}, {"user", "More"}}},
			`{"max_tokens":8192,"messages":[{"role":"user","content":"Hi"},{"role":"user","content":"More"}],"model":"m","stream":true,"system":"Be brief.\n\nUse Go."}`},
		{"a later system message is a user turn",
			BackendRequest{Model: "m", MaxTokens: 5, Messages: []Message{{"user", "Hi"}, {"assistant", "Hello"}, {"system", "Note"}}},
			`{"max_tokens":5,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"Note"}],"model":"m","stream":true}`},
		{"a system prompt alone is the question",
			BackendRequest{Model: "m", Messages: []Message{{"system", "Say hi."}}},
			`{"max_tokens":8192,"messages":[{"role":"user","content":"Say hi."}],"model":"m","stream":true}`},
		{"sampling",
			BackendRequest{Model: "m", Messages: []Message{{"user", "Hi"}}, Sampling: Sampling{Temperature: new(0.0), TopP: new(1.0), ReasoningEffort: "low", Extra: map[string]any{"thinking": map[string]any{"type": "adaptive"}}}},
			`{"max_tokens":8192,"messages":[{"role":"user","content":"Hi"}],"model":"m","output_config":{"effort":"low"},"stream":true,"temperature":0,"thinking":{"type":"adaptive"},"top_p":1}`},
	}
	for _, tc := range tests {
		got, _ := json.Marshal(b.body(tc.req))
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestAnthropicURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.anthropic.com":       "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":      "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/v1":    "https://api.anthropic.com/v1/messages",
		"http://proxy:8080/anthropic/":    "http://proxy:8080/anthropic/v1/messages",
		"http://proxy:8080/anthropic/v1/": "http://proxy:8080/anthropic/v1/messages",
	} {
		if got := NewAnthropicBackend(in, "k", 0).(*anthropicBackend).url; got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

// anthropicSample is a stream in the documented event sequence, with a
// thinking block.
const anthropicSample = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":3,"cache_read_input_tokens":7,"output_tokens":1}}}

event: ping
data: {"type": "ping"}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" world"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}

`

// TestAnthropicStream: the documented event sequence becomes chunks:
// thinking kept apart from the text, usage cumulative, stop_reason mapped,
// pings alive, an error event an *APIError with the type's status.
func TestAnthropicStream(t *testing.T) {
	stream := anthropicSample
	var text, reasoning, finish string
	var last *Usage
	n := 0
	err := readAnthropicStream(strings.NewReader(stream), func(ch Chunk) error {
		n++
		text += ch.Text
		reasoning += ch.Reasoning
		if ch.FinishReason != "" {
			finish = ch.FinishReason
		}
		if ch.Usage != nil {
			last = ch.Usage
		}
		return nil
	})
	if err != nil || text != "Hello world" || reasoning != "Let me see." || finish != "length" || n != 12 {
		t.Fatalf("err %v text %q reasoning %q finish %q chunks %d", err, text, reasoning, finish, n)
	}
	if want := (Usage{PromptTokens: 30, CompletionTokens: 15, CachedTokens: 7, Source: "usage"}); *last != want {
		t.Errorf("usage %+v, want %+v", *last, want)
	}

	errStream := stream[:strings.Index(stream, "event: content_block_stop")] +
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
	err = readAnthropicStream(strings.NewReader(errStream), func(Chunk) error { return nil })
	var api *APIError
	if !errors.As(err, &api) || api.Status != 529 || api.Type != "overloaded_error" || classify(err, nil, false, false) != catServer {
		t.Errorf("error event: %v (%#v)", err, api)
	}
}

func TestFinishOf(t *testing.T) {
	for in, want := range map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
		"model_context_window_exceeded": "length", "refusal": "content_filter", "pause_turn": "pause_turn"} {
		if got := finishOf(in); got != want {
			t.Errorf("finishOf(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestRefusal(t *testing.T) {
	br := BackendRequest{MaxTokens: 8192, Sampling: Sampling{Temperature: new(0.5), Seed: new(int64(1)), ReasoningEffort: "high",
		Extra: map[string]any{"top_k": 5, "min_p": 0.1}}}
	tests := []struct{ msg, want string }{
		{"Unsupported parameter: 'temperature' is not supported with this model.", "temperature"},
		{"[{'type': 'extra_forbidden', 'loc': ('body', 'min_p'), 'msg': 'Extra inputs are not permitted'}]", "min_p"},
		{"Unsupported param: seed", "seed"},
		{"output_config.effort: Extra inputs are not permitted", "reasoning_effort"},
		{"top_k: Input should be greater than 0", "top_k"},
		{"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku", "max_tokens"},
		{"the top_k_sampler and temperatures are fine", ""}, // not whole words
		{"Invalid value for 'messages'", ""},
	}
	for _, tc := range tests {
		rf := refusal(&APIError{Status: 400, Message: tc.msg}, br)
		got := ""
		if rf != nil {
			got = rf.field
		}
		if got != tc.want {
			t.Errorf("%q → %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// FuzzAnthropicStream: whatever a server sends, the stream reader neither
// panics nor hands on text that was not in a text delta.
func FuzzAnthropicStream(f *testing.F) {
	f.Add([]byte(anthropicSample))
	f.Add([]byte(strings.ReplaceAll(anthropicSample, "\n", "\r\n")))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"))
	f.Add([]byte(": ping\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":-3}}\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var text strings.Builder
		err := readAnthropicStream(strings.NewReader(string(b)), func(ch Chunk) error {
			text.WriteString(ch.Text)
			if ch.Usage != nil && ch.Usage.Source != "usage" {
				t.Fatalf("usage source %q", ch.Usage.Source)
			}
			return nil
		})
		if text.Len() > len(b) {
			t.Fatalf("%d bytes of text from %d bytes of stream", text.Len(), len(b))
		}
		var api *APIError
		if errors.As(err, &api) && (api.Status < 400 || api.Status > 599) {
			t.Fatalf("error event with status %d", api.Status)
		}
	})
}
