package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the rlm command, so the .txtar scripts under
// testdata/script drive the real CLI code paths, exit codes and output streams.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rlm":        func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
		"rlm-worker": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }, // a Session's worker
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits": exits, "fakellm": fakeLLM, "audit": auditCmd, "tracefile": traceFile,
			"livepid": livePID, "sigrun": sigRun, "taskid": taskID, "refparse": refParse,
			"timed": timed, "genctx": genctx, "replrss": replrss, "wsusage": wsusage, "sigafter": sigafter,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "contextbudget" {
				return contextBudget(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
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
