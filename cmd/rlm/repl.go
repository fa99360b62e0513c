package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/termsafe"
)

type replFlags struct {
	sessionFlags
	lang string
}

func newReplCmd() *cobra.Command {
	var f replFlags
	cmd := &cobra.Command{
		Use:   "repl [--lang go|js] [--ctx FILE]... [--root DIR]... [--out DIR]",
		Short: "Explore files interactively in a sandboxed session",
		Example: `  rlm repl --lang js --ctx examples/demo/app.log     # then :help lists the meta-commands
  rlm repl --ctx notes.txt --root ~/src --out ~/out   # Go; the file tools read ~/src, write_file writes to ~/out
  # Cells from a pipe, one per complete block; the output of each on stdout
  printf 'print(length(context))\n' | rlm repl --lang js --ctx examples/demo/app.log`,
		Long: `Repl runs cells of Go or JavaScript in a confined worker; state persists across cells.

A cell is sent when the language's lexer says it is complete (brackets closed, no open string,
template or comment), so a block can span lines. Lines starting with ':' are meta-commands;
:help lists them. Ctrl-C cancels the running cell, not the session; Ctrl-D (end of input) exits.
On a terminal the line is edited with readline: Enter inside an open block adds a line, and
history is kept in $RLM_HOME/history (RLM_HOME defaults to ~/.rlm); Ctrl-C while editing drops
the line. Input from a pipe is read line by line, so agents and tests can feed cells in: each
cell's output, FINAL value and error go to stdout in order, and rlm exits 1 when a cell failed.
A line that ends with an operator (x := 1 +) goes on on the next line.

A binary --ctx file (a PDF, or a NUL byte in its first 8 KiB) is refused unless a converter of
rlm.toml's [convert] takes its extension: as in rlm run, its text is then the context, from
$RLM_HOME/index when the file has not changed, and stderr says which program made it (the
original's directory is then no root: --root DIR for the files beside it).

` + filesHelp + `
The workspace stays the same across :reset and :lang; :limits shows it.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runREPL(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	f.register(cmd.Flags(), "cell-timeout")
	// The REPL reads its cells from stdin, so a context cannot come from there.
	cmd.Flags().Lookup("ctx").Usage = "a context `FILE` (repeatable; not -: the cells come from stdin); its directory is readable by the file tools"
	cmd.Flags().StringVar(&f.lang, "lang", "go", "go or js")
	return cmd
}

// shell is one interactive session: the library's Session (rlm.OpenSession, as every other
// front door opens one), the language, and the cell being cancelled.
type shell struct {
	f        replFlags
	out, err io.Writer
	s        *rlm.Session
	lang     source.Lang
	tools    []rlm.Tool // the session's own tools ([tools.NAME]), for :help

	cells, failed int    // cells run, and how many failed (piped input exits 1 if any did)
	firstFailed   string // "cell 3, code"
	finalSeen     bool   // FINAL's note was printed

	mu          sync.Mutex
	cancel      context.CancelFunc
	interactive bool // the line editor owns the terminal: SIGINT with no cell running is ignored
	styled      bool // rlm's own lines are styled: stdin and stdout are a terminal, NO_COLOR unset
}

func runREPL(in io.Reader, out, errw io.Writer, f replFlags) error {
	if err := f.check(errw); err != nil {
		return err
	}
	if slices.Contains(f.ctxFiles, "-") {
		return usagef("--ctx - reads the context from stdin, but rlm repl reads its cells from there: save the input to a file and pass --ctx FILE")
	}
	cleanup, err := f.saveInputs(nil) // --ctx <(cmd), a named pipe, a file of /proc
	defer cleanup()
	if err != nil {
		return err
	}
	f.warnDegraded(errw)
	sh := &shell{f: f, out: out, err: errw}
	if err := sh.open(f.lang); err != nil {
		sh.f.ws.Finish() // a default workspace nothing was written to goes again
		return err
	}
	defer func() {
		sh.s.Close()
		if dir := sh.f.ws.Finish(); dir != "" {
			fmt.Fprintf(errw, "rlm: files written in this session are in %s\n", dir)
		}
	}()
	tty := isTerminal(in)
	if tty && in == os.Stdin {
		sh.interactive = true
		sh.styled = isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == ""
		stop := sh.interrupts()
		defer stop()
		return sh.runTTY()
	}
	stop := sh.interrupts()
	defer stop()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var cell strings.Builder
	for sh.prompt(tty, cell.Len() > 0); sc.Scan(); sh.prompt(tty, cell.Len() > 0) {
		line := sc.Text()
		if cell.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			if quit := sh.meta(strings.TrimSpace(line)); quit {
				return sh.outcome()
			}
			continue
		}
		cell.WriteString(line + "\n")
		if strings.TrimSpace(cell.String()) == "" || source.Incomplete(sh.lang, []byte(cell.String())) {
			continue
		}
		sh.exec(cell.String())
		cell.Reset()
	}
	if strings.TrimSpace(cell.String()) != "" {
		sh.exec(cell.String()) // an unfinished block at the end of input still runs, to report its error
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return sh.outcome()
}

// outcome is the error of a piped session in which cells failed, so that the script feeding it
// sees the failure in the exit status (1), as with a shell script run with set -e.
func (sh *shell) outcome() error {
	if sh.failed == 0 {
		return nil
	}
	return fault.New(fault.Code, "%d of %d cells failed (the first: %s)", sh.failed, sh.cells, sh.firstFailed)
}

func (sh *shell) open(lang string) error {
	l, err := source.ParseLang(lang)
	if err != nil {
		return usageError{err}
	}
	opts, err := sh.f.options(l)
	if err != nil {
		return err
	}
	s, err := rlm.OpenSession(context.Background(), opts)
	if err != nil {
		return err
	}
	sh.tools = opts.Tools
	if sh.s != nil {
		sh.s.Close()
	} else { // the first open says how inputs became text; :reset and :lang open the same again
		for _, c := range s.Conversions() {
			fmt.Fprintf(sh.err, "rlm: %s\n", c)
		}
	}
	sh.s, sh.lang = s, l
	return nil
}

func (sh *shell) prompt(tty, more bool) {
	if !tty {
		return
	}
	if more {
		fmt.Fprint(sh.out, "... ")
		return
	}
	fmt.Fprintf(sh.out, "%s> ", sh.lang)
}

// exec runs one cell and prints its output, its answer and what went wrong.
func (sh *shell) exec(code string) { sh.execFile("", code) }

// execFile runs a cell read from the file name (its errors name the file), or typed in ("").
func (sh *shell) execFile(name, code string) {
	ctx, cancel := context.WithCancel(context.Background())
	sh.mu.Lock()
	sh.cancel = cancel
	sh.mu.Unlock()
	var r rlm.ExecResult
	if name != "" {
		r = sh.s.ExecFile(ctx, name, code)
	} else {
		r = sh.s.Exec(ctx, code)
	}
	sh.mu.Lock()
	sh.cancel = nil
	sh.mu.Unlock()
	cancel()
	sh.report(r)
}

// report prints a cell's result: its output, its answer, its error with the kind, and what a
// worker's death cost the session.
func (sh *shell) report(r rlm.ExecResult) {
	fmt.Fprint(sh.out, r.Output) // escaped by the termsafe.Writer under sh.out
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		// rlm's own lines start at column 0 (and the line editor redraws from there)
		fmt.Fprintln(sh.out)
	}
	sh.cells++
	if r.Final != nil {
		sh.say(sh.out, styleFinal, "FINAL: %s", *r.Final)
		if !sh.finalSeen {
			sh.finalSeen = true
			sh.say(sh.out, styleNote, "(in rlm run, the run ends after this cell with that answer; the REPL goes on: :quit to leave)")
		}
	}
	// On stdout with the output, so that piped output can be matched to its cell.
	if r.Error != nil {
		sh.failed++
		if sh.failed == 1 {
			sh.firstFailed = fmt.Sprintf("cell %d, %s", sh.cells, r.Error.Kind)
		}
		sh.say(sh.out, styleError, "error (%s): %s", r.Error.Kind, r.Error.Message)
	}
	switch {
	case r.Lost != nil:
		sh.say(sh.out, styleNote, "the worker was restarted; state was partly lost: %s", r.Lost.Message)
	case r.Rebuilt:
		sh.say(sh.out, styleNote, "the worker was restarted and earlier cells were replayed; state is rebuilt")
	}
	if r.Unreplayable {
		sh.say(sh.out, styleNote, "note: this cell left work running in the background; a restart will not rebuild it")
	}
}

// Styles of rlm's own REPL lines on a terminal (SGR parameters).
const (
	styleFinal = "1;32" // bold green
	styleError = "1;31" // bold red
	styleNote  = "33"   // yellow
)

// say writes one of rlm's own lines: termsafe.Mark first, then the text with everything from a
// cell or a model in it escaped, its lines after the first indented, and on a terminal in a
// style of its own. A cell's output is escaped too, so it can hold neither the mark, nor a
// look-alike at the start of a line, nor a style: it cannot pass for such a line.
func (sh *shell) say(w io.Writer, style, format string, args ...any) {
	text := termsafe.Message(fmt.Sprintf(format, args...))
	if sh.styled {
		fmt.Fprintf(termsafe.Raw(w), "\x1b[%sm%c %s\x1b[0m\n", style, termsafe.Mark, text)
		return
	}
	fmt.Fprintf(termsafe.Raw(w), "%c %s\n", termsafe.Mark, text)
}

// interrupts makes SIGINT cancel the running cell; with no cell running it exits with 130.
func (sh *shell) interrupts() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				sh.mu.Lock()
				cancel := sh.cancel
				sh.mu.Unlock()
				if cancel == nil && sh.interactive {
					continue // between cells; readline reads Ctrl-C as a key while editing
				}
				if cancel == nil {
					sh.s.Close()
					os.Exit(130)
				}
				sh.say(sh.err, styleNote, "^C: cancelling the cell")
				cancel()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}
