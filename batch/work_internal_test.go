package batch

import (
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
)

func TestWorkerOptions(t *testing.T) {
	w := &Worker{Base: rlm.Options{Lang: "go", MaxIterations: 25, Timeout: time.Hour}}
	w.Base.Model.MaxCalls = 80
	tests := []struct {
		name      string
		job       Job
		lang      string
		calls, it int
		timeout   time.Duration
	}{
		{"question keeps the base", Job{Question: "q"}, "go", 80, 25, time.Hour},
		{"question names js", Job{Question: "q", Lang: "js"}, "js", 80, 25, time.Hour},
		{"script: from its extension", Job{Script: &Script{Name: "s.js"}}, "", 80, 25, time.Hour},
		{"script names go", Job{Script: &Script{Name: "s.txt"}, Lang: "go"}, "go", 80, 25, time.Hour},
		{"limits", Job{Question: "q", Limits: Limits{MaxCalls: 3, MaxIterations: 2, Timeout: Duration(time.Minute)}}, "go", 3, 2, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := w.options(tt.job)
			if o.Lang != tt.lang || o.Model.MaxCalls != tt.calls || o.MaxIterations != tt.it || o.Timeout != tt.timeout {
				t.Errorf("got lang %q, calls %d, iterations %d, timeout %s; want %q, %d, %d, %s", o.Lang, o.Model.MaxCalls, o.MaxIterations, o.Timeout, tt.lang, tt.calls, tt.it, tt.timeout)
			}
		})
	}
}
