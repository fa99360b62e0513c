package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/validator"
)

// sessionFlags are the flags of every command that opens a session.
type sessionFlags struct {
	ctxFiles      []string
	roots         []string
	cellTimeout   time.Duration
	noValidate    bool
	allowDegraded bool
}

func (f *sessionFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.ctxFiles, "ctx", nil, "a context file (repeatable)")
	fl.StringArrayVar(&f.roots, "root", nil, "a directory the file tools (read_file, list_dir, grep) may read (repeatable)")
	fl.DurationVar(&f.cellTimeout, "cell-timeout", repl.DefaultCellTimeout, "deadline per cell")
	fl.BoolVar(&f.noValidate, "no-validate", false, "skip the validator (to test the lower layers alone)")
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, "run even when confinement is below the minimum")
}

// options turns the flags into session options, checking the context files exist.
func (f *sessionFlags) options(lang validator.Lang) (repl.Options, error) {
	files, err := existingFiles(f.ctxFiles)
	if err != nil {
		return repl.Options{}, err
	}
	return repl.Options{
		Lang: string(lang), Contexts: files, Roots: f.roots, CellTimeout: f.cellTimeout,
		NoValidate: f.noValidate, AllowDegraded: f.allowDegraded,
	}, nil
}

// rlmHome is $RLM_HOME, or ~/.rlm.
func rlmHome() string {
	if h := os.Getenv("RLM_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".rlm"
	}
	return filepath.Join(home, ".rlm")
}

type runFlags struct {
	sessionFlags
	script  string
	lang    string
	asJSON  bool
	timeout time.Duration
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --ctx FILE [--ctx FILE]... --script FILE [flags]",
		Short: "Run a saved script over an input in a confined worker",
		Long: `Run executes a script (Go or JavaScript) over the context files as one sandboxed cell.

The script sees the context through the model API (length, peek, search, count, chunk, ...).
It is validated, then run in a confined worker. stdout gets the script's printed output,
then the FINAL value, if the script recorded one. --json prints one object instead:
  {"status": "answered"|"completed"|"failed", "answer", "output",
   "error": {"kind", "message"}, "isolation"}

Answering a QUESTION with a root model is not available yet; use --script.

Exit status: 0 success · 1 failed (rejected, crashed, limit, code error) · 2 usage · 3 timeout.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("answering a question needs the model loop, which is not built yet; run a script with --script FILE")
			}
			if f.script == "" {
				return usagef("run needs --script FILE")
			}
			return runScript(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	f.register(fl)
	fl.StringVar(&f.script, "script", "", "the script to run")
	fl.StringVar(&f.lang, "lang", "", "go or js (default: from the script's extension)")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fl.DurationVar(&f.timeout, "timeout", 90*time.Minute, "wall clock for the whole run")
	return cmd
}

func runScript(ctx context.Context, out io.Writer, f runFlags) error {
	lang, err := scriptLang(f)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(f.script)
	if err != nil {
		return usageError{err}
	}
	opts, err := f.options(lang)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	s, err := repl.Open(ctx, opts)
	if err != nil {
		return report(out, f.asJSON, repl.Result{Err: err}, "")
	}
	defer s.Close()
	res := s.Exec(ctx, string(src))
	if res.Err == nil && ctx.Err() != nil {
		res.Err = fault.Wrap(fault.Timeout, ctx.Err(), "the run's --timeout passed")
	}
	return report(out, f.asJSON, res, s.Isolation().Verdict)
}

func scriptLang(f runFlags) (validator.Lang, error) {
	if f.lang != "" {
		l, err := validator.ParseLang(f.lang)
		if err != nil {
			return "", usageError{err}
		}
		return l, nil
	}
	l, ok := validator.LangOf(f.script)
	if !ok {
		return "", usagef("%s: cannot tell the language from the extension; use --lang go or --lang js", f.script)
	}
	return l, nil
}

func existingFiles(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, usageError{err}
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, usageError{err}
		}
		if st.IsDir() {
			return nil, usagef("--ctx %s is a directory; pass files (use --root for directories)", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

// report prints the outcome and returns the error that decides the exit status.
func report(out io.Writer, asJSON bool, r repl.Result, isolation string) error {
	if asJSON {
		obj := map[string]any{"status": status(r), "output": r.Stdout, "isolation": isolation}
		if r.Final != nil {
			obj["answer"] = *r.Final
		}
		if r.Err != nil {
			obj["error"] = map[string]string{"kind": string(kindOf(r.Err)), "message": r.Err.Error()}
		}
		if err := printJSON(out, obj); err != nil {
			return err
		}
		return exitFor(r.Err)
	}
	fmt.Fprint(out, r.Stdout)
	if r.Final != nil {
		fmt.Fprintln(out, *r.Final)
	}
	if r.Err != nil {
		return r.Err
	}
	return nil
}

func status(r repl.Result) string {
	switch {
	case r.Err != nil:
		return "failed"
	case r.Final != nil:
		return "answered"
	}
	return "completed"
}

func kindOf(err error) fault.Kind {
	if k := fault.KindOf(err); k != "" {
		return k
	}
	return fault.Code
}

// exitFor keeps the exit status of an error whose message was already printed as JSON.
func exitFor(err error) error {
	if err == nil {
		return nil
	}
	return silent{exitCode(err)}
}
