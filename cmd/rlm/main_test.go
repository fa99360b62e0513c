package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the rlm command, so the .txtar scripts under
// testdata/script drive the real CLI code paths, exit codes and output streams.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rlm": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
