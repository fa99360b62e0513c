// Package llm is rlm's model client: every model call (the root model and
// every llm_query) goes through one Client, which enforces the task's
// budgets, survives a flaky backend, and has each generation watched token
// by token by the monitor package.
//
//	cfg, err := llm.FromEnv() // RLM_PROVIDER, RLM_BASE_URL, RLM_API_KEY, RLM_MODEL=small,large, RLM_SUB_MODEL
//	cfg.Deadline, cfg.Observer = taskDeadline, audit.Record
//	c, err := llm.New(cfg)
//	resp, err := c.Complete(ctx, llm.Request{Agent: "root", Messages: msgs})
//	resp, err = c.Complete(ctx, llm.Request{Agent: "sub", Ladder: llm.Sub, Messages: q})
//
// # Models and backends
//
// A Client serves two escalation ladders: Root (Config.Models) and Sub
// (Config.SubModels, else Models), chosen by Request.Ladder. Request.Model
// may name any configured model (a ladder entry or a Config.Catalog key):
// on the request's ladder the call starts there and may escalate up it, off
// the ladder that model answers alone; an unknown name is a fault.Schema
// error listing the configured ones (Client.Configured). Each model runs on
// a backend: "default" (Config.Provider, BaseURL, APIKey) or a named
// Config.Endpoints entry, given by its Catalog entry (else
// Config.DefaultEndpoint). A backend's key goes only to that backend. A
// Catalog entry also sets the model id sent (ModelConfig.ID, else the
// name), its Sampling and its Price. Every model and backend shares one
// budget of calls, tokens and dollars, one breaker, and one Observer; each
// Call names its Model (configured name) and Backend. New validates all of
// it and fails with a fault.Schema error naming the setting in rlm.toml's
// terms ("[models.NAME] temperature = 3: want 0 to 2"); docs/models.md has
// a configuration per provider.
//
// # Sampling and reasoning settings
//
// Sampling's temperature, top_p, max_tokens, reasoning_effort, seed and
// Extra body fields are sent only where set. Sampling.MaxTokens and
// Request.MaxTokens cap the completion (the smaller wins). A server that
// answers 400 naming a field the request carried (OpenAI's "Unsupported
// parameter: 'temperature'", Anthropic's "top_k: Extra inputs are not
// permitted", vLLM's pydantic "('body', 'seed')", llama.cpp's
// "Unsupported param: seed"; the field's name as a whole word in the
// message) is asked again at once without it, and that model is not sent it
// again by this Client (Client.Refused; Call.Status
// "error:param_refused", not an API error for the breaker). A Sampling
// override for the root (flags) is Sampling.Override.
//
// # Money
//
// Config.Catalog gives each model a Price (US dollars per million input,
// output and cached input tokens). An attempt's Cost is the cost the server
// reports (OpenRouter's usage.cost), else the price applied to its usage
// (cached prompt tokens at Price.Cached, else at In; reasoning tokens are
// completion tokens), else unknown. Cost keeps the known dollars (USD) and
// the number of attempts of unknown cost (Unknown) apart, so unknown is
// never shown as $0 (Cost.String: "$0.0123", "unknown", "≥ $0.0123 (2 calls
// of unknown cost)"); an attempt that got no tokens (a 429, a refused
// connection) is a known $0. Call.Cost, Response.Cost and Spent.Cost carry
// it. Config.MaxCost is a dollar budget checked like the token budget:
// before an attempt the estimated prompt's price must fit what is left and
// the completion cap is lowered to what the rest pays for; after it the
// cost is added. Under a dollar budget, a model with no price whose server
// reported no cost is not called again: the Client refuses with a
// fault.Limit that says to set its price. MaxCost 0 is no dollar budget:
// the call and token budgets, always finite, still bound every task.
//
// # Backends
//
// The OpenAI-compatible Backend (OpenAI, vLLM, llama.cpp server, Ollama,
// OpenRouter, Gemini's OpenAI endpoint) uses openai-go v3, streaming, with openai-go's
// own retries off (option.WithMaxRetries(0)) and without reading the
// environment: the Client keeps the one retry policy. Every request asks for
// logprobs with top_logprobs 20 and stream_options.include_usage. The token
// cap is sent as max_tokens, which all four servers accept, and only when
// Request.MaxTokens is set (lowered to what is left of the token budget). A
// model that refuses max_tokens with a 400 naming max_completion_tokens
// (OpenAI's reasoning models) is asked again at once with
// max_completion_tokens, and remembered like logprobs.
//
// Logprobs are remembered per base URL and model: a server that answers 400
// with an error about logprobs is asked again at once without them, and a
// stream without logprob entries marks them absent; either way later calls
// to that model do not ask, and the monitor uses its text-only detectors.
// Client.LogprobsKnown reports the state.
//
// Usage comes from the usage chunk (OpenAI and vLLM send it on a chunk with
// empty choices, llama.cpp on the finish chunk; prompt_tokens_details
// .cached_tokens is the cached part); without one the completion tokens are
// the logprob entries counted (Source "logprobs", prompt estimated), else
// characters/4 on both sides (Source "estimate"). The prompt estimate is
// characters/4 plus 4 tokens per message. Reasoning deltas (reasoning_content
// from vLLM, llama.cpp and DeepSeek, reasoning from OpenRouter) are kept out
// of the answer and counted in an estimate.
//
// The Anthropic Backend (Provider "anthropic", RLM_PROVIDER=anthropic)
// speaks the Messages API over net/http and a small SSE reader of its own:
// POST {base}/v1/messages with x-api-key and anthropic-version 2023-06-01,
// "stream": true. Leading system messages become the top-level system
// field, a later one a user turn; messages without text are left out (the
// API refuses them). max_tokens is required: the model's setting, else
// limits.AnthropicMaxTokens (8192); a 400 "max_tokens: N > M, which is the
// maximum allowed …" is asked again at once with M, remembered per model.
// reasoning_effort is sent as output_config.effort (low … max); Anthropic
// has no seed (a configuration error). Events: message_start (usage: input,
// cache read and cache write tokens, all prompt tokens; cache reads are
// CachedTokens), content_block_start/delta/stop (text deltas are the answer;
// thinking deltas are kept out of it, counted in the estimate, and billed in
// output_tokens), message_delta (stop_reason and cumulative usage),
// message_stop (the end), ping (keeps the idle timer alive) and error
// (an *APIError with the status Anthropic documents for its type, e.g.
// overloaded_error 529, so it is classified like the same error before the
// stream). stop_reason maps to finish reasons: end_turn and stop_sequence
// "stop", max_tokens and model_context_window_exceeded "length", refusal
// "content_filter". The API has no logprobs: none are asked, LogprobsKnown
// says "absent", and the monitor runs its text-only detectors. A stream cut
// before message_delta keeps the prompt from message_start and estimates
// the completion.
//
// # Timeouts
//
// TCP connect and TLS handshake time out after ConnectTimeout (30 s, a
// net.Dialer). IdleTimeout (30 s) is a timer reset by every chunk that
// cancels the attempt when it fires; the wait for the response headers
// and the first chunk counts as idle time too.
//
// # Retries
//
// Transient failures are retried, at most MaxAttempts (5) HTTP attempts per
// model, waiting MinBackoff·2^(n−1) (1, 2, 4, 8 … s) capped at MaxBackoff
// (30 s), or the server's Retry-After (seconds or an HTTP date, also capped
// at MaxBackoff). Transient: 429 rate limits, 5xx (Anthropic's 529
// overloaded_error included) and 408, connection errors (reset, refused,
// unexpected EOF), a stream that ends without a finish reason (dropped), an
// error event inside the stream (Anthropic's by its type), connect and idle
// timeouts. Never retried: a spent quota (see Quota), context-length errors
// (code context_length_exceeded, HTTP 413, or a message that mentions the
// context length, maximum context, context window, context size, "prompt is
// too long" or "exceed context limit": OpenAI, vLLM, llama.cpp and
// Anthropic word it differently), other 4xx, and a monitor abort. The
// exceptions are 400s about a field the request carried: logprobs (above),
// max_tokens (max_completion_tokens, Anthropic's maximum) and the optional
// settings (Sampling), each retried once without it.
//
// # Errors
//
// Complete returns *fault.Error values; their messages say what happened,
// why and what to do, and are redacted. The mapping, kept in errors.go:
//
//	failure                                          kind         Call.Status
//	budget of calls or tokens would be exceeded      limit        (no call made)
//	5 API errors within 60 s (circuit breaker)       unavailable  error:<category>
//	context length exceeded                          limit        error:context_length
//	429 rate limit after MaxAttempts attempts        limit        error:rate_limit
//	dollar budget would be exceeded, or a model
//	  without price or reported cost under it        limit        (no call made)
//	quota exhausted, no deadline to wait within      limit        error:quota
//	quota exhausted, next probe past the deadline    timeout      error:quota
//	5xx, 408, transport (refused, reset), dropped
//	  stream after MaxAttempts attempts              unavailable  error:server|transport
//	connect or idle timeout after MaxAttempts        timeout      error:connect_timeout|idle_timeout
//	the caller's context expired                     timeout      (wraps ctx.Err())
//	the caller's context cancelled                   canceled     (wraps ctx.Err())
//	other 4xx (400, 401, 403, 404, 422, …)           format       error:bad_request
//	monitor abort on the last model of the ladder    early_abort  early_abort
//	no model, empty request, unknown Request.Model   schema       (no call made)
//
// A backend that stays unavailable is of kind unavailable, not a crash (no
// worker died) nor a limit (no cap was hit) nor, unless it went silent, a
// timeout: what a caller should do with a sub-call whose server is down is
// what it does with a timeout (docs/design.md: "skipped when optional").
// The breaker's message starts with "Circuit breaker: API error rate", or, when
// the last error was a failure to reach the server at all, with that failure
// ("cannot connect to http://HOST/v1: connection refused; Circuit breaker: …");
// once open, every later call of the Client fails with it. API errors for the
// breaker are all failed attempts except quota answers, the 400s about a
// field retried without it (logprobs, max_tokens, Sampling), monitor aborts
// and the caller's own cancellation. The open breaker's error, and a spent
// quota's, also match ErrUnavailable: the service, not the call, is failing,
// so a caller running many tasks (package batch) stops instead of failing each.
//
// # Budgets
//
// MaxCalls (80) counts HTTP attempts, retries and quota probes included;
// MaxTokens (200,000) counts prompt + completion tokens as reported by
// Usage. Before each attempt the Client refuses, without calling, when the
// call budget is used up or the estimated prompt would not fit what is left
// of the token budget; after each attempt it adds the attempt's tokens
// (those of aborted and dropped streams too). Concurrent calls may together
// overrun the token budget by what they were generating at once. MaxCost
// works the same way in dollars (see Money). Config.Spent resumes a task's
// figures and Client.Charge adds a sub-run's; every attempt is reported to
// Config.Observer (synchronously) so that the caller can persist exact
// figures.
//
// # Quota
//
// A spent quota or credit (OpenAI's 429 insufficient_quota, HTTP 402 as
// OpenRouter's "Insufficient credits" and Anthropic's billing_error,
// Anthropic's 400 "Your credit balance is too low" and spend-limit answers)
// pauses every call to that backend (the key's quota; other backends go
// on): callers about to make an attempt wait, and so do those whose attempt hits the quota too. One
// of them probes every QuotaProbe (5 min) with a one-token request; when a
// probe succeeds, the pause ends and the paused calls are sent again
// (requeued, not counted as retries). A probe is made only if it would be
// before the deadline (Config.Deadline or the context's, whichever is
// earlier); otherwise the paused calls fail with fault.Timeout. Without any
// deadline the quota fails at once with fault.Limit.
//
// # Notices
//
// Config.Notify gets, at once, what a person waiting on the task should know
// before it shows in an error: a missing API key for a remote server (before
// the first call), each transient retry with its cause and wait (a server
// that cannot be reached is named as such: "cannot connect to URL: connection
// refused"), a quota pause with the time of the next probe and the deadline,
// and the quota coming back.
//
// # Monitor and escalation
//
// Every streamed token goes to a fresh monitor.Monitor configured for the
// model's place in its ladder: index 0 → monitor.TierWorker, 1 →
// TierCoder, Models[2] and later → TierArchitect, then Request.Task's
// overrides when it is set. Tokens with logprobs are fed one by one, text
// deltas without logprobs as text-only tokens. On an abort the attempt is
// cancelled at once, reported with status "early_abort", not retried, and
// the request goes to the next model (Request.Tier+1, …); Response.Escalations
// lists "model: reason" for each. vLLM's finish_reason "repetition" is an
// abort too. An abort on the last model is fault.EarlyAbort.
//
// # Slow steps and secrets
//
// Each agent's baseline is the median latency of its first answered calls
// (three at least, five at most); an answer slower than 10× the baseline
// logs a warning "[agent:<name>] slow step: …".
//
// An API key is used only for its backend's Authorization header (x-api-key
// on Anthropic). Every error message, log line and Call.Err passes through
// Config.Redactor (by default redact.New(Config.Keys()...), which also knows
// the usual key shapes) and, when a Redactor is given, through one of the
// Client's own that knows every backend's key, because servers echo keys in
// messages such as "Incorrect API key provided: sk-…".
//
// # openai-go notes
//
// openai.NewClient reads OPENAI_* variables by default; the backend builds
// openai.NewChatCompletionService with explicit options instead. A non-2xx
// answer becomes *openai.Error, whose Error() is only "OpenAI API error: 400
// Bad Request" and whose fields are read from {"error":{...}} only: vLLM's
// top-level {"object":"error","message":...} leaves them empty, and
// llama.cpp's numeric code arrives as "400". The backend therefore reads the
// status, body and Retry-After itself (option.WithResponseInto). A stream
// cut mid-way ends Next with io.ErrUnexpectedEOF; one closed cleanly before
// [DONE] ends with no error at all, hence the finish-reason check.
package llm
