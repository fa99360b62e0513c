package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/termsafe"
)

// Exit codes, from docs/design.md's CLI contract.
const (
	exitOK       = 0
	exitFailed   = 1 // findings, limits, rejected code, crashes, model errors (unavailable too)
	exitUsage    = 2 // bad flags or arguments, unreadable files
	exitTimeout  = 3
	exitCanceled = 130 // stopped by its caller without a signal of this process's own (a signal: 128+signal)
)

// usageError marks errors in how rlm was invoked, including files it cannot read.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error to the process exit code. It is the only place that does.
func exitCode(err error) int {
	var ue usageError
	var oe *rlm.OptionError
	var sig signalled
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &sig):
		return 128 + int(sig.sig) // 130 for SIGINT, 143 for SIGTERM
	case errors.As(err, &ue), errors.As(err, &oe):
		return exitUsage
	}
	switch fault.KindOf(err) {
	case fault.Timeout:
		return exitTimeout
	case fault.Canceled:
		return exitCanceled
	}
	return exitFailed
}

// silent is returned when the command has already printed everything the user needs; only its
// exit code remains.
type silent struct{ code int }

func (s silent) Error() string { return fmt.Sprintf("exit %d", s.code) }

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rlm",
		Short: "Sandboxed REPL engine for LLM-written Go and JavaScript",
		Example: `  # The demo: a scripted model answers a question about a shipped log (no model, no network)
  rlm run --replay examples/demo/model.json --ctx examples/demo/app.log "Which user had the most payment errors, and what went wrong?"
  # Your model (RLM_BASE_URL, RLM_API_KEY, RLM_MODEL) over your files
  rlm run --ctx /var/log/syslog "Which service failed first after the reboot, and why?"
  rlm repl --lang js --ctx examples/demo/app.log
  rlm --version`,
		Long:          "rlm runs model-written Go (yaegi) and JavaScript (goja) through a validator and a confined\nworker, and drives Recursive Language Model runs over inputs of any size.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{noHome: ""}, // the help and the version
		RunE:          rootRun,
	}
	// -V, not -v: rlm run has --verbose, and -v would read as it.
	root.Flags().BoolP("version", "V", false, "print the version, the build and the isolation verdict (as rlm version)")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w; see %s --help", err, c.CommandPath())}
	})
	root.PersistentPreRunE = checkHome
	root.AddCommand(newValidateCmd(), newReplCmd(), newIsolationCmd(), newRunCmd(), newWorkerCmd(),
		newAbortCmd(), newCleanCmd(), newTraceCmd(), newRunsCmd(), newEvalCmd(), newMCPCmd(), newConfigCmd(), newBatchCmd(), newQueueWorkerCmd(), newVersionCmd())
	addCompletion(root)
	checkCommands(root)
	return root
}

// noHome marks a command that keeps no state in RLM_HOME (the worker, validate, isolation):
// it runs without a home directory.
const noHome = "rlm/no-home"

// checkHome warns about variables named like rlm's that it does not read (warnEnvironment);
// then refuses, before a command that keeps state in RLM_HOME runs, an RLM_HOME that home.Dir
// cannot give (relative, or no home directory at all), so that rlmHome never has to, and says
// which directory it chose when the environment named none (HOME unset).
func checkHome(cmd *cobra.Command, _ []string) error {
	warnEnvironment(cmd, cmd.ErrOrStderr(), os.Environ())
	if _, ok := cmd.Annotations[noHome]; ok {
		return nil
	}
	_, note, err := home.Resolve(os.Getenv)
	if err != nil {
		return usageError{err}
	}
	if note != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "rlm: warning: %s\n", note)
	}
	return nil
}

// run is the command line. Everything it writes goes through termsafe, so text from a cell or
// a model (output, answers, error messages that quote them) reaches the terminal inert and
// cannot start a line that reads like rlm's; rlm's own marked lines, JSON and --raw answers go
// through termsafe.Raw. Every line on stderr is one of rlm's messages: the lines a message
// quotes are indented (termsafe.NewMessageWriter).
func run(args []string, stdout, stderr io.Writer) int {
	out, errw := termsafe.NewWriter(stdout), termsafe.NewMessageWriter(stderr)
	defer out.Flush()
	defer errw.Flush()
	return runSafe(args, out, errw)
}

func runSafe(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	var s silent
	if errors.As(err, &s) {
		return s.code
	}
	if err != nil {
		fmt.Fprintf(stderr, "rlm: %v\n", err)
		if isArgsError(err) {
			return exitUsage
		}
	}
	return exitCode(err)
}

func main() {
	rlm.MaybeServeWorker() // a session's worker, or a sub-run: served, then exit
	// A reader that goes away (rlm run … 2>&1 | head) must not kill the run mid-way: with SIGPIPE
	// notified, a write to a closed stdout or stderr fails with EPIPE and the run goes on to its
	// end and its records. (Notify, not Ignore: an ignored signal stays ignored in the commands
	// rlm starts.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
