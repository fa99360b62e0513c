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
		Use:   "abort TASK_ID",
		Short: "Stop a running task (SIGTERM to the run recorded in its PID file)",
		Example: `  rlm abort 20261124-101500-3f9a1c               # the task id rlm run printed
  rlm abort last                                 # the newest run
  rlm abort --wait 30s 20261124-101500-3f9a1c`,
		Long: `Abort sends SIGTERM to the run whose PID file is RLM_HOME/run/TASK_ID.pid, then waits up to
--wait for it to exit. The run marks its task ABORTED (error kind canceled), flushes its
records, stops its worker and exits 143. The task id is printed by rlm run on stderr and in
--json output (rlm runs lists them); a prefix unique among the runs going will do, and last
names the newest run that is going. --task-id ID is the older spelling of the argument.

Exit status: 0 stopped · 1 no such running task, or it did not stop in time · 2 usage.`,
		Args:              maxArgs(1, "TASK_ID"),
		ValidArgsFunction: completeRunning,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := abortTarget(args, task)
			if err != nil {
				return err
			}
			if id, err = resolveRunning(cmd.Context(), id); err != nil {
				return err
			}
			return abortTask(cmd, id, wait)
		},
	}
	cmd.Flags().StringVar(&task, "task-id", "", "the task to stop (the older spelling of the TASK_ID argument)")
	cmd.Flags().DurationVar(&wait, "wait", limits.AbortWait, "how long to wait for the run to exit")
	return cmd
}

// abortTarget is the task rlm abort stops: its argument, or --task-id.
func abortTarget(args []string, flag string) (string, error) {
	task := flag
	if len(args) == 1 {
		if flag != "" && flag != args[0] {
			return "", usagef("two task ids, %q and --task-id %q: give one, rlm abort TASK_ID", args[0], flag)
		}
		task = args[0]
	}
	switch {
	case task == "":
		return "", usagef("abort needs the TASK_ID that rlm run printed: rlm abort TASK_ID")
	case filepath.Base(task) != task || task == "." || task == "..":
		return "", usagef("%q is not a task id (one path element, as rlm run printed it)", task)
	}
	return task, nil
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
