package mcpserver

import (
	"context"
	"net/http"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
)

// SetOpenSession makes sandbox_open open its sessions with f, for a test of an open that blocks
// where a cancellation does not reach; the returned function puts rlm.OpenSession back.
func SetOpenSession(f func(context.Context, rlm.SessionOptions) (*rlm.Session, error)) (restore func()) {
	openSession = f
	return func() { openSession = rlm.OpenSession }
}

// SetValidate makes the validate tool validate with f, for a test of validations that take
// long; the returned function puts repl.Validate back.
func SetValidate(f func(context.Context, repl.Options, string, []byte) (source.List, error)) (restore func()) {
	validateCode = f
	return func() { validateCode = repl.Validate }
}

// Bounded is the bounds ServeHTTP puts around its handler (token checked, body read under its
// deadline and cap, each write under its deadline), around h.
func Bounded(token string, h http.Handler) http.Handler { return bounded(token, h) }
