//go:build linux

package repl

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/corpus"
)

// TestCorpusEscapesWithoutOSLayers runs every escape case with the validator off in a worker with
// no OS layer at all (an unconfined child): what the interpreters' allow-lists and the file
// tools' path guard contain alone, which is all a macOS worker has below the validator (besides
// its rlimits and watchdogs). The workers get a 6 GiB address-space soft limit, so a memory
// bomb the validator would have rejected cannot take the machine. It takes about a minute:
// RLM_TEST_NO_OS_LAYERS=1 runs it.
func TestCorpusEscapesWithoutOSLayers(t *testing.T) {
	if os.Getenv("RLM_TEST_NO_OS_LAYERS") == "" {
		t.Skip("set RLM_TEST_NO_OS_LAYERS=1 to run every escape case without the validator or any OS layer (about a minute)")
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	old := lim
	lim.Cur = min(lim.Max, 6<<30)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_AS, &old) })
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(canary, []byte(canarySecret), 0o600); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"CANARY": canary, "OUTSIDE": filepath.Join(t.TempDir(), "pwned"), "ADDR": "127.0.0.1:9", "HOST": "127.0.0.1", "PORT": "9"}
	root := guardRoot(t, canary)
	values["ROOT"], values["LINK"], values["DIRLINK"] = root, filepath.Join(root, "link"), filepath.Join(root, "dirlink")
	values["DANGLING"] = filepath.Join(root, "dangling")
	for _, lang := range []string{"go", "js"} {
		o := realOptions(t, lang) // an unconfined worker: no sandbox layer
		o.NoValidate, o.MaxRestarts, o.CellTimeout = true, 1<<20, time.Second
		o.Roots = []string{root}
		s := open(t, o)
		n := 0
		for _, c := range cases {
			if c.Lang != lang || !c.Escape {
				continue
			}
			n++
			r := s.Exec(context.Background(), string(c.Render(values)))
			if why := breach(c, r, values); why != "" {
				t.Errorf("%s: %s", c.Name, why)
			}
			if _, err := os.Stat(values["OUTSIDE"]); err == nil {
				t.Errorf("%s: wrote outside the workspace", c.Name)
				os.Remove(values["OUTSIDE"])
			}
		}
		t.Logf("%s: %d escape cases run with no validator and no OS layer", lang, n)
	}
}
