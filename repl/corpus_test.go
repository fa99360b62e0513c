package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/fault"
)

const canarySecret = "CANARY-7c1e-do-not-leak"

// confinedOptions starts fully confined workers (every sandbox layer this machine has) running
// the real engines over the sample context: this test binary, or the rlm-worker binary that
// RLM_TEST_WORKER_BINARY names (go build -o DIR/ ./cmd/rlm-worker). The context lives in a world-readable directory,
// because the worker runs as an unprivileged uid.
func confinedOptions(t testing.TB, lang string) Options {
	t.Helper()
	dir, err := os.MkdirTemp("", "rlm-repl-ctx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sample, err := corpus.Context("sample")
	if err != nil {
		t.Fatal(err)
	}
	ctxFile := filepath.Join(dir, "sample.txt")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ctxFile, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{
		Lang: lang, Contexts: []string{ctxFile}, AllowDegraded: true,
		CellTimeout: 3 * time.Second, KillGrace: 200 * time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Worker: WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_REPL_TEST_WORKER=confined"}},
	}
	if bin := os.Getenv("RLM_TEST_WORKER_BINARY"); bin != "" { // a built rlm-worker instead of this test binary
		o.Worker = WorkerCommand{Path: bin, Args: []string{}}
	}
	return o
}

// realOptions starts unconfined workers that run the real engines over the sample context.
func realOptions(t *testing.T, lang string) Options {
	t.Helper()
	dir := t.TempDir()
	sample, err := corpus.Context("sample")
	if err != nil {
		t.Fatal(err)
	}
	ctxFile := filepath.Join(dir, "sample.txt")
	if err := os.WriteFile(ctxFile, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions("real:none")
	o.Lang, o.Contexts, o.AllowDegraded = lang, []string{ctxFile}, true
	o.CellTimeout, o.KillGrace = 3*time.Second, 200*time.Millisecond
	return o
}

// TestCorpusBenignThroughSessions runs every benign program of a language through the whole
// pipeline in a real worker and compares its output or FINAL with the header.
func TestCorpusBenignThroughSessions(t *testing.T) {
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"go", "js"} {
		pass := 0
		for _, c := range cases {
			if c.Lang != lang || c.Escape {
				continue
			}
			// A session per program: each gets the whole per-session tool budget.
			o := realOptions(t, lang)
			// Benign programs finish in milliseconds; the margin is for a loaded CI machine,
			// where a cold worker's first cell once took over 3 s.
			o.CellTimeout = 20 * time.Second
			s := open(t, o)
			r := s.Exec(context.Background(), string(c.Source))
			s.Close()
			got := strings.TrimSuffix(r.Stdout, "\n")
			switch {
			case r.Err != nil:
				t.Errorf("%s: %v", c.Name, r.Err)
			case c.Final != "" && (r.Final == nil || *r.Final != c.Final):
				t.Errorf("%s: FINAL %q, want %q", c.Name, deref(r.Final), c.Final)
			case c.Want != "" && got != c.Want:
				t.Errorf("%s: printed %q, want %q", c.Name, got, c.Want)
			default:
				pass++
			}
		}
		t.Logf("%s: %d benign programs give their expected answer in one session", lang, pass)
	}
}

// TestCorpusEscapesThroughSessions runs every escape twice: with the validator on it must be
// rejected; with it off, in a confined worker, the lower layers must contain it: the canary never
// shows, nothing is written outside, and the session answers the next cell whatever the escape
// did (crash, hang, tampering). Built with -tags rlm_portable (and on macOS) the workers have no
// Linux layer, only rlimits and the watchdogs: then the interpreters' allow-lists and the file
// tools' path guard contain every case alone (.ci/run runs it so).
func TestCorpusEscapesThroughSessions(t *testing.T) {
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	canary, outside := exposed(t)
	values := map[string]string{"CANARY": canary, "OUTSIDE": outside, "ADDR": "127.0.0.1:9", "HOST": "127.0.0.1", "PORT": "9"}
	root := guardRoot(t, canary)
	values["ROOT"], values["LINK"], values["DIRLINK"] = root, filepath.Join(root, "link"), filepath.Join(root, "dirlink")
	values["DANGLING"] = filepath.Join(root, "dangling")
	values["HOME"], values["HOMELINK"] = guardHome(t, root)
	for _, lang := range []string{"go", "js"} {
		onOpts := realOptions(t, lang) // the validator alone (and the path guard, for P1)
		onOpts.Roots, onOpts.Home = []string{root}, values["HOME"]
		on := open(t, onOpts)
		offOpts := confinedOptions(t, lang) // the runtime and OS layers alone
		offOpts.NoValidate, offOpts.MaxRestarts, offOpts.CellTimeout = true, 1<<20, time.Second
		offOpts.Roots, offOpts.Home = []string{root}, values["HOME"]
		off := open(t, offOpts)
		t.Logf("%s: the sessions with the validator off run in workers with isolation %s", lang, off.Isolation().Verdict)
		rejected, guarded, contained := 0, 0, 0
		for _, c := range cases {
			if c.Lang != lang || !c.Escape {
				continue
			}
			src := string(c.Render(values))
			if c.Expect == "contain" {
				// Valid code with hostile arguments: nothing for the validator to reject, so
				// the path guard must contain it with the validator on as well.
				if why := breach(c, on.Exec(context.Background(), src), values); why != "" {
					t.Errorf("%s: validator on: %s", c.Name, why)
					continue
				}
				guarded++
			} else if r := on.Exec(context.Background(), src); errors.Is(r.Err, fault.Rejected) {
				rejected++
			} else {
				t.Errorf("%s: validator on: want rejected, got %v", c.Name, r.Err)
			}
			r := off.Exec(context.Background(), src)
			if why := breach(c, r, values); why != "" {
				t.Errorf("%s: validator off: %s", c.Name, why)
				continue
			}
			if _, err := os.Stat(values["OUTSIDE"]); err == nil {
				t.Errorf("%s: validator off: wrote outside the workspace", c.Name)
				os.Remove(values["OUTSIDE"])
				continue
			}
			if next := off.Exec(context.Background(), `print(1 + 1)`); strings.TrimSpace(next.Stdout) != "2" && !retry(off, &next) {
				t.Errorf("%s: validator off: the next cell failed: %q %v %v", c.Name, next.Stdout, next.Err, next.Lost)
				continue
			}
			contained++
		}
		t.Logf("%s: %d escapes rejected with the validator on (and %d path-guard cases contained); %d contained with it off", lang, rejected, guarded, contained)
	}
}

// breach explains how a case got out, or returns "": the canary in what it returned, or, for
// effect: oracle, answers about paths outside the roots that differ from one another or name
// what is there.
func breach(c corpus.Case, r Result, values map[string]string) string {
	if leaked(r) {
		return fmt.Sprintf("the canary leaked: %q", r.Stdout)
	}
	if c.Effect != "oracle" {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.Err != nil || len(lines) < 2 {
		return fmt.Sprintf("the probes did not run: %q %v", r.Stdout, r.Err)
	}
	exe, _ := os.Executable()
	for _, l := range lines {
		if l != lines[0] {
			return fmt.Sprintf("two paths outside the roots got different answers (an oracle):\n%s\n%s", lines[0], l)
		}
		for _, bad := range []string{"found", "resolves", filepath.Dir(values["CANARY"]), exe, "/usr/bin"} {
			if strings.Contains(l, bad) {
				return fmt.Sprintf("an answer names %q: %s", bad, l)
			}
		}
	}
	return ""
}

func leaked(r Result) bool {
	s := r.Stdout
	if r.Final != nil {
		s += *r.Final
	}
	if r.Err != nil {
		s += r.Err.Error()
	}
	return strings.Contains(s, canarySecret)
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

// retry gives a session whose worker was killed by the previous cell up to three more cells; a replay of
// a journal may itself be cut short by a cell that now fails differently.
func retry(s *Session, r *Result) bool {
	for range 3 { // a replay of the earlier cells can use up a cell's second on a loaded machine
		if *r = s.Exec(context.Background(), `print(1 + 1)`); strings.TrimSpace(r.Stdout) == "2" {
			return true
		}
	}
	return false
}

// exposed makes the canary file and names a file to be created outside the workspace, both in
// directories that every uid may read and write: file permissions then stop nothing, so what
// keeps code from them is rlm's own layers, even for a root parent whose worker runs as
// another uid (as it does not on macOS, where the worker has the user's uid and rights).
func exposed(t *testing.T) (canary, outside string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "rlm-exposed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	canary = filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(canary, []byte(canarySecret), 0o644); err != nil {
		t.Fatal(err)
	}
	return canary, filepath.Join(dir, "pwned")
}

// guardRoot makes an allowed read root holding notes.txt, a symlink to the canary, a directory
// symlink to the canary's directory and a symlink to a missing file beside the canary, for the
// path-guard cases.
func guardRoot(t *testing.T, canary string) string {
	t.Helper()
	root, err := os.MkdirTemp("", "rlm-guard-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("harmless notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(canary, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(canary), filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(canary), "missing.txt"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	return root
}

// guardHome makes the sessions' RLM_HOME inside the root, readable by every uid and holding the
// canary's secret as audit.db, and a symlink to it beside it: what keeps code from it is the
// guard alone (Landlock grants the whole root).
func guardHome(t *testing.T, root string) (home, link string) {
	t.Helper()
	home, link = filepath.Join(root, "home"), filepath.Join(root, "homelink")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "audit.db"), []byte(canarySecret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("home", link); err != nil {
		t.Fatal(err)
	}
	return home, link
}
