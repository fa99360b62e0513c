package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipesNeverBlock: every command that reads a file the user names refuses a fifo at
// once, with a message that says what it is, instead of waiting for a writer for ever; --ctx,
// which reads a named pipe as it reads stdin, waits for a writer 5 s at most. Each command is a
// real process (this test binary as rlm), killed after 20 s: a regression fails here rather
// than hanging the tests.
func TestNamedPipesNeverBlock(t *testing.T) {
	rlmBin, err := exec.LookPath("rlm") // this test binary, as testscript.Main installed it
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"in.txt":       "hi\n",
		"s.js":         "FINAL(1)\n",
		"script.jsonl": `{"id":"t1","script":"pipe.js","files":["in.txt"]}` + "\n",
		"files.jsonl":  `{"id":"t1","question":"q","files":["pipe"]}` + "\n",
		"ok.jsonl":     `{"id":"t1","script":"s.js","files":["in.txt"]}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "pipe.js")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int    // the exit status: 2 for a file the user names, 1 for a connection's
		in   string // standard input
	}{
		{"batch, the tasks file", []string{"batch", "pipe"}, 2, ""},
		{"batch, a task's script", []string{"batch", "script.jsonl"}, 2, ""},
		{"batch, a task's input", []string{"batch", "files.jsonl"}, 2, ""},
		{"batch --creds", []string{"batch", "ok.jsonl", "--queue", "nats://127.0.0.1:1", "--creds", "pipe"}, 1, ""},
		{"batch --tls-ca", []string{"batch", "ok.jsonl", "--queue", "tls://127.0.0.1:1", "--tls-ca", "pipe"}, 1, ""},
		{"run --script", []string{"run", "--script", "pipe.js", "--ctx", "in.txt"}, 2, ""},
		{"run --ctx, no writer", []string{"run", "--script", "s.js", "--ctx", "pipe"}, 2, ""},
		{"run --replay", []string{"run", "--replay", "pipe", "--ctx", "in.txt", "What is it?"}, 2, ""},
		{"validate", []string{"validate", "pipe.js"}, 2, ""},
		{"mcp --token-file", []string{"mcp", "--http", "127.0.0.1:0", "--token-file", "pipe", "--root", dir}, 2, ""},
		{"trace summary", []string{"trace", "summary", "./pipe"}, 2, ""},
		{"trace view", []string{"trace", "view", "./pipe", "-o", filepath.Join(dir, "view.html")}, 2, ""},
		{"the REPL's :load", []string{"repl", "--lang", "js"}, 0, ":load pipe.js\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, rlmBin, tc.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "RLM_HOME="+filepath.Join(dir, "home"), "HOME="+dir)
			cmd.Stdin = strings.NewReader(tc.in)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			code := 0
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			switch {
			case ctx.Err() != nil:
				t.Fatalf("rlm %s still running after 20 s (it opened the fifo and waits for a writer); stderr: %s", strings.Join(tc.args, " "), stderr.String())
			case err != nil && ee == nil, code != tc.code:
				t.Fatalf("rlm %s: %v; want exit status %d; stderr: %s", strings.Join(tc.args, " "), err, tc.code, stderr.String())
			case !strings.Contains(stderr.String(), "named pipe"):
				t.Errorf("rlm %s exited %d with stderr %q; want it to say the file is a named pipe", strings.Join(tc.args, " "), ee.ExitCode(), stderr.String())
			}
		})
	}
}
