package mcpserver

import (
	"context"

	"github.com/rlm-sandbox/rlm"
)

// SetOpenSession makes sandbox_open open its sessions with f, for a test of an open that blocks
// where a cancellation does not reach; the returned function puts rlm.OpenSession back.
func SetOpenSession(f func(context.Context, rlm.SessionOptions) (*rlm.Session, error)) (restore func()) {
	openSession = f
	return func() { openSession = rlm.OpenSession }
}
