package batch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/fault"
)

// within runs f and fails the test if it has not returned within 10 s: a read of a fifo waits
// for a writer for ever, and must fail the test rather than hang it.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked for 10 s (a fifo was opened, and waits for a writer)", what)
		return nil
	}
}

// TestNamedPipesRefused: every file a batch reads by a name the tasks file or a flag gives (the
// tasks file itself, a script, an input, credentials and TLS files) is refused at once when it
// is a fifo, also when it was swapped for one after the tasks were read.
func TestNamedPipesRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("in.txt", "hi\n")
	pipe := fifo("pipe")
	for _, tc := range []struct {
		name string
		run  func() error
		want string // in the error
	}{
		{"tasks file", func() error { _, err := batch.ReadTasks(pipe); return err }, "a named pipe (fifo)"},
		{"script", func() error {
			_, err := batch.ReadTasks(write("script.jsonl", `{"id":"t","script":"pipe"}`))
			return err
		}, `task "t": script ` + pipe + " is not a regular file (named pipe)"},
		{"input", func() error {
			_, err := batch.ReadTasks(write("input.jsonl", `{"id":"t","question":"q","files":["in.txt","pipe"]}`))
			return err
		}, `task "t": ` + pipe + " is not a regular file (named pipe)"},
		{"script swapped for a fifo after the tasks were read", func() error {
			write("s.js", "FINAL(1)")
			tasks, err := batch.ReadTasks(write("swap.jsonl", `{"id":"t","script":"s.js","files":["in.txt"]}`))
			if err != nil {
				return err
			}
			fifo("s.js")
			_, err = batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: filepath.Join(dir, "swap.results.jsonl"), Queue: batch.NewMemQueue(4)})
			return err
		}, "a named pipe (fifo)"},
		{"input swapped for a fifo, stored in JetStream", func() error {
			q, _ := queues["jetstream"](t, t.TempDir())
			_, err := q.Store(context.Background(), pipe)
			return err
		}, "a named pipe (fifo)"},
		{"--creds", func() error { return dial(batch.Dial{URL: "nats://127.0.0.1:1", Creds: pipe}) }, "--creds: " + pipe + " is a named pipe (fifo)"},
		{"--tls-ca", func() error { return dial(batch.Dial{URL: "tls://127.0.0.1:1", CA: pipe}) }, "--tls-ca: " + pipe + " is a named pipe (fifo)"},
		{"--tls-cert", func() error {
			return dial(batch.Dial{URL: "tls://127.0.0.1:1", Cert: pipe, Key: write("k.pem", "")})
		}, "--tls-cert: " + pipe + " is a named pipe (fifo)"},
		{"--tls-key", func() error {
			return dial(batch.Dial{URL: "tls://127.0.0.1:1", Cert: write("c.pem", ""), Key: pipe})
		}, "--tls-key: " + pipe + " is a named pipe (fifo)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, tc.name, tc.run)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// dial connects as d says, and closes the connection if there is one.
func dial(d batch.Dial) error {
	nc, err := d.Connect()
	if nc != nil {
		nc.Close()
	}
	return err
}

// TestScriptReadBounded: a script that grew past the validator's cap after the tasks were read
// is refused when the batch reads it, not read whole.
func TestScriptReadBounded(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	os.WriteFile(script, []byte("FINAL(1)"), 0o644)
	tasks, err := batch.ReadTasks(writeFile(t, dir, "t.jsonl", `{"id":"t","script":"s.js"}`))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(script, []byte("//"+strings.Repeat("x", 200<<10)), 0o644) // grown past the cap since
	err = within(t, "the batch", func() error {
		_, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: filepath.Join(dir, "r.jsonl"), Queue: batch.NewMemQueue(4)})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "larger than 131072 bytes") || !errors.Is(err, fault.Schema) {
		t.Errorf("got %v, want a schema error: larger than 131072 bytes", err)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
