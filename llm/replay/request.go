package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Message is one chat message of a request.
type Message struct{ Role, Content string }

// UnmarshalJSON reads {"role", "content"}, the content a string or an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var in struct {
		Role    string  `json:"role"`
		Content Content `json:"content"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*m = Message{Role: in.Role, Content: string(in.Content)}
	return nil
}

// Content is a message content as the chat APIs send it: a string, or an array of parts (or
// blocks) whose texts are joined. Any other value is kept as its JSON.
type Content string

// UnmarshalJSON reads a content; it never fails.
func (c *Content) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = Content(s)
		return nil
	}
	var parts []struct{ Text string }
	if json.Unmarshal(b, &parts) == nil {
		var t strings.Builder
		for _, p := range parts {
			t.WriteString(p.Text)
		}
		*c = Content(t.String())
		return nil
	}
	*c = Content(b)
	return nil
}

// Request is what a replay reads of a chat completions request.
type Request struct {
	Model        string
	Messages     []Message
	Stream       bool // "stream": true
	IncludeUsage bool // stream_options.include_usage
	Logprobs     bool // "logprobs": true
	TopLogprobs  int
}

// ParseRequest reads a chat completions request body.
func ParseRequest(body []byte) (Request, error) {
	var in struct {
		Model         string    `json:"model"`
		Messages      []Message `json:"messages"`
		Stream        bool      `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Logprobs    bool `json:"logprobs"`
		TopLogprobs int  `json:"top_logprobs"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	return Request{Model: in.Model, Messages: in.Messages, Stream: in.Stream, IncludeUsage: in.StreamOptions.IncludeUsage,
		Logprobs: in.Logprobs, TopLogprobs: in.TopLogprobs}, nil
}

// LastUser is the content of the last user message ("" if none): what a reply's When matches.
func LastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// PromptTokens estimates the messages' tokens for the usage: a token per four characters.
func PromptTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += utf8.RuneCountInString(m.Content)
	}
	return (n + 3) / 4
}
