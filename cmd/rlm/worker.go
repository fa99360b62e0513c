package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/repl"
)

// newWorkerCmd is the hidden subcommand a Session re-executes this binary with. It applies the
// confinement layers, then serves the worker protocol on stdin and stdout.
func newWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__worker",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return repl.Serve(os.Stdin, os.Stdout)
		},
	}
}
