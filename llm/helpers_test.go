package llm_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// testKey is a fake API key shaped like a real one, so that both the known
// value and the curated pattern would catch it.
const testKey = "sk-proj-TESTKEY0123456789abcdefXYZ"

// fakeClock is an injected Sleep and Now: sleeping advances the clock
// at once and records the wait.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waits   []time.Duration
	onSleep func(n int, d time.Duration) // called after each sleep, unlocked
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	n, hook := len(c.waits), c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook(n, d)
	}
	return nil
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a client wired to a fake server, a fake clock, a log buffer
// and a recording observer.
type harness struct {
	srv   *llmtest.Server
	c     *llm.Client
	clock *fakeClock
	log   *syncBuffer
	mu    sync.Mutex
	calls []llm.Call
}

func (h *harness) Calls() []llm.Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]llm.Call(nil), h.calls...)
}

func (h *harness) statuses() []string {
	var out []string
	for _, c := range h.Calls() {
		out = append(out, c.Status)
	}
	return out
}

// newHarness starts a server with replies and a client with the test's
// config changes applied.
func newHarness(t *testing.T, edit func(*llm.Config), replies ...llmtest.Reply) *harness {
	t.Helper()
	h := &harness{srv: llmtest.New(replies...), clock: newClock(), log: &syncBuffer{}}
	t.Cleanup(h.srv.Close)
	cfg := llm.Config{
		BaseURL: h.srv.URL(), APIKey: testKey, Models: []string{"small", "large"},
		Sleep: h.clock.Sleep, Now: h.clock.Now,
		Log:      slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observer: func(c llm.Call) { h.mu.Lock(); h.calls = append(h.calls, c); h.mu.Unlock() },
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

func ask(text string) llm.Request {
	return llm.Request{Agent: "root", Messages: []llm.Message{{Role: "user", Content: text}}}
}

func (h *harness) complete(req llm.Request) (llm.Response, error) {
	return h.c.Complete(context.Background(), req)
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func joinStrings(s []string) string { return strings.Join(s, ",") }
