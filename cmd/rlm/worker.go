package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/worker"
)

// workerUse is the hidden subcommand a Session re-executes this binary with when there is no
// usable rlm-worker beside it (repl.DefaultWorker).
const workerUse = "__worker"

// newWorkerCmd is the hidden subcommand a Session re-executes this binary with, reached through
// the command tree; main serves it before building the tree (rlm.MaybeServeWorker), since the
// worker starts once per session and its start-up time is the session's. It applies the
// confinement layers, then serves the worker protocol on stdin and stdout (worker.Serve, as
// cmd/rlm-worker does with far less linked in).
func newWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:         workerUse,
		Hidden:      true,
		Annotations: map[string]string{noHome: ""},
		Args:        noArgs,
		RunE: func(*cobra.Command, []string) error {
			return worker.Serve(os.Stdin, os.Stdout)
		},
	}
}
