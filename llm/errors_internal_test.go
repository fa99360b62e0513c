package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		ctx  error
		lp   bool
		want string
	}{
		{"429", &APIError{Status: 429, Code: "rate_limit_exceeded"}, nil, true, catRateLimit},
		{"429 quota", &APIError{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota"}, nil, true, catQuota},
		{"quota by message only", &APIError{Status: 429, Message: "insufficient_quota: add credit"}, nil, true, catQuota},
		{"500", &APIError{Status: 500}, nil, true, catServer},
		{"503", &APIError{Status: 503}, nil, true, catServer},
		{"408", &APIError{Status: 408}, nil, true, catServer},
		{"context code", &APIError{Status: 400, Code: "context_length_exceeded"}, nil, true, catContext},
		{"context message", &APIError{Status: 400, Message: "This model's maximum context length is 4096 tokens"}, nil, true, catContext},
		{"llama.cpp context", &APIError{Status: 400, Message: "the request exceeds the available context size, try increasing it", Type: "exceed_context_size_error"}, nil, true, catContext},
		{"logprobs refused", &APIError{Status: 400, Message: "logprobs is not supported"}, nil, true, catLogprobs},
		{"logprobs 400 not asked", &APIError{Status: 400, Message: "logprobs is not supported"}, nil, false, catBadRequest},
		{"401", &APIError{Status: 401}, nil, true, catBadRequest},
		{"max_tokens refused", &APIError{Status: 400, Code: "unsupported_parameter", Message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}, nil, false, catMaxParam},
		{"404", &APIError{Status: 404}, nil, true, catBadRequest},
		{"unexpected EOF", io.ErrUnexpectedEOF, nil, true, catTransport},
		{"reset", &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, nil, true, catTransport},
		{"dial timeout", &net.OpError{Op: "dial", Err: timeoutErr{}}, nil, true, catConnect},
		{"dropped", errDropped, nil, true, catTransport},
		{"idle", &idleError{d: time.Second}, nil, true, catIdle},
		{"abort", &abortError{reason: "loop"}, nil, true, catEarlyAbort},
		{"caller cancelled", context.Canceled, context.Canceled, true, catCanceled},
		{"stream error event", errors.New("received error while streaming: {\"message\":\"boom\"}"), nil, true, catTransport},
	}
	for _, tc := range tests {
		if got := classify(tc.err, tc.ctx, tc.lp, true); got != tc.want {
			t.Errorf("%s: classify = %q, want %q", tc.name, got, tc.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestFaultMapping pins the category → kind table of doc.go.
func TestFaultMapping(t *testing.T) {
	want := map[string]fault.Kind{
		catContext: fault.Limit, catBadRequest: fault.Format, catLogprobs: fault.Format,
		catRateLimit: fault.Limit, catIdle: fault.Timeout, catConnect: fault.Timeout,
		catServer: fault.Unavailable, catTransport: fault.Unavailable, catEarlyAbort: fault.EarlyAbort,
		catCanceled: fault.Canceled,
	}
	for cat, k := range want {
		f := faultFor(failure{cat: cat, model: "m", agent: "a", attempts: 5, err: errors.New("x"), ctxErr: context.Canceled}, func(s string) string { return s })
		if f.Kind != k {
			t.Errorf("%s → %s, want %s", cat, f.Kind, k)
		}
	}
	if !errors.Is(faultFor(failure{cat: catCanceled, err: context.Canceled, ctxErr: context.Canceled}, func(s string) string { return s }), context.Canceled) {
		t.Error("a cancelled call does not unwrap to context.Canceled")
	}
	if f := faultFor(failure{cat: catCanceled, err: context.DeadlineExceeded, ctxErr: context.DeadlineExceeded}, func(s string) string { return s }); f.Kind != fault.Timeout {
		t.Errorf("a call past its caller's deadline: %s, want timeout", f.Kind)
	}
	// An unavailable server: the fix names where its URL is set.
	f := faultFor(failure{cat: catServer, model: "m", agent: "sub", attempts: 5, err: errors.New("HTTP 503"), setting: "base_url in [backends.vllm]"}, func(s string) string { return s })
	if want := "check the server (base_url in [backends.vllm]) or try again later"; !strings.Contains(f.Error(), want) {
		t.Errorf("%v; want it to say %q", f, want)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"", 0, false},
		{"soon", 0, false},
		{"-1", 0, false},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range tests {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct{ body, typ, code, msg string }{
		{`{"error":{"message":"m","type":"t","param":null,"code":"c"}}`, "t", "c", "m"},
		{`{"error":{"code":400,"message":"m","type":"invalid_request_error"}}`, "invalid_request_error", "400", "m"},
		{`{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`, "BadRequestError", "400", "m"},
		{`{"error":"plain"}`, "", "", "plain"},
		{`Bad Gateway`, "", "", "Bad Gateway"},
	}
	for _, tc := range tests {
		typ, code, msg := parseErrorBody([]byte(tc.body))
		if typ != tc.typ || code != tc.code || msg != tc.msg {
			t.Errorf("%s → %q %q %q, want %q %q %q", tc.body, typ, code, msg, tc.typ, tc.code, tc.msg)
		}
	}
}

func TestTierOf(t *testing.T) {
	for i, want := range []string{"worker", "coder", "architect", "architect"} {
		if got := string(tierOf(i)); got != want {
			t.Errorf("tierOf(%d) = %s, want %s", i, got, want)
		}
	}
}
