package llm_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// TestQuotaPauseResume: insufficient_quota pauses every caller; one probe
// every QuotaProbe; when a probe works all paused calls are requeued.
func TestQuotaPauseResume(t *testing.T) { forProviders(t, testQuotaPauseResume) }

func testQuotaPauseResume(t *testing.T, p llm.Provider) {
	const callers = 3
	var quotaOn atomic.Bool
	quotaOn.Store(true)
	h := newHarnessFor(t, p, func(c *llm.Config) { c.Deadline = newClock().now.Add(time.Hour) })
	var late sync.WaitGroup
	var lateErr error
	h.clock.onSleep = func(n int, d time.Duration) {
		switch n {
		case 1: // a caller arriving during the pause must wait, not call
			late.Add(1)
			go func() {
				defer late.Done()
				_, lateErr = h.c.Complete(context.Background(), ask("late"))
			}()
			time.Sleep(20 * time.Millisecond)
		case 2:
			quotaOn.Store(false) // the second probe finds the quota back
		}
	}
	h.srv.SetHandler(quotaHandler(t, &quotaOn, callers))
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = h.c.Complete(context.Background(), ask("question"))
		}()
	}
	wg.Wait()
	late.Wait()
	if lateErr != nil {
		t.Errorf("late caller: %v", lateErr)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if got, want := h.clock.Waits(), []time.Duration{5 * time.Minute, 5 * time.Minute}; !equalDurations(got, want) {
		t.Errorf("waits = %v, want %v (one probe every 5 min, by one prober)", got, want)
	}
	probes, quota, ok := countCalls(h)
	if probes != 2 || quota != callers || ok != callers+1 {
		t.Errorf("probes %d, quota errors %d, ok %d; want 2, %d, %d (calls: %v)", probes, quota, ok, callers, callers+1, h.statuses())
	}
}

// quotaHandler answers quota while quotaOn, holding the first callers'
// requests until all of them are in flight.
func quotaHandler(t *testing.T, quotaOn *atomic.Bool, callers int) func(llmtest.RecordedRequest) llmtest.Reply {
	var arrived sync.WaitGroup
	arrived.Add(callers)
	var first atomic.Int32
	return func(r llmtest.RecordedRequest) llmtest.Reply {
		if r.LastUser() == "question" && first.Add(1) <= int32(callers) {
			arrived.Done()
			arrived.Wait()
		}
		if quotaOn.Load() {
			if r.LastUser() == "late" {
				t.Error("a call was sent during the quota pause")
			}
			return llmtest.Reply{Kind: llmtest.Quota}
		}
		return llmtest.Reply{Text: "Fine."}
	}
}

// countCalls counts probes, quota errors and ok calls.
func countCalls(h *harness) (probes, quota, ok int) {
	for _, c := range h.Calls() {
		switch {
		case c.Probe:
			probes++
		case c.Status == "error:quota":
			quota++
		case c.Status == "ok":
			ok++
		}
	}
	return probes, quota, ok
}

// TestQuotaDeadline: a quota pause never waits past the task's deadline.
func TestQuotaDeadline(t *testing.T) { forProviders(t, testQuotaDeadline) }

func testQuotaDeadline(t *testing.T, p llm.Provider) {
	tests := []struct {
		name       string
		deadline   time.Duration // after the clock's start; 0 = none
		wantKind   fault.Kind
		wantWaits  int
		wantProbes int
	}{
		{"next probe past the deadline", 7 * time.Minute, fault.Timeout, 1, 1},
		{"deadline before the first probe", 2 * time.Minute, fault.Timeout, 0, 0},
		{"no deadline", 0, fault.Limit, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessFor(t, p, func(c *llm.Config) {
				if tc.deadline > 0 {
					c.Deadline = newClock().now.Add(tc.deadline)
				}
			}, llmtest.Reply{Kind: llmtest.Quota, Times: -1})
			_, err := h.complete(ask("question"))
			if fault.KindOf(err) != tc.wantKind || !errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v (%q, unavailable %v), want %q and llm.ErrUnavailable", err, fault.KindOf(err), errors.Is(err, llm.ErrUnavailable), tc.wantKind)
			}
			probes := 0
			for _, c := range h.Calls() {
				if c.Probe {
					probes++
				}
			}
			if len(h.clock.Waits()) != tc.wantWaits || probes != tc.wantProbes {
				t.Errorf("waits %v, probes %d; want %d waits, %d probes", h.clock.Waits(), probes, tc.wantWaits, tc.wantProbes)
			}
			if n := len(h.srv.Requests()); n != 1+tc.wantProbes {
				t.Errorf("requests = %d, want %d", n, 1+tc.wantProbes)
			}
		})
	}
}

// TestQuotaPausesOnlyItsBackend: a quota answer pauses the calls to its
// backend only; sub-calls on another backend go on during the pause.
func TestQuotaPausesOnlyItsBackend(t *testing.T) {
	var quotaOn atomic.Bool
	quotaOn.Store(true)
	tb := newTwoBackends(t, llm.ProviderAnthropic)
	tb.root.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		if quotaOn.Load() {
			return llmtest.Reply{Kind: llmtest.Quota}
		}
		return llmtest.Reply{Text: "root answer"}
	})
	deadline := newClock().now.Add(time.Hour)
	c, err := llm.New(llm.Config{BaseURL: tb.root.URL(), APIKey: rootKey, Models: []string{"big"}, SubModels: []string{"cheap"},
		Endpoints: map[string]llm.Endpoint{"other": {Provider: llm.ProviderAnthropic, BaseURL: tb.sub.URL(), APIKey: tb.subKey}},
		Catalog:   map[string]llm.ModelConfig{"big": {ID: "gpt-big-2026"}, "cheap": {ID: "vendor/cheap-1", Endpoint: "other"}},
		Deadline:  deadline, Now: tb.h.clock.Now, Sleep: tb.h.clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	var subErr error
	subDone := make(chan struct{})
	tb.h.clock.onSleep = func(n int, d time.Duration) {
		if n != 1 {
			return
		}
		go func() { // during the root backend's pause
			defer close(subDone)
			req := ask("sub question")
			req.Ladder = llm.Sub
			_, subErr = c.Complete(context.Background(), req)
		}()
		select {
		case <-subDone:
		case <-time.After(10 * time.Second):
			t.Error("the sub-call on another backend waited for the root backend's quota pause")
		}
		quotaOn.Store(false)
	}
	resp, err := c.Complete(context.Background(), ask("root question"))
	<-subDone
	if err != nil || resp.Text != "root answer" || subErr != nil {
		t.Fatalf("root %q %v, sub %v", resp.Text, err, subErr)
	}
	if n := len(tb.sub.Requests()); n != 1 {
		t.Errorf("sub backend requests = %d, want 1", n)
	}
}
