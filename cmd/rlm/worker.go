package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/repl"
)

// workerUse is the hidden subcommand a Session re-executes this binary with.
const workerUse = "__worker"

// newWorkerCmd is the hidden subcommand a Session re-executes this binary with. It applies the
// confinement layers, then serves the worker protocol on stdin and stdout.
func newWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    workerUse,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return repl.Serve(os.Stdin, os.Stdout)
		},
	}
}

// isWorker reports whether args (without the program name) are exactly the worker subcommand.
func isWorker(args []string) bool { return len(args) == 1 && args[0] == workerUse }

// runWorker is the worker's fast path: the same as "rlm __worker" through the command tree,
// without building that tree (every subcommand and its flags) in a process that starts once per
// session and whose start-up time is the session's.
func runWorker(stderr io.Writer) int {
	err := repl.Serve(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(stderr, "rlm: %v\n", err)
	}
	return exitCode(err)
}
