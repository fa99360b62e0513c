package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
		Use:   "summary FILE|TASK_ID",
		Short: "Summarize a run's trace: iterations, code blocks, errors by kind, sub-calls, tokens, time, answer",
		Long: `Summary reads a trace written by rlm run (RLM_HOME/traces/rlm_<time>_<task>.jsonl, with its
outcome beside it in rlm_<time>_<task>.outcome.json) or by the reference RLM implementation's
logger. Name the file, or the task id that rlm run printed. A last line cut short by a crash is
reported, not fatal.

Exit status: 0 · 1 malformed trace · 2 usage or unreadable file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := tracePath(args[0])
			if err != nil {
				return err
			}
			s, err := trace.SummarizeFile(path)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			return s.Format(cmd.OutOrStdout())
		},
	})
	return cmd
}

// tracePath resolves a trace argument: an existing file, else a task id under RLM_HOME/traces.
func tracePath(arg string) (string, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return arg, nil
	}
	if strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, ".jsonl") {
		return "", usagef("trace %s: no such file", arg)
	}
	p, err := trace.Find(filepath.Join(rlmHome(), "traces"), arg)
	if err != nil {
		return "", usageError{err}
	}
	return p, nil
}
