package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/internal/home"
)

// TestTaskStatusUnfinished: rlm runs shows a task recorded as running as RUNNING only while a
// live process holds its PID file; a run killed before it recorded its end is UNFINISHED.
func TestTaskStatusUnfinished(t *testing.T) {
	h := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(home.PIDFile(h, "t1")), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(task string, pid int) {
		if err := os.WriteFile(home.PIDFile(h, task), []byte(fmt.Sprintf("%d\nmodel\n", pid)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("live", os.Getpid())
	write("dead", 1<<22+12345) // above pid_max's default: no such process
	for _, tc := range []struct {
		task   audit.Task
		status string
	}{
		{audit.Task{ID: "live", Status: audit.Running}, "RUNNING"},
		{audit.Task{ID: "dead", Status: audit.Running}, "UNFINISHED"},
		{audit.Task{ID: "nofile", Status: audit.Running}, "UNFINISHED"},
		{audit.Task{ID: "done", Status: audit.Answered}, "ANSWERED"},
	} {
		if got := taskStatus(tc.task, h); got != tc.status {
			t.Errorf("taskStatus(%s, %s) = %s; want %s", tc.task.ID, tc.task.Status, got, tc.status)
		}
	}
}
