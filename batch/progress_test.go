package batch

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/llm"
)

func TestProgress(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		want []string
	}{
		{"terminal", true, []string{"\r\x1b[K[############............] 1/2 done · 1 failed · 3 running · 120 tokens · $0.01 · ETA 0s", "\n[batch] 2 tasks: 1 done now (1 failed)"}},
		{"pipe", false, []string{"[batch] running 2 tasks; each result goes to ", "[batch] 1/2 t1 failed (limit) in 1.5s, 120 tokens\n", "[batch] 2 tasks: 1 done now (1 failed), 0 done before, 1 left; 120 tokens, cost $0.01, ", "; run the same command again to run the tasks left\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			p := newProgress(Config{Progress: &b, TTY: tt.tty}, 2, Summary{})
			p.running = func() int { return 3 }
			p.result(Result{ID: "t1", Status: "failed", Error: &Error{Kind: "limit"}, DurationMS: 1500, Usage: rlm.Usage{Calls: 1, Tokens: 120, Cost: llm.Cost{USD: 0.01}}})
			p.finish(Summary{Total: 2, Done: 1, Failed: 1, Left: 1})
			got := b.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%q", w, got)
				}
			}
			if !tt.tty && strings.ContainsAny(got, "\r\x1b") {
				t.Errorf("control characters in plain progress: %q", got)
			}
		})
	}
}

// TestProgressCounts: counts of one take the singular ("1 failed task", "1 task"), others the
// plural.
func TestProgressCounts(t *testing.T) {
	tests := []struct {
		sum  Summary
		tot  int
		want []string
	}{
		{Summary{Total: 1, Retried: 1}, 1, []string{"[batch] running 1 failed task again;"}},
		{Summary{Total: 3, Retried: 2}, 2, []string{"[batch] running 2 failed tasks again;"}},
		{Summary{Total: 2, Skipped: 1}, 1, []string{"[batch] 1 task has a result in r.jsonl already; running the other 1\n"}},
		{Summary{Total: 3, Skipped: 2}, 1, []string{"[batch] 2 tasks have a result in r.jsonl already; running the other 1\n"}},
	}
	for _, tt := range tests {
		var b strings.Builder
		newProgress(Config{Progress: &b, Out: "r.jsonl"}, tt.tot, tt.sum)
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%+v: output lacks %q:\n%q", tt.sum, w, b.String())
			}
		}
	}
	for sum, want := range map[Summary]string{
		{Total: 1, Done: 1}:             "1 task: 1 done now (0 failed), 0 done before, 0 left",
		{Total: 2, Done: 1, Skipped: 1}: "2 tasks: 1 done now (0 failed), 1 done before, 0 left",
	} {
		if got := sum.String(); got != want {
			t.Errorf("%+v: %q, want %q", sum, got, want)
		}
	}
}
