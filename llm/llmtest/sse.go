package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// chunkWriter writes one reply as chat.completion.chunk SSE events in the
// reply's dialect.
type chunkWriter struct {
	w       http.ResponseWriter
	dialect string
	id      string
	model   string
	created int64
	usage   bool     // include_usage was asked (or OpenRouter) and the reply allows it
	cached  int      // prompt tokens reported as read from the cache
	cost    *float64 // reported in usage.cost
}

// reasoning streams thinking tokens as reasoning_content deltas (vLLM,
// llama.cpp, DeepSeek) or reasoning deltas (OpenRouter); false when the
// client is gone.
func (cw *chunkWriter) reasoning(r *http.Request, toks []string, delay time.Duration) bool {
	field := "reasoning_content"
	if cw.dialect == OpenRouter {
		field = "reasoning"
	}
	for _, t := range toks {
		if !sleep(r, delay) || cw.event(cw.chunk(map[string]any{"content": "", field: t}, nil, nil)) != nil {
			return false
		}
	}
	return true
}

// comment writes an SSE comment line (OpenRouter's keep-alives).
func (cw *chunkWriter) comment(text string) {
	fmt.Fprintf(cw.w, ": %s\n\n", text)
}

func (cw *chunkWriter) event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(cw.w, "data: %s\n\n", b); err != nil {
		return err
	}
	if f, ok := cw.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

func (cw *chunkWriter) done() {
	fmt.Fprint(cw.w, "data: [DONE]\n\n")
	if f, ok := cw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunk builds one chunk object with a single choice.
func (cw *chunkWriter) chunk(delta map[string]any, logprobs any, finish any) map[string]any {
	choice := map[string]any{"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
	if cw.dialect == VLLM {
		choice["stop_reason"] = nil
	}
	c := map[string]any{
		"id": cw.id, "object": "chat.completion.chunk", "created": cw.created,
		"model": cw.model, "choices": []any{choice},
	}
	switch cw.dialect {
	case OpenAI:
		c["system_fingerprint"] = "fp_llmtest"
		if cw.usage {
			c["usage"] = nil
		}
	case LlamaCPP:
		c["system_fingerprint"] = "b0000-llmtest"
	case OpenRouter:
		c["provider"] = "llmtest"
	}
	return c
}

// logprobEntry is one entry of choices[].logprobs.content.
func (cw *chunkWriter) logprobEntry(t token, k int) map[string]any {
	top := make([]map[string]any, 0, k)
	for i, a := range t.Top {
		if i >= k {
			break
		}
		top = append(top, cw.alt(a.Text, a.Logprob))
	}
	e := cw.alt(t.Text, t.Logprob)
	e["top_logprobs"] = top
	return e
}

func (cw *chunkWriter) alt(text string, lp float64) map[string]any {
	m := map[string]any{"token": text, "logprob": lp, "bytes": bytesOf(text)}
	if cw.dialect == LlamaCPP {
		m["id"] = tokenID(text)
	}
	return m
}

func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}

// tokenID is a stable fake vocabulary id for llama.cpp's "id" field.
func tokenID(s string) int {
	h := 0
	for i := 0; i < len(s); i++ {
		h = (h*31 + int(s[i])) % 151936
	}
	return h
}

// usageObj is the usage object.
func usageObj(prompt, completion int) map[string]any {
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}

// usage is the stream's usage object: with prompt_tokens_details when
// tokens were cached, and cost (OpenRouter's shape) when reported.
func (cw *chunkWriter) usageOf(prompt, completion int) map[string]any {
	u := usageObj(prompt, completion)
	if cw.cached > 0 || cw.dialect == OpenRouter {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": cw.cached}
	}
	switch {
	case cw.cost != nil:
		u["cost"] = *cw.cost
	case cw.dialect == OpenRouter:
		u["cost"] = 0
	}
	if cw.dialect == OpenRouter {
		u["cost_details"] = map[string]any{"upstream_inference_cost": nil}
		u["is_byok"] = false
	}
	return u
}

// finish writes the finish chunk and, when asked, the usage: on its own chunk
// with empty choices (OpenAI, vLLM) or on the finish chunk (llama.cpp).
func (cw *chunkWriter) finish(reason string, prompt, completion int) error {
	c := cw.chunk(map[string]any{}, nil, reason)
	if cw.dialect == LlamaCPP {
		if cw.usage {
			c["usage"] = cw.usageOf(prompt, completion)
		}
		c["timings"] = map[string]any{"prompt_n": prompt, "predicted_n": completion}
		return cw.event(c)
	}
	if err := cw.event(c); err != nil {
		return err
	}
	if !cw.usage {
		return nil
	}
	u := cw.chunk(nil, nil, nil)
	u["choices"] = []any{}
	u["usage"] = cw.usageOf(prompt, completion)
	return cw.event(u)
}

// sleep waits d or until the request is gone; false when it is gone.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
