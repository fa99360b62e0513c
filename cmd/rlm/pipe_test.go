package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/rogpeppe/go-internal/testscript"
)

// closedStderr runs rlm with its stderr a pipe whose reader has gone (as in rlm run … 2>&1 |
// head -1 once head has exited) and writes "exit N" on the script's stdout: rlm must go on to
// the end of the run, not die of SIGPIPE at its first progress line.
func closedStderr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: closedstderr ARGS...")
	}
	r, w, err := os.Pipe()
	ts.Check(err)
	ts.Check(r.Close())
	cmd := rlmCommand(ts, args...)
	cmd.Stderr = w
	err = cmd.Run()
	w.Close()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode() // -1 when a signal ended it
	} else {
		ts.Check(err)
	}
	fmt.Fprintf(ts.Stdout(), "exit %d\n", code)
}
