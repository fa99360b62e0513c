package batch_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/fault"
)

// shellrc is a file that is not a results file; its last line has no newline (the line a
// results file's reader would take for one cut short by a crash).
const shellrc = "export PATH=$HOME/bin:$PATH\nalias ll='ls -l'"

// TestOutRefusesWhatIsNotResults: the results file (or the file a link to it names) is checked
// to be a results file before anything is written to it: a file of other lines, a link to one,
// a link to nothing, a directory and a named pipe are refused, unchanged and without blocking.
// A link to a results file is followed: its target gets the results and the link stays.
func TestOutRefusesWhatIsNotResults(t *testing.T) {
	_, model := fakeModel(t, 0, 0)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) (out, target string)
		want  string // error substring; "" = the batch runs
	}{
		{"a file of other lines", func(t *testing.T, dir string) (string, string) {
			return write(t, dir, "bashrc", shellrc), ""
		}, "bashrc:1: not a result line"},
		{"a link to a file of other lines", func(t *testing.T, dir string) (string, string) {
			target := write(t, dir, "bashrc", shellrc)
			return link(t, target, filepath.Join(dir, "out.jsonl")), target
		}, "bashrc:1: not a result line"},
		{"a link to a file whose only line is not one", func(t *testing.T, dir string) (string, string) {
			target := write(t, dir, "notes.txt", "remember the milk")
			return link(t, target, filepath.Join(dir, "out.jsonl")), target
		}, "notes.txt:1: not a result line"},
		{"a link to nothing", func(t *testing.T, dir string) (string, string) {
			return link(t, filepath.Join(dir, "nowhere", "x"), filepath.Join(dir, "out.jsonl")), filepath.Join(dir, "nowhere", "x")
		}, "which does not exist"},
		{"a directory", func(t *testing.T, dir string) (string, string) {
			return dir, ""
		}, "is a directory, not a regular file"},
		{"a named pipe", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			return p, ""
		}, "is a named pipe, not a regular file"},
		{"a link to a results file", func(t *testing.T, dir string) (string, string) {
			target := write(t, dir, "real.jsonl", `{"id":"t00","status":"answered","answer":"before"}`+"\n")
			return link(t, target, filepath.Join(dir, "out.jsonl")), target
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tasks, err := batch.ReadTasks(writeTasks(t, dir, 3))
			if err != nil {
				t.Fatal(err)
			}
			out, target := tt.setup(t, dir)
			before := snapshot(out, target)
			q := batch.NewMemQueue(16)
			base := rlm.Options{Home: filepath.Join(dir, "home"), Model: model, Quiet: true, NoLog: true}
			sum, err := runWithin(t, 20*time.Second, batch.Config{Tasks: tasks, Out: out, Queue: q, Local: &batch.Worker{Queue: q, Base: base}})
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, fault.Schema) {
					t.Fatalf("got %v, want a schema error containing %q", err, tt.want)
				}
				if after := snapshot(out, target); after != before {
					t.Errorf("the refused file changed:\n%s\nwant\n%s", after, before)
				}
				return
			}
			if err != nil || sum.Skipped != 1 || sum.Done != 2 {
				t.Fatalf("%s, %v; want 1 skipped, 2 done", sum, err)
			}
			if st, err := os.Lstat(out); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link is now %v, %v; want still a link", st.Mode(), err)
			}
			if n := len(readResults(t, target)); n != 3 {
				t.Errorf("the target holds %d results, want 3", n)
			}
		})
	}
}

// TestRetriedRefusesWhatIsNotResults: --retry-failed appends the failed lines to the .retried
// file only once it is known to be a results file: a link there to another file is refused,
// and that file and the results file are left as they were.
func TestRetriedRefusesWhatIsNotResults(t *testing.T) {
	dir := t.TempDir()
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 2))
	if err != nil {
		t.Fatal(err)
	}
	out := write(t, dir, "results.jsonl", `{"id":"t00","status":"failed","error":{"kind":"code","message":"x"}}`+"\n"+`{"id":"t01","status":"answered"}`+"\n")
	target := write(t, dir, "bashrc", shellrc)
	link(t, target, batch.RetriedPath(out))
	before := snapshot(out, target)
	q := batch.NewMemQueue(16)
	_, model := fakeModel(t, 0, 0)
	base := rlm.Options{Home: filepath.Join(dir, "home"), Model: model, Quiet: true, NoLog: true}
	_, err = runWithin(t, 20*time.Second, batch.Config{Tasks: tasks, Out: out, Queue: q, RetryFailed: true, Local: &batch.Worker{Queue: q, Base: base}})
	if err == nil || !strings.Contains(err.Error(), "bashrc:1: not a result line") {
		t.Fatalf("got %v, want the retried file's target refused", err)
	}
	if after := snapshot(out, target); after != before {
		t.Errorf("files changed:\n%s\nwant\n%s", after, before)
	}
}

func write(t *testing.T, dir, name, content string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func link(t *testing.T, target, name string) string {
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
	return name
}

// snapshot is what the files hold (or that they are missing), and whether the first is a link.
func snapshot(paths ...string) string {
	var b bytes.Buffer
	for _, p := range paths {
		if p == "" {
			continue
		}
		st, err := os.Lstat(p)
		b.WriteString(p + ": ")
		switch {
		case err != nil:
			b.WriteString("missing\n")
		case !st.Mode().IsRegular():
			b.WriteString(st.Mode().String() + "\n")
		default:
			data, _ := os.ReadFile(p)
			b.Write(data)
			b.WriteString("|\n")
		}
	}
	return b.String()
}

// runWithin runs the batch, failing the test if it has not returned within d.
func runWithin(t *testing.T, d time.Duration, cfg batch.Config) (batch.Summary, error) {
	type ran struct {
		sum batch.Summary
		err error
	}
	done := make(chan ran, 1)
	go func() {
		sum, err := batch.Run(context.Background(), cfg)
		done <- ran{sum, err}
	}()
	select {
	case r := <-done:
		return r.sum, r.err
	case <-time.After(d):
		t.Fatalf("the batch did not return within %s", d)
		return batch.Summary{}, nil
	}
}
