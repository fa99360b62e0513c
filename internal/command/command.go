// Package command runs a user's own command for a tool or a converter: an argv from trusted
// configuration, filled with a call's arguments, run by the parent as the user (never the
// confined worker, never a shell).
//
// What it guarantees around the command (SECURITY.md, "The user's own tools"):
//   - argv: the configured words, each {name} replaced by the argument of that name; the
//     arguments never become words of their own and are never read by a shell. An argument that
//     starts with '-' is refused unless a "--" word comes before its placeholder, so that a
//     value cannot pass itself off as an option of the command.
//   - environment: only PATH, HOME, LANG, TZ, TMPDIR and the LC_* variables, plus the names
//     the configuration lists (Spec.Env); no API key reaches it unless the user names it.
//   - stdin is closed (/dev/null); stdout is read up to Spec.MaxBytes, then the command is
//     stopped; stderr is kept up to StderrChars for the error.
//   - time: the command and every process of its group are killed at the context's end.
package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// StderrChars is how much of a failing command's stderr its error carries.
const StderrChars = 2000

// BaseEnv are the variables every command gets from rlm's environment, when set.
var BaseEnv = []string{"PATH", "HOME", "LANG", "TZ", "TMPDIR"}

// Spec is a command as configured.
type Spec struct {
	Argv     []string // the program and its words; {name} is replaced by the argument name
	Env      []string // more variables passed through by name (beside BaseEnv and LC_*)
	Dir      string   // working directory; "" = rlm's
	MaxBytes int      // bytes of stdout read; the command is stopped past it. 0 = 1 MiB
}

var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Placeholders are the names of the placeholders of argv, in order of first use.
func Placeholders(argv []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range argv {
		for _, m := range placeholder.FindAllStringSubmatch(w, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}

// Check reports what is wrong with a configured argv: empty, a placeholder in the program's
// name, a program named by a relative path (./tool: whatever the working directory holds), a NUL
// byte, or a placeholder not among params (nil params: any name).
func Check(argv []string, params []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("exec is empty; give the program and its arguments as a list of strings")
	}
	if placeholder.MatchString(argv[0]) {
		return fmt.Errorf("exec[0] %q holds a placeholder; the program must be fixed, only its arguments may be filled in", argv[0])
	}
	if strings.ContainsRune(argv[0], '/') && !filepath.IsAbs(argv[0]) {
		// Relative to the directory rlm starts in, which someone else (or model code) may
		// have written to: the program would be whatever that directory holds.
		return fmt.Errorf("exec[0] %q is a relative path; give the program's name (looked up on PATH) or its absolute path", argv[0])
	}
	for i, w := range argv {
		if strings.IndexByte(w, 0) >= 0 {
			return fmt.Errorf("exec[%d] holds a NUL byte, which no argument can carry; remove it", i)
		}
	}
	if params == nil {
		return nil
	}
	for _, n := range Placeholders(argv) {
		found := false
		for _, p := range params {
			found = found || p == n
		}
		if !found {
			return fmt.Errorf("exec uses {%s}, which is not a parameter; declare it in params or remove it", n)
		}
	}
	return nil
}

// Expand fills argv's placeholders with args. It refuses an argument with a NUL byte, and one
// that starts with '-' in a word that comes before any "--" word.
func Expand(argv []string, args map[string]string) ([]string, error) {
	out := make([]string, len(argv))
	dashdash := false
	for i, w := range argv {
		var bad error
		out[i] = placeholder.ReplaceAllStringFunc(w, func(m string) string {
			name := m[1 : len(m)-1]
			v, ok := args[name]
			switch {
			case !ok:
				bad = fmt.Errorf("no argument %s", name)
			case strings.IndexByte(v, 0) >= 0:
				bad = fmt.Errorf("argument %s holds a NUL byte", name)
			case strings.HasPrefix(v, "-") && !dashdash && strings.HasPrefix(w, m):
				bad = fmt.Errorf("argument %s starts with '-' (%q), which the command would read as an option; pass a value that does not start with '-'", name, clip(v, 40))
			}
			return v
		})
		if bad != nil {
			return nil, bad
		}
		if i > 0 && w == "--" {
			dashdash = true
		}
	}
	return out, nil
}

// ExitError is a command that ran and failed: its status and the start of its stderr.
type ExitError struct {
	Program string
	Status  string // "exit status 1", "signal: killed"
	Stderr  string // at most StderrChars characters
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s failed (%s)", e.Program, e.Status)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// ErrTooLong is the error of a command whose stdout passed MaxBytes; Run returns it with the
// output read so far.
var ErrTooLong = errors.New("output longer than the cap")

// Run runs the expanded argv (Expand) under ctx. It returns stdout as valid UTF-8 (invalid
// bytes become U+FFFD). A missing program, a failure to start, and a non-zero exit are errors
// (an *ExitError for the last); ctx's end kills the command's process group and returns
// ctx.Err().
func Run(ctx context.Context, s Spec, argv []string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("no program")
	}
	max := s.MaxBytes
	if max <= 0 {
		max = 1 << 20
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "", fmt.Errorf("%s: not found on PATH; install it or give its absolute path in exec", argv[0])
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = environ(s.Env, os.Environ())
	cmd.Dir = s.Dir
	cmd.Stdin = nil // /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr capped
	stderr.max = StderrChars * 4
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("%s: %v", argv[0], err)
	}
	stop := context.AfterFunc(ctx, func() { killGroup(cmd) })
	data, rerr := io.ReadAll(io.LimitReader(out, int64(max)+1))
	long := len(data) > max
	if long {
		data = data[:max]
		killGroup(cmd)
	}
	werr := waitBounded(cmd)
	stop()
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case long:
		return text, ErrTooLong
	case rerr != nil:
		return "", rerr
	case werr != nil:
		return "", &ExitError{Program: argv[0], Status: werr.Error(), Stderr: clip(strings.ToValidUTF8(strings.TrimSpace(stderr.String()), "\uFFFD"), StderrChars)}
	}
	return text, nil
}

// waitBounded waits for the command, then for a child that kept its stderr open at most a
// second (cmd.WaitDelay), so that a stray background process cannot hold the call.
func waitBounded(cmd *exec.Cmd) error {
	cmd.WaitDelay = time.Second
	return cmd.Wait()
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// environ is the reduced environment: BaseEnv, LC_*, and extra, from env ("NAME=value" pairs).
func environ(extra []string, env []string) []string {
	keep := map[string]bool{}
	for _, n := range BaseEnv {
		keep[n] = true
	}
	for _, n := range extra {
		keep[n] = true
	}
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if keep[name] || strings.HasPrefix(name, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// capped is a writer that keeps the first max bytes and drops the rest.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// clip is s cut at n characters, with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
