package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlm-sandbox/rlm/sandbox"
)

// TestMain lets the test binary act as the rlm command, so the .txtar scripts under
// testdata/script drive the real CLI code paths, exit codes and output streams.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rlm":        main, // sub-runs too: rlm.MaybeServeWorker serves them
		"rlm-worker": main, // a Session's worker
	})
}

func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			// testscript's HOME is /no-home, which a root user can create: every script would
			// then share one real RLM home (and its audit database) across runs and branches.
			// Each script gets its own; a script that sets RLM_HOME still chooses its own.
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			return nil
		},
		// [degraded]: this machine gives less than the minimum confinement, so model code is
		// refused without --allow-degraded: on macOS, and on Linux built with -tags rlm_portable
		// (which .ci/run tests), or a kernel without Landlock or seccomp.
		Condition: func(cond string) (bool, error) {
			if cond == "degraded" {
				return sandbox.Probe().Check(0, false) != nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits": exits, "fakellm": fakeLLM, "audit": auditCmd, "tracefile": traceFile,
			"livepid": livePID, "waitfile": waitFile, "sigrun": sigRun, "taskid": taskID, "refparse": refParse,
			"timed": timed, "closedstderr": closedStderr, "genctx": genctx, "replrss": replrss, "wsusage": wsusage, "sigafter": sigafter,
			"inert": inert, "jsonget": jsonGet, "genlog": genLog, "envsubst": envsubst, "example": exampleCmd,
		},
	})
}

// exits CODE CMD ARGS... runs a command and fails unless it exits with CODE; its output is
// available to the next stdout/stderr checks.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE CMD [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// inert stdout|stderr fails unless the last command's output is inert on a terminal: no ESC
// (0x1b), BEL (0x07) or CSI (0x9b, raw or as U+009B), no other C0 control but tab and newline
// (a carriage return only before a newline), no DEL, no C1 control, no bidi control, valid
// UTF-8. With !, it fails if the output is inert (for --raw).
func inert(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || args[0] != "stdout" && args[0] != "stderr" {
		ts.Fatalf("usage: inert stdout|stderr")
	}
	why := activeBytes([]byte(ts.ReadFile(args[0])))
	switch {
	case neg && why == "":
		ts.Fatalf("%s is inert; want raw control bytes", args[0])
	case !neg && why != "":
		ts.Fatalf("%s is not inert: %s", args[0], why)
	}
}

// activeBytes describes the first thing in b a terminal would act on, or returns "".
func activeBytes(b []byte) string {
	for i, c := range b {
		switch {
		case c == 0x1b, c == 0x07, c == 0x9b:
			return fmt.Sprintf("byte %#02x at offset %d", c, i)
		case c == '\r' && (i+1 == len(b) || b[i+1] != '\n'):
			return fmt.Sprintf("a carriage return not before a newline at offset %d", i)
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			return fmt.Sprintf("control byte %#02x at offset %d", c, i)
		}
	}
	for i, r := range string(b) {
		switch {
		case r == utf8.RuneError && !utf8.FullRune(b[i:]), r == utf8.RuneError && !strings.HasPrefix(string(b[i:]), "\uFFFD"):
			return fmt.Sprintf("invalid UTF-8 at offset %d", i)
		case r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("C1 control %U at offset %d", r, i)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("bidi control %U at offset %d", r, i)
		case r != 0x200c && r != 0x200d && unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp), r >= 0xe0000 && r <= 0xe007f:
			return fmt.Sprintf("invisible character %U at offset %d", r, i) // joiners: as part of emoji and scripts
		}
	}
	return ""
}

// jsonget KEY decodes the last command's stdout as a JSON object and prints the string field
// KEY as a Go-quoted string, so a script can check what the JSON decodes to.
func jsonGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonget KEY")
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &obj); err != nil {
		ts.Fatalf("stdout is not a JSON object: %v", err)
	}
	s, ok := obj[args[0]].(string)
	if !ok {
		ts.Fatalf("jsonget: %s is %T, not a string", args[0], obj[args[0]])
	}
	fmt.Fprintf(ts.Stdout(), "%q\n", s)
}

// genlog FILE LINES WANT writes a log of LINES lines (levels drawn at random, multi-byte text in
// every line) and, into WANT, the number of lines per level as "LEVEL N" lines in sorted order,
// counted here over the whole file: the independent answer for the README's example cells.
func genLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: genlog FILE LINES WANT")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	levels := []string{"DEBUG", "INFO", "WARN", "ERROR"}
	var b strings.Builder
	seed := uint32(7)
	for i := range n {
		seed = seed*1664525 + 1013904223
		fmt.Fprintf(&b, "2026-11-01T10:%02d:%02dZ %s  [naïve-cache] request ☕ served in %d ms\n", i/60%60, i%60, levels[seed>>30], i)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			counts[f[1]]++
		}
	}
	var want strings.Builder
	for _, l := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&want, "%s %d\n", l, counts[l])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(want.String()), 0o644))
}
