package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/tools"
	"github.com/rlm-sandbox/rlm/trace"
	"github.com/rlm-sandbox/rlm/traceview"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Inspect run traces (JSONL, in the reference RLM logger's format)",
		Example: `  rlm trace summary 20261124-101500-3f9a1c
  rlm trace view 20261124-101500-3f9a1c --open`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "summary FILE|TASK_ID",
		Short: "Summarize a run's trace: iterations, code blocks, errors by kind, sub-calls, tokens, time, answer",
		Example: `  rlm trace summary 20261124-101500-3f9a1c                       # the task id rlm run printed
  rlm trace summary ~/.rlm/traces/rlm_2026-11-24_10-15-00_20261124-101500-3f9a1c.jsonl`,
		Long: `Summary reads a trace written by rlm run (RLM_HOME/traces/rlm_<time>_<task>.jsonl, with its
outcome beside it in rlm_<time>_<task>.outcome.json) or by the reference RLM implementation's
logger. Name the file, or the task id that rlm run printed (or a unique prefix of it, or last
for the newest run: rlm runs lists them). A last line cut short by a crash is
reported, not fatal.

Exit status: 0 · 1 malformed trace · 2 usage or unreadable file.`,
		Args:              exactArgs(1, "FILE|TASK_ID"),
		ValidArgsFunction: completeTraces,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := tracePath(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			s, err := trace.SummarizeFile(path)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, tools.ErrInvalid) {
				return usageError{err} // missing, unreadable, or not a regular file
			}
			if err != nil {
				return err
			}
			return s.Format(cmd.OutOrStdout())
		},
	})
	cmd.AddCommand(newTraceViewCmd())
	return cmd
}

func newTraceViewCmd() *cobra.Command {
	var out string
	var open bool
	cmd := &cobra.Command{
		Use:   "view FILE|TASK_ID [-o OUT.html] [--open]",
		Short: "Write a run's trace as one self-contained HTML page",
		Example: `  rlm trace view 20261124-101500-3f9a1c -o run.html
  rlm trace view 20261124-101500-3f9a1c --open          # in the desktop's browser`,
		Long: `View writes the trace as one HTML file that loads nothing from anywhere: the question, the answer,
usage over the iterations, and each iteration's prompt, response, code (highlighted), output,
errors, variables, sub-calls and timings. The trace is data only: nothing in it can run in the page.

The page goes to -o (default: the trace's name with .html, in the current directory); --open opens
it with the desktop's browser (xdg-open, or open on macOS).

Exit status: 0 · 1 the page could not be written · 2 usage or unreadable trace.`,
		Args:              exactArgs(1, "FILE|TASK_ID"),
		ValidArgsFunction: completeTraces,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := tracePath(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = strings.TrimSuffix(filepath.Base(path), ".jsonl") + ".html"
			}
			if err := writeView(path, out); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			if open {
				return openBrowser(out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write")
	cmd.Flags().BoolVar(&open, "open", false, "open the page in the desktop's browser")
	return cmd
}

// writeView renders the trace at path into the file out, whole or not at all.
func writeView(path, out string) error {
	if _, err := os.Stat(path); err != nil {
		return usageError{err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".rlm-view-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := traceview.RenderFile(tmp, path); err != nil {
		tmp.Close()
		if errors.Is(err, tools.ErrInvalid) { // not a regular file: an unreadable trace
			return usageError{err}
		}
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// openBrowser hands the page to the desktop's opener.
func openBrowser(file string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	c := exec.Command(name, abs)
	if err := c.Start(); err != nil {
		return fmt.Errorf("open %s: %w (the page is written; open it yourself)", abs, err)
	}
	go c.Wait()
	return nil
}

// tracePath resolves a trace argument: an existing file, else a task id under RLM_HOME/traces
// ("last", or a unique prefix: resolveTask).
func tracePath(ctx context.Context, arg string) (string, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return arg, nil
	}
	if strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, ".jsonl") {
		return "", usagef("trace %s: no such file", arg)
	}
	task, err := resolveTask(ctx, arg)
	if err != nil {
		return "", err
	}
	p, err := trace.Find(home.Traces(rlmHome()), task)
	if err != nil {
		return "", usageError{err}
	}
	return p, nil
}
