package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Stream writes one completion as OpenAI's chat.completion.chunk server-sent events: Open (the
// assistant role), Think and Say (a token each), Finish (the finish reason, then the usage)
// and Done ("data: [DONE]"). The hooks let a server imitate another OpenAI-compatible server
// (llm/llmtest's dialects); without them the chunks are OpenAI's.
type Stream struct {
	ID      string // the completion's id, on every chunk
	Model   string
	Created int64 // Unix seconds
	// Reasoning is the delta field of Think; "" = reasoning_content (vLLM, llama.cpp, DeepSeek).
	Reasoning string
	// Comment, when set, is an SSE comment line that Open writes before the first chunk.
	Comment string
	// Shape, when set, adjusts every chunk and its one choice before the chunk is written.
	Shape func(chunk, choice map[string]any)
	// ShapeEntry, when set, adjusts every logprob entry and every alternative of its top list.
	ShapeEntry func(entry map[string]any)

	w http.ResponseWriter
}

// NewStream is a stream to w of a completion by model, created now.
func NewStream(w http.ResponseWriter, id, model string) *Stream {
	return &Stream{ID: id, Model: model, Created: time.Now().Unix(), w: w}
}

// Open writes the headers of an event stream, the comment if any, and the first chunk, which
// carries the assistant role.
func (s *Stream) Open() error {
	s.w.Header().Set("Content-Type", "text/event-stream")
	s.w.Header().Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	if s.Comment != "" {
		if _, err := fmt.Fprintf(s.w, ": %s\n\n", s.Comment); err != nil {
			return err
		}
	}
	return s.Event(s.Chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil))
}

// Think writes one token of reasoning.
func (s *Stream) Think(text string) error {
	field := s.Reasoning
	if field == "" {
		field = "reasoning_content"
	}
	return s.Event(s.Chunk(map[string]any{"content": "", field: text}, nil, nil))
}

// Say writes one token of the answer, with its logprob entry (k alternatives) when logprobs is
// set.
func (s *Stream) Say(t Token, k int, logprobs bool) error {
	var lp any
	if logprobs {
		lp = map[string]any{"content": []any{s.Entry(t, k)}, "refusal": nil}
	}
	return s.Event(s.Chunk(map[string]any{"content": t.Text}, lp, nil))
}

// Finish writes the chunk with the finish reason and, when usage is not nil (the request asked
// for stream_options.include_usage), a chunk with empty choices that carries it.
func (s *Stream) Finish(reason string, usage map[string]any) error {
	if err := s.Event(s.Chunk(map[string]any{}, nil, reason)); err != nil || usage == nil {
		return err
	}
	u := s.Chunk(nil, nil, nil)
	u["choices"] = []any{}
	u["usage"] = usage
	return s.Event(u)
}

// Done writes the end of the stream.
func (s *Stream) Done() error {
	if _, err := fmt.Fprint(s.w, "data: [DONE]\n\n"); err != nil {
		return err
	}
	s.flush()
	return nil
}

// Chunk is one chunk object with a single choice, shaped.
func (s *Stream) Chunk(delta map[string]any, logprobs, finish any) map[string]any {
	choice := map[string]any{"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
	c := map[string]any{"id": s.ID, "object": "chat.completion.chunk", "created": s.Created, "model": s.Model,
		"choices": []any{choice}}
	if s.Shape != nil {
		s.Shape(c, choice)
	}
	return c
}

// Event writes v as one SSE data event and flushes it.
func (s *Stream) Event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	s.flush()
	return nil
}

func (s *Stream) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Entry is t's entry in choices[].logprobs.content: token, logprob, bytes and top_logprobs
// (the first k of t.Top), shaped.
func (s *Stream) Entry(t Token, k int) map[string]any {
	top := make([]map[string]any, 0, min(k, len(t.Top)))
	for _, a := range t.Top[:min(k, len(t.Top))] {
		top = append(top, s.alt(a.Text, a.Logprob))
	}
	e := s.alt(t.Text, t.Logprob)
	e["top_logprobs"] = top
	return e
}

func (s *Stream) alt(text string, lp float64) map[string]any {
	bs := make([]int, len(text))
	for i := range len(text) {
		bs[i] = int(text[i])
	}
	m := map[string]any{"token": text, "logprob": lp, "bytes": bs}
	if s.ShapeEntry != nil {
		s.ShapeEntry(m)
	}
	return m
}

// Usage is a usage object: prompt, completion and total tokens.
func Usage(prompt, completion int) map[string]any {
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}

// WriteError answers with an error body in OpenAI's shape: {"error": {"message", "type",
// "param", "code"}}.
func WriteError(w http.ResponseWriter, status int, typ, code, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// Sleep waits d, or until ctx ends; it reports whether ctx is still alive.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
