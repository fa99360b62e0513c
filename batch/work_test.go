package batch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// TestJobLimitsCappedByWorker: a job's limits cannot raise its worker's. The worker allows 3
// model calls a task; a model that never answers makes each run use all it may. A task asking
// for 40 calls still stops at 3, and its result line's notes say why; a task asking for 2 gets 2.
func TestJobLimitsCappedByWorker(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.New()
	srv.SetHandler(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Text: "```repl\nprint(\"more\")\n```"}
	})
	t.Cleanup(srv.Close)
	os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(`{"id":"greedy","question":"q","limits":{"max_calls":40}}`+"\n"+
		`{"id":"modest","question":"q","limits":{"max_calls":2}}`+"\n"), 0o644)
	tasks, err := batch.ReadTasks(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	base := rlm.Options{Home: filepath.Join(dir, "home"), Quiet: true, NoLog: true, Mode: rlm.Loop, Lang: "js",
		Model: llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"fake"}, MaxCalls: 3}}
	q := batch.NewMemQueue(4)
	out := filepath.Join(dir, "results.jsonl")
	if _, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q, Local: &batch.Worker{Queue: q, Base: base}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		calls int
		note  string
	}{
		"greedy": {3, "limits.max_calls 40 is above this worker's 3; the task ran with 3"},
		"modest": {2, ""},
	}
	for _, r := range readResults(t, out) {
		w := want[r.ID]
		note := strings.Join(r.Notes, " ")
		if r.Usage.Calls != w.calls || !strings.Contains(note, w.note) || w.note == "" && note != "" {
			t.Errorf("%s: %d calls, notes %q; want %d calls, a note containing %q", r.ID, r.Usage.Calls, r.Notes, w.calls, w.note)
		}
	}
}
