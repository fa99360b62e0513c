package batch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/llm"
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
			o, _ := w.options(tt.job)
			if o.Lang != tt.lang || o.Model.MaxCalls != tt.calls || o.MaxIterations != tt.it || o.Timeout != tt.timeout {
				t.Errorf("got lang %q, calls %d, iterations %d, timeout %s; want %q, %d, %d, %s", o.Lang, o.Model.MaxCalls, o.MaxIterations, o.Timeout, tt.lang, tt.calls, tt.it, tt.timeout)
			}
		})
	}
}

// TestWorkerCapsJobLimits: a job's limits only lower the worker's (its Base, or rlm run's
// defaults where Base has none); a job that asks for more runs with the worker's, and a note
// names each such limit. A worker with no dollar budget takes the job's.
func TestWorkerCapsJobLimits(t *testing.T) {
	worker := rlm.Options{Model: llm.Config{MaxCalls: 10, MaxTokens: 1000}, MaxIterations: 5, Timeout: time.Minute, CellTimeout: 5 * time.Second}
	priced := worker
	priced.Model.MaxCost = 0.5
	huge := Limits{MaxCalls: 1_000_000, MaxTokens: 1 << 40, MaxCost: 1e9, MaxIterations: 10_000, Timeout: Duration(1000 * time.Hour), CellTimeout: Duration(24 * time.Hour)}
	tests := []struct {
		name   string
		base   rlm.Options
		limits Limits
		want   string // calls tokens cost iterations timeout cell
		notes  []string
	}{
		{"none asked", worker, Limits{}, "10 1000 0 5 1m0s 5s", nil},
		{"lower", priced, Limits{MaxCalls: 3, MaxTokens: 500, MaxCost: 0.25, MaxIterations: 2, Timeout: Duration(30 * time.Second), CellTimeout: Duration(time.Second)}, "3 500 0.25 2 30s 1s", nil},
		{"higher", priced, huge, "10 1000 0.5 5 1m0s 5s", []string{"max_calls 1000000 is above this worker's 10", "max_tokens", "max_cost 1e+09 is above this worker's 0.5", "max_iterations", "timeout 1000h0m0s is above this worker's 1m0s", "cell_timeout 24h0m0s is above this worker's 5s"}},
		{"no dollar budget: the job's", worker, Limits{MaxCost: 2}, "10 1000 2 5 1m0s 5s", nil},
		{"worker at rlm run's defaults", rlm.Options{}, huge, "80 200000 1e+09 25 1h30m0s 2m0s", []string{"max_calls 1000000 is above this worker's 80", "max_tokens", "max_iterations", "timeout", "cell_timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Worker{Base: tt.base}
			o, notes := w.options(Job{Question: "q", Limits: tt.limits})
			got := fmt.Sprintf("%d %d %v %d %s %s", o.Model.MaxCalls, o.Model.MaxTokens, o.Model.MaxCost, o.MaxIterations, o.Timeout, o.CellTimeout)
			if got != tt.want {
				t.Errorf("limits %s, want %s", got, tt.want)
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tt.notes))
			}
			for i, n := range notes {
				if !strings.HasPrefix(n, "limits."+tt.notes[i]) || !strings.Contains(n, "a task's limits only lower its worker's") {
					t.Errorf("note %q, want one starting limits.%s that says why", n, tt.notes[i])
				}
			}
		})
	}
}

// TestReadJob: a job from the queue is checked as a task line is, since anyone who may publish
// to the queue wrote it: a limit the worker does not know, a duration out of range, a negative
// limit, a script over the validator's limit are refused with a message naming the field; a
// message that names no batch and id is not a job.
func TestReadJob(t *testing.T) {
	big := strings.Repeat("x", maxScript()+1)
	tests := []struct {
		name, data string
		ok         bool
		want       string // check's error; "" = none
	}{
		{"a job", `{"batch":"b","id":"t","question":"q","limits":{"max_calls":3,"cell_timeout":"30s"}}`, true, ""},
		{"unknown limit", `{"batch":"b","id":"t","question":"q","limits":{"max_calls":3,"max_depth":9}}`, true, `limits: unknown field "max_depth"; the fields of limits are max_calls, max_tokens, max_cost, max_iterations, timeout, cell_timeout`},
		{"duration past a Duration", `{"batch":"b","id":"t","question":"q","limits":{"timeout":1e10}}`, true, "limits.timeout: want a positive number of seconds of at most 9223372036, got 1e10"},
		{"huge duration", `{"batch":"b","id":"t","question":"q","limits":{"cell_timeout":1e308}}`, true, "limits.cell_timeout: want a positive number of seconds"},
		{"overflowing duration text", `{"batch":"b","id":"t","question":"q","limits":{"timeout":"9999999999h"}}`, true, `limits.timeout: want a duration such as "10m"`},
		{"negative duration", `{"batch":"b","id":"t","question":"q","limits":{"cell_timeout":"-1s"}}`, true, `limits.cell_timeout: want a positive duration such as "10m", got "-1s"`},
		{"zero duration", `{"batch":"b","id":"t","question":"q","limits":{"timeout":0}}`, true, "limits.timeout: want a positive number of seconds"},
		{"negative limit", `{"batch":"b","id":"t","question":"q","limits":{"max_cost":-1}}`, true, "limits.max_cost is -1; a limit must not be negative"},
		{"both", `{"batch":"b","id":"t","question":"q","script":{"name":"s.js","source":"FINAL(1)"}}`, true, "both a question and a script"},
		{"neither", `{"batch":"b","id":"t"}`, true, "neither a question nor a script"},
		{"big script", `{"batch":"b","id":"t","script":{"name":"s.js","source":"` + big + `"}}`, true, "the job's script is 131073 bytes; a script may have at most 131072"},
		{"wrong type", `{"batch":"b","id":"t","question":5}`, true, `field "question": want a string, got a JSON number`},
		{"not a job", `not json`, false, ""},
		{"no id", `{"batch":"b","question":5}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, ok := readJob([]byte(tt.data))
			if ok != tt.ok {
				t.Fatalf("ok %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			err := j.check()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check: %v; want %q", err, tt.want)
			}
			if j.Batch != "b" || j.ID != "t" {
				t.Errorf("job %q/%q, want b/t: its result must reach its batch", j.Batch, j.ID)
			}
		})
	}
}
