package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/trace"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Inspect run traces (JSONL, in the reference RLM logger's format)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "summary FILE",
		Short: "Summarize a run's trace: iterations, code blocks, errors by kind, sub-calls, tokens, time, answer",
		Long: `Summary reads a trace written by rlm run (RLM_HOME/traces/rlm_<time>_<task>.jsonl) or by the
reference RLM implementation's logger. A last line cut short by a crash is reported, not fatal.

Exit status: 0 · 1 malformed trace · 2 usage or unreadable file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usageError{err}
			}
			defer f.Close()
			s, err := trace.Summarize(f)
			if err != nil {
				return err
			}
			return s.Format(cmd.OutOrStdout())
		},
	})
	return cmd
}
