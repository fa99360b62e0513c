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
		{"pipe", false, []string{"[batch] 1/2 t1 failed (limit) in 1.5s, 120 tokens\n", "[batch] 2 tasks: 1 done now (1 failed), 0 done before, 1 left; 120 tokens"}},
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
