package llm_test

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// notes collects Notify lines.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) add(s string) { n.mu.Lock(); n.lines = append(n.lines, s); n.mu.Unlock() }
func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// TestQuotaPauseIsTold: an exhausted quota is told at once, before the pause, with when the
// next probe runs and until when; so is each further probe and the quota coming back.
func TestQuotaPauseIsTold(t *testing.T) {
	var quotaOn atomic.Bool
	quotaOn.Store(true)
	var n notes
	h := newHarness(t, func(c *llm.Config) {
		c.Deadline = newClock().now.Add(time.Hour)
		c.Notify = n.add
	})
	var beforeSleep []int
	h.clock.onSleep = func(i int, _ time.Duration) {
		beforeSleep = append(beforeSleep, len(n.all()))
		if i == 2 {
			quotaOn.Store(false)
		}
	}
	h.srv.SetHandler(quotaHandler(t, &quotaOn, 1))
	if _, err := h.complete(ask("question")); err != nil {
		t.Fatal(err)
	}
	got := n.all()
	want := []string{
		"API quota exhausted on model small (", "the run is paused; it probes the quota at 03:09:05, then every 5m0s until 04:04:05",
	}
	if len(got) != 3 || !strings.Contains(got[0], want[0]) || !strings.Contains(got[0], want[1]) ||
		!strings.Contains(got[1], "next probe at 03:14:05") || !strings.Contains(got[2], "quota is back on model small") {
		t.Fatalf("notices = %q; want the pause with its probe times, the second probe, the resume", got)
	}
	if len(beforeSleep) == 0 || beforeSleep[0] != 1 {
		t.Errorf("notices before the first wait = %v; the pause must be told before it starts", beforeSleep)
	}
}

// TestConnectRefusedIsTold: a server that is not there is named as such at the first failure,
// in the retry notice, and in the final error; the failure is still a retried transport error.
func TestConnectRefusedIsTold(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	var n notes
	var calls []llm.Call
	c, err := llm.New(llm.Config{BaseURL: url, Models: []string{"m"}, MaxAttempts: 2, MinBackoff: time.Millisecond,
		Notify: n.add, Observer: func(c llm.Call) { calls = append(calls, c) }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(t.Context(), ask("hi"))
	want := "cannot connect to " + url + ": connection refused"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v; want it to say %q", err, want)
	}
	got := n.all()
	if len(got) != 1 || !strings.HasPrefix(got[0], "model m (root): "+want+"; retry 1 of 1 in ") {
		t.Errorf("notices = %q; want one retry notice saying %q", got, want)
	}
	if len(calls) != 2 || calls[0].Status != "error:transport" || !strings.Contains(calls[0].Err, want) {
		t.Errorf("calls = %+v; want 2 transport errors that say %q", calls, want)
	}
}

// TestUnreachableTripsBreakerWithCause: when the breaker opens on connection failures, its
// message leads with them and says what to do.
func TestUnreachableTripsBreakerWithCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	// The fix names where the URL is set: the variable for the default backend, the table's
	// base_url for a named one.
	for _, tc := range []struct {
		cfg     llm.Config
		setting string
	}{
		{llm.Config{BaseURL: url, Models: []string{"m"}}, "correct RLM_BASE_URL"},
		{llm.Config{Models: []string{"m"}, Endpoints: map[string]llm.Endpoint{"vllm": {BaseURL: url}},
			Catalog: map[string]llm.ModelConfig{"m": {Endpoint: "vllm"}}}, "correct base_url in [backends.vllm]"},
	} {
		tc.cfg.MinBackoff = time.Millisecond
		c, err := llm.New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(t.Context(), ask("hi"))
		if err == nil || !strings.HasPrefix(err.Error(), "cannot connect to "+url+": connection refused; Circuit breaker: 5 API errors") ||
			!strings.Contains(err.Error(), tc.setting) || fault.KindOf(err) != fault.Unavailable {
			t.Errorf("error = %v (%s); want the unreachable server first, then the breaker and the fix (%s), of kind unavailable", err, fault.KindOf(err), tc.setting)
		}
	}
}

func TestMissingKey(t *testing.T) {
	tests := []struct {
		cfg  llm.Config
		warn bool
	}{
		{llm.Config{}, true}, // the default, OpenAI's API
		{llm.Config{BaseURL: "https://models.example.com/v1"}, true},
		{llm.Config{BaseURL: "http://10.0.0.7:8000/v1"}, true},
		{llm.Config{BaseURL: "https://models.example.com/v1", APIKey: testKey}, false},
		{llm.Config{BaseURL: "http://127.0.0.1:8080/v1"}, false},
		{llm.Config{BaseURL: "http://localhost:11434/v1"}, false},
		{llm.Config{BaseURL: "http://[::1]:8000/v1"}, false},
	}
	for _, tc := range tests {
		got := llm.MissingKey(tc.cfg)
		if (got != "") != tc.warn {
			t.Errorf("MissingKey(%q, key %t) = %q; want a warning: %t", tc.cfg.BaseURL, tc.cfg.APIKey != "", got, tc.warn)
		}
		if got != "" && !strings.Contains(got, "RLM_API_KEY") {
			t.Errorf("warning %q does not name the variable to set", got)
		}
	}
}

// TestMissingKeyToldOnce: a client without a key for a remote server says so before its first
// call, once.
func TestMissingKeyToldOnce(t *testing.T) {
	var n notes
	c, err := llm.New(llm.Config{BaseURL: "http://no-such-host.invalid/v1", Models: []string{"m"}, MaxAttempts: 1, ConnectTimeout: 2 * time.Second, Notify: n.add})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Complete(t.Context(), ask("hi")); err == nil {
			t.Fatal("a call to a host that does not exist worked")
		}
	}
	got := n.all()
	if len(got) != 1 || !strings.HasPrefix(got[0], "warning: no API key for http://no-such-host.invalid/v1") {
		t.Errorf("notices = %q; want the missing key, once", got)
	}
}

// TestMissingKeyPerBackend: each backend the ladders use is checked with its own key; a local
// default backend that the ladders do not use is not.
func TestMissingKeyPerBackend(t *testing.T) {
	var n notes
	c, err := llm.New(llm.Config{
		BaseURL: "http://127.0.0.1:9/v1", Models: []string{"big"}, MaxAttempts: 1, ConnectTimeout: 2 * time.Second, Notify: n.add,
		Endpoints: map[string]llm.Endpoint{"remote": {BaseURL: "https://remote.invalid/v1"}, "keyed": {BaseURL: "https://keyed.invalid/v1", APIKey: testKey}},
		Catalog:   map[string]llm.ModelConfig{"big": {Endpoint: "remote"}, "other": {Endpoint: "keyed"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Complete(t.Context(), ask("hi"))
	got := n.all()
	if len(got) == 0 || !strings.HasPrefix(got[0], "warning: no API key for https://remote.invalid/v1: the variable that api_key_env of [backends.remote] names is unset") {
		t.Fatalf("notices = %q; want the remote backend's missing key first", got)
	}
	for _, g := range got {
		if strings.Contains(g, "keyed.invalid") || strings.Contains(g, "warning") && strings.Contains(g, "127.0.0.1") {
			t.Errorf("notice %q: a keyed or local backend was warned about", g)
		}
	}
}
