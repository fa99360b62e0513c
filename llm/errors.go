package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// Error categories of one failed attempt: Call.Status is "error:<category>".
// This file is the one place that classifies backend failures and maps them
// to fault kinds; doc.go has the table.
const (
	catRateLimit    = "rate_limit"       // 429 other than insufficient_quota: retried
	catServer       = "server"           // 5xx: retried
	catTransport    = "transport"        // reset, refused, EOF, dropped or broken stream: retried
	catConnect      = "connect_timeout"  // dial or TLS timeout: retried
	catIdle         = "idle_timeout"     // no chunk for IdleTimeout: retried
	catQuota        = "quota"            // 429 insufficient_quota: pause and probe
	catContext      = "context_length"   // prompt too long: never retried
	catLogprobs     = "logprobs_refused" // 400 about logprobs: retried once without
	catMaxParam     = "max_tokens_param" // 400 "use max_completion_tokens": retried once with it
	catParamRefused = "param_refused"    // 400 naming an optional field sent: retried once without it
	catBadRequest   = "bad_request"      // other 4xx: never retried
	catEarlyAbort   = "early_abort"      // the monitor stopped the stream
	catCanceled     = "canceled"         // the caller's context ended
	errDropped      = dropError("stream ended without a finish reason (connection dropped)")
	idleCauseLabel  = "idle timeout"
)

type dropError string

func (e dropError) Error() string { return string(e) }

// idleError is the cancel cause of an attempt that went idle.
type idleError struct{ d time.Duration }

func (e *idleError) Error() string {
	return fmt.Sprintf("%s: no data from the model server for %s", idleCauseLabel, e.d)
}

// abortError is returned through the stream when the monitor aborts.
type abortError struct{ reason, detail string }

func (e *abortError) Error() string { return "monitor abort (" + e.reason + "): " + e.detail }

// retryable reports whether a category is transient.
func retryable(cat string) bool {
	switch cat {
	case catRateLimit, catServer, catTransport, catConnect, catIdle:
		return true
	}
	return false
}

// countsForBreaker reports whether an error of the category is an API error
// for the circuit breaker. Quota (paused, not failing), early aborts and the
// caller's own cancellation are not.
func countsForBreaker(cat string) bool {
	return cat != catQuota && cat != catEarlyAbort && cat != catCanceled && cat != catLogprobs && cat != catMaxParam && cat != catParamRefused
}

// classify returns the category of an attempt's error. ctxErr is the caller's
// context error (nil while it is alive).
func classify(err error, ctxErr error, askedLogprobs bool, sentMaxTokens bool) string {
	var ab *abortError
	var api *APIError
	var idle *idleError
	switch {
	case errors.As(err, &ab):
		return catEarlyAbort
	case errors.As(err, &idle):
		return catIdle
	case ctxErr != nil:
		return catCanceled
	case errors.As(err, &api):
		return classifyAPI(api, askedLogprobs, sentMaxTokens)
	case isConnectTimeout(err):
		return catConnect
	}
	if msg := strings.ToLower(err.Error()); mentionsContextLength(msg) {
		return catContext
	}
	return catTransport
}

func classifyAPI(e *APIError, askedLogprobs, sentMaxTokens bool) string {
	text := strings.ToLower(e.Type + " " + e.Code + " " + e.Message)
	switch {
	case isQuota(e.Status, text):
		return catQuota
	case e.Status == 429:
		return catRateLimit
	case e.Status >= 500 || e.Status == 408:
		return catServer
	case e.Code == "context_length_exceeded" || e.Status == 413 || mentionsContextLength(text):
		return catContext
	case askedLogprobs && e.Status == 400 && strings.Contains(text, "logprob"):
		return catLogprobs
	case sentMaxTokens && e.Status == 400 && strings.Contains(text, "max_completion_tokens"):
		return catMaxParam
	}
	return catBadRequest
}

// isQuota reports a spent quota or credit: OpenAI's insufficient_quota,
// HTTP 402 (OpenRouter's "Insufficient credits", Anthropic's billing_error),
// and Anthropic's 400 "Your credit balance is too low" and spend-limit
// answers.
func isQuota(status int, lower string) bool {
	if status == 402 {
		return true
	}
	for _, s := range []string{"insufficient_quota", "billing_error", "credit balance is too low", "insufficient credits", "spend limit", "specified api usage limits"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

func mentionsContextLength(lower string) bool {
	for _, s := range []string{"context_length_exceeded", "context length", "maximum context", "context window", "context size", "too many tokens", "exceeds the context", "prompt is too long", "exceed context limit"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

func isConnectTimeout(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && op.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "TLS handshake timeout")
}

// ErrContextLength is matched (errors.Is) by the error of a call whose prompt does not fit the
// model's window. It is a limit of that call, not of the task: the caller should split the
// prompt and go on.
var ErrContextLength = errors.New("prompt exceeds the model's context window")

// contextLengthCause is the server's message for a context-length error.
type contextLengthCause string

func (c contextLengthCause) Error() string        { return string(c) }
func (c contextLengthCause) Is(target error) bool { return target == ErrContextLength }

// failure describes a final error for faultFor.
type failure struct {
	cat      string
	model    string
	agent    string
	attempts int
	err      error
	ctxErr   error
	setting  string // where the model's server is set: "RLM_BASE_URL", "base_url in [backends.NAME]"
}

// faultFor maps a final attempt failure to the *fault.Error that Complete
// returns. msg is already redacted by the caller's redactor via red.
func faultFor(f failure, red func(string) string) *fault.Error {
	cause := red(f.err.Error())
	who := fmt.Sprintf("model %s (agent %s)", f.model, f.agent)
	var k fault.Kind
	var msg string
	switch f.cat {
	case catContext:
		msg = red(who + ": the prompt does not fit the model's context window; split the prompt: send a smaller slice or fewer chunks per call")
		return &fault.Error{Kind: fault.Limit, Msg: msg, Err: contextLengthCause(cause)}
	case catBadRequest, catLogprobs, catMaxParam, catParamRefused:
		k, msg = fault.Format, fmt.Sprintf("%s rejected the request (%s); this is not retried: check the model name, API key and request options", who, cause)
	case catRateLimit:
		k, msg = fault.Limit, fmt.Sprintf("%s: still rate-limited after %d attempts (%s); lower the concurrency or raise the rate limit", who, f.attempts, cause)
	case catServer, catTransport:
		k, msg = fault.Unavailable, fmt.Sprintf("%s: model server unavailable after %d attempts (last: %s); check the server (%s) or try again later", who, f.attempts, cause, f.setting)
	case catIdle, catConnect:
		k, msg = fault.Timeout, fmt.Sprintf("%s: model server unavailable after %d attempts (last: %s); check the server (%s) or try again later", who, f.attempts, cause, f.setting)
	case catEarlyAbort:
		k, msg = fault.EarlyAbort, fmt.Sprintf("%s: generation aborted by the monitor on the last model tier (%s); rephrase the prompt, give a smaller slice, or add a stronger model to RLM_MODEL", who, cause)
	default: // catCanceled: the caller's deadline passed (timeout), or the caller stopped it
		k = fault.Canceled
		if errors.Is(f.ctxErr, context.DeadlineExceeded) {
			k = fault.Timeout
		}
		return fault.Wrap(k, f.ctxErr, red(who+": call cancelled"))
	}
	return &fault.Error{Kind: k, Msg: red(msg)}
}

// Budget, breaker and quota errors.

func budgetCallsError(used, max int) *fault.Error {
	return fault.New(fault.Limit, "budget: %d of %d API calls used; raise the call budget (rlm run --max-calls, llm.Config.MaxCalls) or split the task into smaller ones", used, max)
}

func budgetTokensError(used, need, max int) *fault.Error {
	return fault.New(fault.Limit, "budget: %d of %d tokens used and this call needs about %d more; raise the token budget (rlm run --max-tokens, llm.Config.MaxTokens), send shorter prompts, or split the task", used, max, need)
}

// ErrUnavailable is matched (errors.Is) by the error of a call that failed because the model
// service is failing as a whole, not because of the call: the circuit breaker opened, or the
// API quota is spent. Every other call to it would fail the same way now, so a caller running
// many tasks should stop rather than fail them one by one.
var ErrUnavailable = errors.New("the model service is unavailable")

// unavailable is a *fault.Error, kind and message unchanged, that is also ErrUnavailable.
type unavailable struct{ err *fault.Error }

func (u unavailable) Error() string        { return u.err.Error() }
func (u unavailable) Unwrap() error        { return u.err }
func (u unavailable) Is(target error) bool { return target == ErrUnavailable }

// breakerError is the breaker's error; setting, when the last error was a failure to connect,
// is where the server's URL is set ("RLM_BASE_URL", "base_url in [backends.NAME]").
func breakerError(n int, window time.Duration, last, setting string) error {
	if setting != "" {
		return unavailable{fault.New(fault.Unavailable, "%s; Circuit breaker: %d API errors within %s, so the task is aborted: start the model server or correct %s, then start again", last, n, window, setting)}
	}
	return unavailable{fault.New(fault.Unavailable, "Circuit breaker: API error rate too high (%d API errors within %s, last: %s); the task is aborted: check the model server and start again", n, window, last)}
}

func quotaDeadlineError(model, cause string) error {
	return unavailable{fault.New(fault.Timeout, "model %s: API quota exhausted (%s) and the next quota probe would be past the task's deadline; add credit or use another key, then resume the task", model, cause)}
}

func quotaNoDeadlineError(model, cause string) error {
	return unavailable{fault.New(fault.Limit, "model %s: API quota exhausted (%s); there is no task deadline to wait within: add credit or use another key, then resume the task", model, cause)}
}

// ctxFault is the error of a call whose context ended: timeout, or canceled (fault.Stopped).
func ctxFault(ctx context.Context, what string) *fault.Error {
	return fault.Wrap(fault.Stopped(ctx, "").Kind, ctx.Err(), what)
}

func configError(format string, args ...any) *fault.Error {
	return fault.New(fault.Schema, format, args...)
}
