// Package llm is rlm's model client: every model call (the root model and
// every llm_query) goes through one Client, which enforces the task's
// budgets, survives a flaky backend, and has each generation watched token
// by token by the monitor package.
//
//	cfg, err := llm.FromEnv() // RLM_BASE_URL, RLM_API_KEY, RLM_MODEL=small,large
//	cfg.Deadline, cfg.Observer = taskDeadline, audit.Record
//	c, err := llm.New(cfg)
//	resp, err := c.Complete(ctx, llm.Request{Agent: "root", Messages: msgs})
//
// # Backend
//
// The default Backend is OpenAI-compatible chat completions (OpenAI, vLLM,
// llama.cpp server, Ollama) over openai-go v3, streaming, with openai-go's
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
// empty choices, llama.cpp on the finish chunk); without one the completion
// tokens are the logprob entries counted (Source "logprobs", prompt
// estimated), else characters/4 on both sides (Source "estimate"). The
// prompt estimate is characters/4 plus 4 tokens per message.
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
// at MaxBackoff). Transient: 429 rate limits, 5xx and 408, connection
// errors (reset, refused, unexpected EOF), a stream that ends without a
// finish reason (dropped), an error event inside the stream, connect and
// idle timeouts. Never retried: 429 insufficient_quota (see Quota),
// context-length errors (code context_length_exceeded, or a message that
// mentions the context length, maximum context, context window or context
// size: OpenAI, vLLM and llama.cpp word it differently), other 4xx, and a
// monitor abort. The one exception is a 400 about logprobs, retried once
// without them (above).
//
// # Errors
//
// Complete returns *fault.Error values; their messages say what happened,
// why and what to do, and are redacted. The mapping, kept in errors.go:
//
//	failure                                          kind         Call.Status
//	budget of calls or tokens would be exceeded      limit        (no call made)
//	5 API errors within 60 s (circuit breaker)       limit        error:<category>
//	context length exceeded                          limit        error:context_length
//	429 rate limit after MaxAttempts attempts        limit        error:rate_limit
//	quota exhausted, no deadline to wait within      limit        error:quota
//	quota exhausted, next probe past the deadline    timeout      error:quota
//	5xx, 408, transport, dropped stream, connect or
//	  idle timeout after MaxAttempts attempts        timeout      error:server|transport|connect_timeout|idle_timeout
//	the caller's context cancelled or expired        timeout      (wraps ctx.Err())
//	other 4xx (400, 401, 403, 404, 422, …)           format       error:bad_request
//	monitor abort on the last model of the ladder    early_abort  early_abort
//	no model, empty request                          schema       (no call made)
//
// A backend that stays unavailable is a timeout, not a crash (no worker died)
// nor a limit (no cap was hit): DESIGN.md's policy for timeout ("skipped when
// optional") is what a caller should do with a sub-call whose server is down.
// The breaker's message starts with "Circuit breaker: API error rate"; once
// open, every later call of the Client fails with it. API errors for the
// breaker are all failed attempts except quota answers, the logprobs 400,
// monitor aborts and the caller's own cancellation.
//
// # Budgets
//
// MaxCalls (80) counts HTTP attempts, retries and quota probes included;
// MaxTokens (200,000) counts prompt + completion tokens as reported by
// Usage. Before each attempt the Client refuses, without calling, when the
// call budget is used up or the estimated prompt would not fit what is left
// of the token budget; after each attempt it adds the attempt's tokens
// (those of aborted and dropped streams too). Concurrent calls may together
// overrun the token budget by what they were generating at once. Config.Spent
// resumes a task's figures; every attempt is reported to Config.Observer
// (synchronously) so that the caller can persist exact figures.
//
// # Quota
//
// A 429 insufficient_quota pauses every call of the Client: callers about to
// make an attempt wait, and so do those whose attempt hits the quota too. One
// of them probes every QuotaProbe (5 min) with a one-token request; when a
// probe succeeds, the pause ends and the paused calls are sent again
// (requeued, not counted as retries). A probe is made only if it would be
// before the deadline (Config.Deadline or the context's, whichever is
// earlier); otherwise the paused calls fail with fault.Timeout. Without any
// deadline the quota fails at once with fault.Limit.
//
// # Monitor and escalation
//
// Every streamed token goes to a fresh monitor.Monitor configured for the
// model's place in the ladder: Models[0] → monitor.TierWorker, Models[1] →
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
// The API key is used only for the Authorization header. Every error
// message, log line and Call.Err passes through Config.Redactor (by default
// redact.New(APIKey), which also knows the usual key shapes), because servers
// echo keys in messages such as "Incorrect API key provided: sk-…".
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
