package record

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/redact"
	"github.com/rlm-sandbox/rlm/trace"
)

// TestOpen: the records of a task exist once Open returns, the task is RUNNING, and what is
// written is redacted.
func TestOpen(t *testing.T) {
	home := t.TempDir()
	key := "sk-proj-TESTkey0123456789abcdefghijklmnopqrstuvwx"
	r, err := Open(Spec{Home: home, Started: time.Now(), Task: audit.Task{ID: "t1", Question: "why " + key, Lang: "js"},
		Meta: trace.Metadata{RootModel: "m"}}, redact.New(key))
	if err != nil {
		t.Fatal(err)
	}
	r.Tools.Add([]audit.ToolCall{{Task: "t1", Step: 1, Name: "peek", Result: key}})
	r.Close()
	db, err := audit.Open(filepath.Join(home, "audit.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	task, err := db.Task(context.Background(), "t1")
	if err != nil || task.Status != audit.Running || strings.Contains(task.Question, key) || task.PID != os.Getpid() {
		t.Errorf("task = %+v, %v; want RUNNING, redacted, this PID", task, err)
	}
	tools, _ := db.ToolCalls(context.Background(), "t1")
	if len(tools) != 1 || strings.Contains(tools[0].Result, key) {
		t.Errorf("tool rows = %+v; want the queued row, redacted", tools)
	}
	b, err := os.ReadFile(r.TracePath)
	if err != nil || strings.Contains(string(b), key) || !strings.Contains(string(b), `"root_model":"m"`) {
		t.Errorf("trace %s: %v\n%s", r.TracePath, err, b)
	}
}
