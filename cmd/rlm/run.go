package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/internal/files"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/sandbox"
	"github.com/rlm-sandbox/rlm/source"
)

// sessionFlags are the flags of every command that opens a session.
type sessionFlags struct {
	ctxFiles      []string
	roots         []string
	out           string
	noValidate    bool
	allowDegraded bool

	cf   configFlags     // the flags that set configuration values
	conf *config.Config  // loaded by check: files, environment and flags
	ws   files.Workspace // resolved once per command, so :reset and :lang keep it
}

// register adds the session flags and the configuration flags named (all of config.Flags when
// none is named).
func (f *sessionFlags) register(fl *pflag.FlagSet, configFlags ...string) {
	fl.StringArrayVar(&f.ctxFiles, "ctx", nil, "a context `FILE` (repeatable; - reads stdin); its directory is readable by the file tools")
	fl.StringArrayVar(&f.roots, "root", nil, "a `DIR` the file tools (read_file, list_dir, file_info, grep) may read (repeatable)")
	fl.StringVar(&f.out, "out", "", "the workspace `DIR` (must exist, outside $RLM_HOME): write_file writes only here, relative\npaths resolve here (default: a new directory under $RLM_HOME/work)")
	f.cf.register(fl, configFlags...)
	fl.BoolVar(&f.noValidate, "no-validate", false, "skip the validator (to test the lower layers alone)")
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, allowDegradedUsage)
}

// allowDegradedUsage is --allow-degraded's help, for every command that runs model code.
const allowDegradedUsage = "run model code even where confinement is below the minimum (macOS: always),\nwith rlimits, the validator and the allow-lists only (rlm isolation says what is missing)"

// warnDegraded says on stderr that --allow-degraded lets model code run below the minimum
// confinement on this machine, and with what; without the flag, opening the session fails.
func (f *sessionFlags) warnDegraded(w io.Writer) {
	if !f.allowDegraded {
		return
	}
	rep := sandbox.Probe()
	if rep.Check(0, false) == nil {
		return
	}
	fmt.Fprintf(w, "rlm: warning: isolation is %s: --allow-degraded runs model code with rlimits, the validator and the "+
		"interpreters' allow-lists only (rlm isolation says what is missing)\n", rep.Verdict())
}

// options turns the flags into the options of rlm.OpenSession, checking the context files
// exist. The workspace is resolved (the default one created) once per command and named to
// every session the command opens, so that :reset and :lang keep it; the command removes it at
// the end when nothing was written to it (files.Workspace.Finish).
func (f *sessionFlags) options(lang source.Lang) (rlm.SessionOptions, error) {
	ctxFiles, err := existingFiles(f.ctxFiles, f.conf)
	if err != nil {
		return rlm.SessionOptions{}, err
	}
	if f.ws.Dir == "" {
		if f.ws, err = resolveWorkspace(f.out); err != nil {
			return rlm.SessionOptions{}, err
		}
	}
	tools, err := rlm.CommandTools(f.conf) // checked when the configuration was loaded
	if err != nil {
		return rlm.SessionOptions{}, usageError{err}
	}
	l := f.conf.Limits
	return rlm.SessionOptions{
		Lang: string(lang), Files: ctxFiles, Roots: f.roots, Workspace: f.ws.Dir, Home: rlmHome(), CellTimeout: l.CellTimeout,
		Limits: l.API(), Quota: rlm.Quota{Bytes: l.WorkspaceBytes, Entries: l.WorkspaceEntries}, WorkerMemory: l.WorkerMemory,
		NoValidate: f.noValidate, AllowDegraded: f.allowDegraded, Tools: tools, Convert: rlm.Converters(f.conf),
		// the inputs' index cache under RLM_HOME/index (rlm clean removes the stale indexes)
		Warn: func(err error) { fmt.Fprintf(os.Stderr, "rlm: warning: %v\n", err) },
	}, nil
}

// rlmHome is $RLM_HOME, or ~/.rlm. The root command's checkHome has refused an RLM_HOME that
// home.Dir cannot give before any command that calls this runs.
func rlmHome() string {
	h, err := home.Dir()
	if err != nil {
		panic("rlm: RLM_HOME was not checked before use: " + err.Error())
	}
	return h
}

type runFlags struct {
	sessionFlags
	script string
	lang   string
	asJSON bool
	raw    bool
	ask    askFlags // the root-model loop (a QUESTION instead of --script)
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --ctx FILE [--ctx FILE]... (QUESTION | --script FILE) [flags]",
		Short: "Answer a question about the inputs with a root model, or run a saved script, in a confined worker",
		Example: `  # The demo: a scripted model, no network
  rlm run --replay examples/demo/model.json --ctx examples/demo/app.log "Which user had the most payment errors, and what went wrong?"
  # A saved script, no model at all: its printed output on stdout
  rlm run --ctx corpus/ctx/sample.txt --script examples/wordcount.js
  # The input from stdin, the model from the environment, one JSON object on stdout
  journalctl -b | rlm run --ctx - --json "Which service failed first after boot, and why?"
  # Tighter budgets and a deadline
  rlm run --ctx big.log --max-calls 20 --max-cost 0.50 --timeout 10m "How many distinct users saw error 51?"`,
		Long: `Run answers QUESTION about the context files, or runs a saved script over them.

With a QUESTION, a root model (RLM_BASE_URL or OPENAI_BASE_URL, RLM_API_KEY or OPENAI_API_KEY,
RLM_MODEL or --model; keys are read from the environment only) writes code that explores the
input in a sandboxed REPL through the model API, calling sub-models with llm_query, until its
code records the answer with FINAL. Inputs under 50,000 characters go to the model in one call
instead, unless --rlm or --dense. stdout gets the answer only; progress goes to stderr as
"[agent:NAME] ..." lines (--quiet: none, --verbose: also each cell); while a cell or a model
call runs longer than 5 s, a line says what runs, for how long and what the run has used so far
(on a terminal, one status line redrawn every second). --json prints one object:
  {"status": "answered"|"failed", "answer", "error": {"kind", "message"}, "usage",
   "task_id", "trace", "isolation"}
"usage" is the usage object of rlm batch's result lines and MCP's rlm_ask too (README: "Usage
and cost in JSON"): "api_calls", "iterations", "sub_calls", "tokens", "prompt_tokens",
"completion_tokens", "cost_usd" (null when some call's cost is unknown, never 0),
"cost_unknown_calls", "cost_usd_known" and "cost" (as printed: "$0.0123", "unknown", …).
Every run is recorded under RLM_HOME (default ~/.rlm), whatever its outcome: the audit trail
(audit.db, SQLite), a JSONL trace (traces/, see rlm trace summary), sub-call prompts, and a daily
log (logs/, off with --no-log or SFA_NO_LOG=1). Secrets are redacted from all of them.
Guardrails: budgets (--max-calls, --max-tokens), --max-iterations, --max-subcalls, the task's
--timeout, a circuit breaker on API errors, RLM_HOME/EMERGENCY_STOP (checked before every model
call), one model run at a time per RLM_HOME (--max-runs N allows N; rlm abort TASK_ID stops
one; script runs without llm_query are not counted), and 100 MB free disk.
SIGINT and SIGTERM (rlm abort sends it) stop the run, its worker and its sub-runs, and mark
the task ABORTED, its error of kind canceled.
--replay FILE answers with a scripted model instead (examples/demo/model.json): no network.

With --script, the script (Go or JavaScript) runs as one sandboxed cell; its errors name the
script's file. Its llm_query calls go to the configured model, if any, under the same caps and
budgets; the run is recorded as a question run is, and milestone lines appear with --verbose
only (a script that runs longer than 5 s still says so, unless --quiet). stdout gets its printed output, then the FINAL value, if it recorded one. --json prints
one object instead:
  {"status": "answered"|"completed"|"failed", "answer", "output",
   "error": {"kind", "message"}, "usage", "task_id", "trace", "isolation", "workspace"}

` + filesHelp + `
A default workspace that was written to is named on stderr ("[agent:rlm] the code wrote files
to DIR") and in --json as "workspace"; one left empty is removed. --ctx - reads the context
from stdin; a pipe (--ctx <(cmd)), a named pipe (whose writer has 5 s to come) and a file of
/proc or /sys are read to their end the same way. A binary file (a PDF, or a NUL byte in its
first 8 KiB) is refused, and so is a device, unless a converter of rlm.toml's [convert] takes its
extension: its text is then the context, kept in $RLM_HOME/index for the next run (README: Your
own tools).

What the code or the model wrote is printed with its control characters escaped (ESC, BEL, C1
and bidi controls), so that it cannot act on a terminal; --raw prints the answer as it is.

Exit status: 0 success · 1 failed (rejected, crashed, limit, model server unavailable, loop
detected) · 2 usage · 3 timeout · 130 SIGINT · 143 SIGTERM.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cleanup, err := f.saveInputs(cmd.InOrStdin())
			defer cleanup()
			if err != nil {
				return err
			}
			switch {
			case len(args) > 1:
				return usagef("run takes one QUESTION (quote it), got %d arguments", len(args))
			case len(args) == 1 && f.script != "":
				return usagef("give a QUESTION or --script FILE, not both")
			case len(args) == 1:
				return runQuestion(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args[0])
			case f.script == "":
				return usagef("run needs a QUESTION or --script FILE")
			}
			return runScript(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	f.register(fl)
	fl.StringVar(&f.script, "script", "", "the script `FILE` to run (Go or JavaScript)")
	fl.StringVar(&f.lang, "lang", "", "go or js (default: from the script's extension; go for a QUESTION)")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fl.BoolVar(&f.raw, "raw", false, "print the answer (--script: the output and the answer) as it is; by default control\ncharacters in it are escaped, as in everything rlm prints, so a terminal does not act on them")
	f.ask.register(fl)
	return cmd
}

// runScript is `rlm run --script FILE`: the script runs as one cell, recorded as a question run
// is (audit trail, trace, log); its llm_query calls go to the configured model, if any, under
// the run's caps and budgets. Its milestones are quiet unless --verbose.
func runScript(ctx context.Context, out, errw io.Writer, f runFlags) error {
	lang, err := scriptLang(f)
	if err != nil {
		return err
	}
	f.lang = string(lang)
	src, err := readLimited(f.script, limits.SourceBytes)
	if err != nil {
		return usageError{err}
	}
	if err := f.check(errw); err != nil {
		return err
	}
	opts, err := f.runOptions(errw, false)
	if err != nil {
		return err
	}
	opts.Script = rlm.Script{Name: f.script, Source: string(src)}
	res, ctx, err := askWithSignals(ctx, opts)
	if res.TaskID == "" {
		return usageOf(err)
	}
	f.noteWorkspace(errw, res)
	if !f.asJSON && !f.ask.quiet && !f.ask.verbose { // --verbose said it first; --json has task_id
		fmt.Fprintf(errw, "[agent:%s] task %s (rlm trace summary %s)\n", f.ask.name, res.TaskID, res.TaskID)
	}
	return reportScript(ctx, out, f, res, err)
}

// reportScript prints a script run's outcome and returns the error that decides the exit
// status: its output, then its FINAL value, if it recorded one; --json: one object.
func reportScript(ctx context.Context, out io.Writer, f runFlags, res rlm.Result, err error) error {
	final := res.Status == rlm.Answered || res.Answer != ""
	if f.asJSON {
		if perr := printJSON(out, jsonResult(res, true)); perr != nil {
			return perr
		}
		return exitFor(exitErr(ctx, err, res.TaskID))
	}
	w := answerWriter(out, f.raw)
	fmt.Fprint(w, res.Output)
	if final {
		fmt.Fprintln(w, res.Answer)
	}
	return exitErr(ctx, err, res.TaskID)
}

func scriptLang(f runFlags) (source.Lang, error) {
	if f.lang != "" {
		l, err := source.ParseLang(f.lang)
		if err != nil {
			return "", usageError{err}
		}
		return l, nil
	}
	l, ok := source.LangOf(f.script)
	if !ok {
		return "", usagef("%s: cannot tell the language from the extension; use --lang go or --lang js", f.script)
	}
	return l, nil
}

// existingFiles resolves the --ctx files, refusing a missing file, a directory and a binary file
// that no converter of conf ([convert]; nil: none) takes.
func existingFiles(paths []string, conf *config.Config) ([]string, error) {
	var converted func(string) bool
	if conf != nil {
		converted = convert.Takes(conf.Convert)
	}
	abs, err := files.Inputs(paths, "--ctx", converted)
	if err != nil {
		return nil, usageError{err}
	}
	return abs, nil
}

// check refuses bad session flags before anything starts, and loads the configuration (its
// errors name the file, variable or flag, the key and the range; stderr gets the files read).
func (f *sessionFlags) check(stderr io.Writer) error {
	conf, err := loadConfiguration(stderr, f.cf.given())
	if err != nil {
		return err
	}
	f.conf = conf
	if f.out != "" {
		if _, err := files.Dir(f.out, rlmHome(), "--out"); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// exitFor keeps the exit status of an error whose message was already printed as JSON.
func exitFor(err error) error {
	if err == nil {
		return nil
	}
	return silent{exitCode(err)}
}

// filesHelp describes the file tools' roots, for the help of every command that opens a session.
const filesHelp = `File tools (read_file, list_dir, file_info, grep, write_file) work inside the allowed roots:
the directories of the --ctx files and every --root DIR are readable; the workspace is readable
and writable, the only place write_file writes, and where relative paths resolve. The workspace
is --out DIR (an existing directory outside $RLM_HOME), or by default a new directory under
$RLM_HOME/work (RLM_HOME defaults to ~/.rlm). write_file refuses rlm.toml and names beginning
with a dot, which rlm and other tools read. The worker gets each root as an open descriptor and
runs as an unprivileged uid (65534 when rlm runs as root), so a root must let that uid in: rlm
hands the default workspace to it, but never changes a directory you name; a --root or --out
the worker cannot use stops the run with the reason, and the directory of a --ctx file that
it cannot read is left out (--ctx takes files only; pass a directory with --root). A root is reached by the path you named it by (through a symbolic link) as well as
its real path. RLM_HOME is never reachable, whatever the roots (the default workspace inside
it aside).`

// resolveWorkspace checks the --out directory, or creates the default: a new directory under
// $RLM_HOME/work, 0700, handed to the worker's uid.
func resolveWorkspace(out string) (files.Workspace, error) {
	if out != "" {
		dir, err := files.Dir(out, rlmHome(), "--out")
		if err != nil {
			return files.Workspace{}, usageError{err}
		}
		return files.Workspace{Dir: dir}, nil
	}
	return files.NewWorkspace(rlmHome())
}
