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

// testKey and anthropicKey are fake API keys shaped like real ones, so that
// both the known value and the curated pattern would catch them.
const (
	testKey      = "sk-proj-TESTKEY0123456789abcdefXYZ"
	anthropicKey = "sk-ant-api03-ANTKEY0123456789abcdefghijklmnopqrstuvwxyzABCDEF-0123456789AA"
)

// providers are the two APIs the harness can run a test against.
var providers = []llm.Provider{llm.ProviderOpenAI, llm.ProviderAnthropic}

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
	key   string // the API key the client sends
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

// newHarness starts an OpenAI-compatible server with replies and a client
// with the test's config changes applied.
func newHarness(t *testing.T, edit func(*llm.Config), replies ...llmtest.Reply) *harness {
	t.Helper()
	return newHarnessFor(t, llm.ProviderOpenAI, edit, replies...)
}

// newHarnessFor is newHarness against the fake server of provider p.
func newHarnessFor(t *testing.T, p llm.Provider, edit func(*llm.Config), replies ...llmtest.Reply) *harness {
	t.Helper()
	h := &harness{clock: newClock(), log: &syncBuffer{}}
	h.srv, h.key = fakeFor(p, replies...)
	t.Cleanup(h.srv.Close)
	cfg := llm.Config{
		Provider: p, BaseURL: h.srv.URL(), APIKey: h.key, Models: []string{"small", "large"},
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

// fakeFor starts the fake server of provider p and returns it with the key
// a client of it uses.
func fakeFor(p llm.Provider, replies ...llmtest.Reply) (*llmtest.Server, string) {
	if p == llm.ProviderAnthropic {
		return llmtest.NewAnthropic(replies...), anthropicKey
	}
	return llmtest.New(replies...), testKey
}

// forProviders runs f as a subtest per provider.
func forProviders(t *testing.T, f func(t *testing.T, p llm.Provider)) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) { f(t, p) })
	}
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
