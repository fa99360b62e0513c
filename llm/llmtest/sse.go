package llmtest

import (
	"fmt"
	"net/http"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// newStream is a replay.Stream of the reply in its dialect: OpenAI's chunks with a
// system_fingerprint (and "usage": null on every chunk before the usage one), vLLM's
// stop_reason, llama.cpp's token ids, OpenRouter's keep-alive comment, provider and reasoning
// deltas.
func newStream(w http.ResponseWriter, rr RecordedRequest, rep Reply, usage bool) *replay.Stream {
	st := replay.NewStream(w, fmt.Sprintf("chatcmpl-llmtest-%d", rr.N), rr.Model)
	shapeStream(st, dialect(rep), usage)
	return st
}

// shapeStream sets the stream's hooks for the dialect.
func shapeStream(st *replay.Stream, dialect string, usage bool) {
	switch dialect {
	case OpenAI:
		st.Shape = func(c, _ map[string]any) {
			c["system_fingerprint"] = "fp_llmtest"
			if usage {
				c["usage"] = nil
			}
		}
	case VLLM:
		st.Shape = func(_, choice map[string]any) { choice["stop_reason"] = nil }
	case LlamaCPP:
		st.Shape = func(c, _ map[string]any) { c["system_fingerprint"] = "b0000-llmtest" }
		st.ShapeEntry = func(e map[string]any) { e["id"] = tokenID(e["token"].(string)) }
	case OpenRouter:
		st.Shape = func(c, _ map[string]any) { c["provider"] = "llmtest" }
		st.Reasoning, st.Comment = "reasoning", "OPENROUTER PROCESSING"
	}
}

// tokenID is a stable fake vocabulary id for llama.cpp's "id" field.
func tokenID(s string) int {
	h := 0
	for i := 0; i < len(s); i++ {
		h = (h*31 + int(s[i])) % 151936
	}
	return h
}

// usageOf is the stream's usage object: with prompt_tokens_details when tokens were cached,
// and cost (OpenRouter's shape) when reported.
func usageOf(rep Reply, prompt, completion int) map[string]any {
	u := replay.Usage(prompt, completion)
	d := dialect(rep)
	if rep.CachedTokens > 0 || d == OpenRouter {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": rep.CachedTokens}
	}
	switch {
	case rep.Cost != nil:
		u["cost"] = *rep.Cost
	case d == OpenRouter:
		u["cost"] = 0
	}
	if d == OpenRouter {
		u["cost_details"] = map[string]any{"upstream_inference_cost": nil}
		u["is_byok"] = false
	}
	return u
}

// finish writes the finish chunk and, when asked, the usage: on its own chunk with empty
// choices (OpenAI, vLLM, OpenRouter: replay.Stream.Finish) or on the finish chunk, with
// timings (llama.cpp).
func finish(st *replay.Stream, rep Reply, usage bool, prompt, completion int) error {
	var u map[string]any
	if usage {
		u = usageOf(rep, prompt, completion)
	}
	if dialect(rep) != LlamaCPP {
		return st.Finish(finishReason(rep), u)
	}
	c := st.Chunk(map[string]any{}, nil, finishReason(rep))
	if u != nil {
		c["usage"] = u
	}
	c["timings"] = map[string]any{"prompt_n": prompt, "predicted_n": completion}
	return st.Event(c)
}
