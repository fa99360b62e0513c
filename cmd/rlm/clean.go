package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/internal/convert/cache"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

func newCleanCmd() *cobra.Command {
	var olderThan time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "clean [--older-than AGE] [--dry-run]",
		Short: "Delete old run records under RLM_HOME: traces, sub-call prompts, workspaces, audit rows",
		Example: `  rlm clean --dry-run                # what would go
  rlm clean --older-than 7d          # keep a week`,
		Long: `Clean deletes what finished runs left under RLM_HOME that is older than --older-than (default
30 days): trace files and sub-call prompts (traces/), per-task workspaces (work/), the audit rows of
finished tasks, PID files of processes that no longer exist, and the indexes and converted texts
([convert]) of inputs that changed or are gone (index/), whatever their age. Log files expire by themselves
after 30 days. Running tasks and their files are never touched. --dry-run lists without deleting.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan < 0 {
				return usagef("--older-than must not be negative")
			}
			return clean(cmd.OutOrStdout(), rlmHome(), time.Now().Add(-olderThan), dryRun)
		},
	}
	olderThan = limits.Retention
	cmd.Flags().Var(ageFlag{&olderThan}, "older-than", "age of the records to delete: 30d, 12h or 1d12h")
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
	texts, err := cache.Stale(home.Converted(dir))
	if err != nil {
		fmt.Fprintf(out, "could not list the converted texts: %v\n", err)
	}
	stale = append(stale, texts...)
	for _, p := range stale {
		remove(out, p, dryRun)
		n++
	}
	if dryRun {
		fmt.Fprintf(out, "%d %s would be removed\n", n, plural(n, "path", "paths"))
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
	fmt.Fprintf(out, "%d finished %s removed from the audit trail\n", n, plural(n, "task", "tasks"))
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

// ageFlag is --older-than: a Go duration ("36h"), whole days ("30d"), or both ("1d12h").
type ageFlag struct{ d *time.Duration }

func (a ageFlag) String() string { return formatAge(*a.d) }
func (a ageFlag) Type() string   { return "duration" }
func (a ageFlag) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*a.d = d
	return nil
}

// maxAgeDays bounds the days of an age, far below what a time.Duration holds.
const maxAgeDays = 36500

// parseAge reads an age: a Go duration, or whole days of 24 hours ("30d") followed by one
// ("1d12h").
func parseAge(s string) (time.Duration, error) {
	bad := errors.New("want an age such as 30d, 12h or 1d12h (d: days of 24 hours; then h, m, s)")
	days, rest, ok := strings.Cut(s, "d")
	if !ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, bad
		}
		return d, nil
	}
	n, err := strconv.Atoi(days)
	if err != nil || n < 0 || n > maxAgeDays || strings.HasPrefix(days, "+") {
		return 0, bad
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest != "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 || strings.HasPrefix(rest, "+") {
			return 0, bad
		}
		d += r
	}
	return d, nil
}

// formatAge writes an age as parseAge reads it, in days when it has whole ones: "30d".
func formatAge(d time.Duration) string {
	const day = 24 * time.Hour
	if d < day {
		return d.String()
	}
	s := strconv.FormatInt(int64(d/day), 10) + "d"
	if rest := d % day; rest != 0 {
		s += rest.String()
	}
	return s
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
