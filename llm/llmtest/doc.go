// Package llmtest is a fake OpenAI-compatible chat completions server (New)
// and a fake Anthropic Messages API server (NewAnthropic) for tests: real
// HTTP and SSE (httptest), replaying scripted replies. The tests of package
// llm, of the controller and the CLI's testscript tests use it.
//
//	srv := llmtest.New(
//		llmtest.Reply{Kind: llmtest.Loop, Model: "small"},
//		llmtest.Reply{Text: "42", Model: "large"},
//	)
//	defer srv.Close()
//	cfg := llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"small", "large"}}
//
// # Replies
//
// A request takes the first queued Reply whose When (a regexp on the last
// user message) and Model (exact) match; the reply is used Times times (0 =
// once, −1 = for ever) and then leaves the queue. Push adds replies;
// SetHandler replaces the queue with a function of the RecordedRequest.
// A request that no reply matches gets a 500 whose message names it
// ("no scripted reply matches request #3 (model "m", last user message
// "…")"). Requests returns every request received: model, messages, whether
// logprobs and include_usage were asked, max_tokens, the key sent, every
// top-level field (RecordedRequest.Has).
//
// Kinds: Healthy (the default: Text, or Tokens tokens of generated prose when
// Text is empty), NoLogprobs, Loop (Text repeated to Tokens tokens, default
// 300), Confused (word salad from a flat distribution), Repetition (vLLM's
// finish_reason "repetition"), Drop (the connection is closed after
// DropAfter tokens), StreamError (an SSE error event after DropAfter tokens), RateLimit (429, with Retry-After when set), Quota (429
// insufficient_quota), ServerError (500 or Status), ContextLength (400
// context_length_exceeded), BadRequest (400) and Overloaded (529
// overloaded_error). Latency delays the response headers and ChunkDelay
// every chunk. RejectLogprobs answers 400 to a request that asks for
// logprobs, RejectMaxTokens to one that sends max_tokens, RejectField to one
// whose body has that field (in the server's words) and MaxOutput to an
// Anthropic request whose max_tokens is larger, without using the reply up.
// Thinking streams reasoning before the answer (reasoning_content deltas;
// reasoning for OpenRouter; a thinking block on Anthropic), counted in the
// usage. CachedTokens and Cost are reported in the usage (Cost as
// OpenRouter's usage.cost). ErrorType overrides the error type.
//
// Text is streamed one token per chunk; Split gives the tokens (words and
// numbers with their leading spaces, punctuation marks, line breaks).
//
// # Shapes
//
// Streams are written with replay.Stream, shaped for each dialect, and
// follow the documented chat.completion.chunk format: a first chunk
// with the assistant role, one chunk per token with choices[0].logprobs
// .content[0] = {token, logprob, bytes, top_logprobs[k]} (k = the request's
// top_logprobs or Reply.TopK), a finish chunk, the usage chunk when
// stream_options.include_usage was asked, and data: [DONE]. Dialect selects
// the server's variant: OpenAI (usage on a chunk with empty choices, "usage":
// null before it, errors {"error":{"message","type","param","code"}}), VLLM
// (stop_reason in choices, errors {"object":"error","message","type","code":
// 400}) and LlamaCPP (an "id" in every logprob entry, usage and timings on the
// finish chunk, numeric error codes) and OpenRouter (": OPENROUTER
// PROCESSING" comments, usage with cost always sent, 402 for spent credits).
// A request without "stream": true gets one chat.completion object.
//
// # Anthropic
//
// NewAnthropic serves POST /v1/messages (URL is the API root, as
// ANTHROPIC_BASE_URL). It refuses what the API refuses: no x-api-key (401),
// no anthropic-version, no max_tokens, a role other than user and assistant,
// an empty text, an unknown top-level field ("x: Extra inputs are not
// permitted") or a temperature above 1 (400), without using a reply. A
// stream is message_start (usage: input_tokens, cache_read_input_tokens,
// output_tokens 1), ping, a thinking block when the reply has Thinking
// (thinking_delta per token, then signature_delta), the text block
// (text_delta per token), message_delta (stop_reason end_turn or the
// reply's FinishReason, cumulative usage) and message_stop; NoUsage leaves
// the usage out. Drop cuts the connection mid-text; StreamError sends an
// error event there (overloaded_error unless ErrorType). Errors are
// {"type":"error","error":{"type","message"},"request_id"} with the type of
// the status (429 rate_limit_error, 529 overloaded_error, 402
// billing_error, …); Quota is the 400 "Your credit balance is too low …",
// ContextLength the 400 "prompt is too long: …". Repetition has no
// Anthropic form (500). Replies, scripts and handlers work as above.
//
// # Logprobs
//
// The logprobs are synthetic but shaped like a model's: healthy tokens are
// likely (p 0.7–0.98, one in five 0.25–0.6) with a geometric tail and 10% of
// the mass unlisted (about 1 bit per token); loops grow more certain with
// every copy (low entropy, as real loops do); confused tokens come from a
// flat distribution with most of the mass outside the top k (above 6 bits).
// TestMonitorVerdicts checks that the monitor passes healthy streams and
// aborts loops and confusion on every tier. Generation is deterministic
// (seeded by the last user message).
//
// # Script files
//
// Load and ParseScript read a JSON array of replies (or {"replies": [...]}),
// field names as in Reply's JSON tags, durations as Go strings. Unknown
// fields are errors, with the line and the reply's number. The format is
// that of the reply files of rlm run --replay, package llm/replay, which
// reads the files and the fields of a healthy reply (text, thinking, when,
// model, times, latency, chunk_delay); llmtest reads the others, and a replay
// refuses those as test-only (TestTestOnlyFields keeps the two lists
// together). For example, to drive a root model through two cells
// (testdata/root_two_cells.json, run by TestScriptDrivesAConversation):
//
//	[
//	  {"when": "^Question:", "times": 1,
//	   "text": "```go\nprint(search(context, \"ERROR\"))\n```"},
//	  {"when": "ERROR", "text": "```go\nFINAL(\"3 errors\")\n```"},
//	  {"kind": "rate_limit", "retry_after": "1", "model": "flaky", "times": -1},
//	  {"kind": "loop", "model": "small", "tokens": 200, "latency": "20ms", "chunk_delay": "1ms"}
//	]
//
// Fields: kind, text, tokens, top_k, dialect ("openai", "vllm", "llamacpp",
// "openrouter"), finish_reason, status, retry_after, message, drop_after,
// latency, chunk_delay, no_logprobs, no_usage, prompt_tokens,
// reject_logprobs, reject_max_tokens, reject_field, max_output, thinking,
// cached_tokens, cost, error_type, when, model, times.
package llmtest
