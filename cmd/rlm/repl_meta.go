package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/limits"
)

// metaHelp is the one place the meta-commands are described.
const metaHelp = `:help              this list
:lang go|js        start a new session in the other language (state is not carried over)
:load FILE         run a file as one cell
:reset             start a new session (all state is dropped)
:vars              the session's variables
:peek OFF LEN      print LEN characters of the context from OFF
:search RE         print the matches of an RE2 regex in the context
:limits            the limits the session enforces
:isolation         the confinement layers of the worker
:quit              leave (so does Ctrl-D)`

// meta runs a meta-command line; it returns true to quit.
func (sh *shell) meta(line string) (quit bool) {
	args, err := shlex.Split(line)
	if err != nil || len(args) == 0 {
		sh.say(sh.err, styleError, "cannot parse %q: %v", line, err)
		return false
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case ":quit", ":q", ":exit":
		return true
	case ":help":
		sh.help()
	case ":lang":
		sh.metaOpen(rest, 1)
	case ":reset":
		sh.metaOpen([]string{string(sh.lang)}, 0)
	case ":load":
		sh.metaLoad(rest)
	case ":vars":
		sh.metaVars()
	case ":peek":
		sh.metaPeek(rest)
	case ":search":
		if len(rest) != 1 {
			sh.say(sh.err, styleError, "usage: :search RE")
			return false
		}
		sh.exec(fmt.Sprintf("print(search(context, %s))", strconv.Quote(rest[0])))
	case ":limits":
		sh.metaLimits()
	case ":isolation":
		iso := sh.s.Isolation()
		fmt.Fprintf(sh.out, "%s\nverdict: %s\n", strings.Join(iso.Layers, "\n"), iso.Verdict)
	default:
		sh.say(sh.err, styleError, "unknown command %s; :help lists them", cmd)
	}
	return false
}

// help lists the meta-commands and the model API of the session's language, from the registry
// the engines are built from (engine.API), with the session's caps.
func (sh *shell) help() {
	fmt.Fprintln(sh.out, metaHelp)
	fmt.Fprintf(sh.out, "\nIn cells (%s), besides the language itself:\n", sh.lang)
	for _, l := range controller.APILines(string(sh.lang), sh.s.Limits()) {
		fmt.Fprintln(sh.out, "  "+l)
	}
	fmt.Fprintf(sh.out, "  (%s need a model: they work in rlm run, not in the REPL)\n", engine.Series(engine.InParent.Names()))
}

func (sh *shell) metaOpen(args []string, want int) {
	if len(args) != 1 || want == 1 && args[0] != "go" && args[0] != "js" {
		sh.say(sh.err, styleError, "usage: :lang go|js")
		return
	}
	if err := sh.open(args[0]); err != nil {
		sh.say(sh.err, styleError, "error: %v", err)
		return
	}
	fmt.Fprintf(sh.out, "new %s session\n", sh.lang)
}

func (sh *shell) metaLoad(args []string) {
	if len(args) != 1 {
		sh.say(sh.err, styleError, "usage: :load FILE")
		return
	}
	src, err := readLimited(args[0], limits.SourceBytes)
	if err != nil {
		sh.say(sh.err, styleError, "error: %v", err)
		return
	}
	sh.execFile(args[0], string(src))
}

// metaPeek builds the cell from validated integers only, so the arguments cannot inject code.
func (sh *shell) metaPeek(args []string) {
	if len(args) != 2 {
		sh.say(sh.err, styleError, "usage: :peek OFF LEN")
		return
	}
	off, err1 := strconv.Atoi(args[0])
	n, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		sh.say(sh.err, styleError, ":peek takes two whole numbers: OFF LEN")
		return
	}
	sh.exec(fmt.Sprintf("print(peek(context, %d, %d))", off, n))
}

// metaVars prints the session's variables on one line.
func (sh *shell) metaVars() {
	var names []string
	for _, v := range sh.s.Vars() {
		names = append(names, v.Name)
	}
	fmt.Fprintln(sh.out, strings.Join(names, " "))
}

func (sh *shell) metaLimits() {
	fmt.Fprint(sh.out, limitsText(sh.s.Limits(), sh.f.conf.Limits.CellTimeout, sh.f.ws.Dir))
}

// limitsText is what :limits prints: the caps a session enforces, lim (its effective limits),
// each API function with them, and the workspace.
func limitsText(lim engine.Limits, cellTimeout time.Duration, workspace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cell timeout %v; output %s characters per cell\n", cellTimeout, engine.Thousands(int64(lim.OutputChars)))
	fmt.Fprintf(&b, "workspace %s (write_file writes here; relative paths resolve here)\n", workspace)
	for _, f := range engine.API {
		fmt.Fprintf(&b, "  %-18s %s\n", f.Name, f.Describe(lim))
	}
	return b.String()
}
