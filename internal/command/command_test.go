package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	args := map[string]string{"path": "/data/a b.pdf", "q": "-rf", "n": "3", "nul": "a\x00b"}
	for _, tc := range []struct {
		argv    []string
		want    string // words joined by |
		wantErr string
	}{
		{[]string{"pdftotext", "-layout", "{path}", "-"}, "pdftotext|-layout|/data/a b.pdf|-", ""},
		{[]string{"grep", "--max-count={n}", "--", "{q}", "{path}"}, "grep|--max-count=3|--|-rf|/data/a b.pdf", ""},
		{[]string{"grep", "{q}", "{path}"}, "", "starts with '-'"},
		{[]string{"tool", "--pattern={q}"}, "tool|--pattern=-rf", ""}, // inside a word: not an option of its own
		{[]string{"tool", "{nul}"}, "", "NUL byte"},
		{[]string{"tool", "{missing}"}, "", "no argument missing"},
		{[]string{"echo", "{n}{n}"}, "echo|33", ""},
	} {
		got, err := Expand(tc.argv, args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Expand(%q) error = %v, want %q", tc.argv, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.argv, strings.Join(got, "|"), err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		argv    []string
		params  []string
		wantErr string
	}{
		{[]string{"pdftotext", "{path}", "-"}, []string{"path"}, ""},
		{nil, nil, "exec is empty"},
		{[]string{"{path}"}, []string{"path"}, "exec[0]"},
		{[]string{"cat", "{file}"}, []string{"path"}, "{file}, which is not a parameter"},
		{[]string{"./tool.sh", "{path}"}, []string{"path"}, "relative path"},
		{[]string{"bin/tool", "{path}"}, []string{"path"}, "relative path"},
		{[]string{"/usr/bin/head", "-n", "1"}, nil, ""},
		{[]string{"head", "a\x00b"}, nil, "exec[1] holds a NUL byte"},
	} {
		err := Check(tc.argv, tc.params)
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("Check(%q, %q) = %v, want %q", tc.argv, tc.params, err, tc.wantErr)
		}
	}
	if got := strings.Join(Placeholders([]string{"x", "{a}", "--b={c}{a}"}), ","); got != "a,c" {
		t.Errorf("Placeholders = %s, want a,c", got)
	}
}

// TestRunEnvironment holds that the command sees the reduced environment: PATH, LC_*, and the
// names the configuration lists, never a key it did not name.
func TestRunEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("RLM_TOOL_TEST_EXTRA", "yes")
	out, err := Run(context.Background(), Spec{Env: []string{"RLM_TOOL_TEST_EXTRA"}}, []string{"env"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "sk-secret") || strings.Contains(out, "OPENAI_API_KEY") {
		t.Errorf("the command saw the API key:\n%s", out)
	}
	for _, want := range []string{"PATH=", "LC_ALL=C.UTF-8", "RLM_TOOL_TEST_EXTRA=yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("env lacks %s:\n%s", want, out)
		}
	}
}

func TestRunStdinClosedAndNoShell(t *testing.T) {
	// cat with no file reads stdin: /dev/null gives nothing at once (a terminal would hang).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := Run(ctx, Spec{}, []string{"cat"})
	if err != nil || out != "" {
		t.Fatalf("cat = %q, %v; want empty", out, err)
	}
	// A word with shell syntax is one argument to echo, never run.
	argv, err := Expand([]string{"echo", "{x}"}, map[string]string{"x": "$(touch pwned); `id`"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err = Run(ctx, Spec{Dir: dir}, argv)
	if err != nil || out != "$(touch pwned); `id`\n" {
		t.Fatalf("echo = %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the argument was run by a shell")
	}
}

func TestRunFailures(t *testing.T) {
	ctx := context.Background()
	_, err := Run(ctx, Spec{}, []string{"sh", "-c", "echo bad input >&2; exit 3"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status != "exit status 3" || ee.Stderr != "bad input" {
		t.Fatalf("exit 3: %#v", err)
	}
	if !strings.Contains(err.Error(), "sh failed (exit status 3): bad input") {
		t.Errorf("message: %v", err)
	}
	_, err = Run(ctx, Spec{}, []string{"no-such-program-rlm"})
	if err == nil || !strings.Contains(err.Error(), "not found on PATH; install it") {
		t.Errorf("missing program: %v", err)
	}
	_, err = Run(ctx, Spec{}, []string{"sh", "-c", "head -c 100000 /dev/zero >&2; exit 1"})
	if !errors.As(err, &ee) || len([]rune(ee.Stderr)) > StderrChars+1 {
		t.Errorf("stderr not capped: %d characters", len(ee.Stderr))
	}
}

func TestRunCapsOutputAndStops(t *testing.T) {
	start := time.Now()
	out, err := Run(context.Background(), Spec{MaxBytes: 1000}, []string{"yes"})
	if !errors.Is(err, ErrTooLong) || len(out) != 1000 {
		t.Fatalf("yes: %d bytes, %v", len(out), err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping an endless writer took %s", d)
	}
	out, err = Run(context.Background(), Spec{}, []string{"printf", `a\377b`})
	if err != nil || out != "a\uFFFDb" {
		t.Errorf("invalid UTF-8: %q, %v", out, err)
	}
}

// TestRunTimeoutKillsTheGroup holds that the context's end stops the command and its children
// at once, even a child that keeps stdout open.
func TestRunTimeoutKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, Spec{}, []string{"sh", "-c", "sleep 30 & sleep 30"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %s", d)
	}
}
