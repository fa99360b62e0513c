package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
)

func newAbortCmd() *cobra.Command {
	var task string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "abort --task-id ID",
		Short: "Stop a running task (SIGTERM to the run recorded in its PID file)",
		Long: `Abort sends SIGTERM to the run whose PID file is RLM_HOME/run/ID.pid, then waits up to --wait
for it to exit. The run marks its task FAILED, flushes its records, stops its worker and exits 143.
The task id is printed by rlm run on stderr and in --json output.

Exit status: 0 stopped · 1 no such running task, or it did not stop in time · 2 usage.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if task == "" || filepath.Base(task) != task {
				return usagef("abort needs --task-id ID (a task id as rlm run printed it)")
			}
			return abortTask(cmd, task, wait)
		},
	}
	cmd.Flags().StringVar(&task, "task-id", "", "the task to stop")
	cmd.Flags().DurationVar(&wait, "wait", limits.AbortWait, "how long to wait for the run to exit")
	return cmd
}

func abortTask(cmd *cobra.Command, task string, wait time.Duration) error {
	p := home.PIDFile(rlmHome(), task)
	pid, err := guard.ReadPID(p)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !guard.Alive(pid)) {
		return fmt.Errorf("no running task %s (no live PID file at %s)", task, p)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("signalling PID %d: %w", pid, err)
	}
	deadline := time.Now().Add(wait)
	for guard.Alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("task %s (PID %d) has not exited %s after SIGTERM", task, pid, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "task %s (PID %d) stopped\n", task, pid)
	return nil
}
