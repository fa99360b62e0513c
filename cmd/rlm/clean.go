package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

func newCleanCmd() *cobra.Command {
	var olderThan time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "clean [--older-than DUR] [--dry-run]",
		Short: "Delete old run records under RLM_HOME: traces, sub-call prompts, workspaces, audit rows",
		Long: `Clean deletes what finished runs left under RLM_HOME that is older than --older-than (default
30 days): trace files and sub-call prompts (traces/), per-task workspaces (work/), the audit rows of
finished tasks, PID files of processes that no longer exist, and the indexes of inputs that
changed or are gone (index/), whatever their age. Log files expire by themselves
after 30 days. Running tasks and their files are never touched. --dry-run lists without deleting.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan < 0 {
				return usagef("--older-than must not be negative")
			}
			return clean(cmd.OutOrStdout(), rlmHome(), time.Now().Add(-olderThan), dryRun)
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", limits.Retention, "age of the records to delete")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be deleted")
	return cmd
}

func clean(out io.Writer, dir string, before time.Time, dryRun bool) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("RLM_HOME %s: %w", dir, err)
	}
	// Everything a running task holds was created after its PID file: keep anything newer than
	// the oldest live one.
	keepAfter := time.Now().Add(time.Hour)
	files, _ := filepath.Glob(filepath.Join(home.Run(dir), "*.pid"))
	for _, f := range files {
		st, serr := os.Stat(f)
		if pid, err := guard.ReadPID(f); err == nil && guard.Alive(pid) && serr == nil {
			keepAfter = minTime(keepAfter, st.ModTime())
			continue
		}
		remove(out, f, dryRun)
	}
	n := 0
	for _, aged := range home.Aged(dir) {
		matches, _ := filepath.Glob(filepath.Join(aged, "*"))
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || st.ModTime().After(before) || !st.ModTime().Before(keepAfter) {
				continue
			}
			remove(out, m, dryRun)
			n++
		}
	}
	stale, err := tools.StaleIndexes(home.Index(dir))
	if err != nil {
		fmt.Fprintf(out, "could not list the index cache: %v\n", err)
	}
	for _, p := range stale {
		remove(out, p, dryRun)
		n++
	}
	if dryRun {
		fmt.Fprintf(out, "%d paths would be removed\n", n)
		return nil
	}
	return pruneAudit(out, dir, before)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func pruneAudit(out io.Writer, dir string, before time.Time) error {
	p := home.Audit(dir)
	if _, err := os.Stat(p); err != nil {
		return nil
	}
	db, err := audit.Open(p, audit.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Prune(context.Background(), before)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d finished tasks removed from the audit trail\n", n)
	return nil
}

func remove(out io.Writer, path string, dryRun bool) {
	if dryRun {
		fmt.Fprintf(out, "would remove %s\n", path)
		return
	}
	if err := os.RemoveAll(path); err != nil {
		fmt.Fprintf(out, "could not remove %s: %v\n", path, err)
		return
	}
	fmt.Fprintf(out, "removed %s\n", path)
}
