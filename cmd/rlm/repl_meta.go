package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
)

// metaHelp is the one place the meta-commands are described.
const metaHelp = `:help              this list
:lang go|js        start a new session in the other language (state is not carried over)
:load FILE         run a file as one cell
:reset             start a new session (all state is dropped)
:vars              the session's variables
:peek OFF LEN      print LEN characters of the context from OFF
:search RE         the matches of an RE2 regex in the context, one line each: the rest of
                   the line is the regex, as written (spaces and backslashes kept)
:limits            the limits the session enforces
:isolation         the confinement layers of the worker
:quit              leave (so does Ctrl-D)`

// meta runs a meta-command line; it returns true to quit.
func (sh *shell) meta(line string) (quit bool) {
	if re, ok := cutCommand(line, ":search"); ok { // the regex as written: no shell quoting
		sh.metaSearch(re)
		return false
	}
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
	lines, err := rlm.APILines(string(sh.lang), sh.s.Limits(), sh.tools)
	if err != nil { // the tools were checked when the configuration was loaded
		lines = controller.APILines(string(sh.lang), sh.s.Limits())
	}
	for _, l := range lines {
		fmt.Fprintln(sh.out, "  "+l)
	}
	fmt.Fprintf(sh.out, "  (%s need a model: they work in rlm run, not in the REPL)\n", engine.Series(engine.InParent.Names()))
	fmt.Fprintln(sh.out, "  (FINAL and FINAL_VAR print the answer here; the session goes on, where rlm run would end)")
}

// cutCommand splits a meta-command line into its rest when it is the command name.
func cutCommand(line, name string) (rest string, ok bool) {
	rest, ok = strings.CutPrefix(line, name)
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// metaSearch prints the matches of re, one line each ("ctx0[12:19] line 3: the line"), and how
// many there are in all when the page does not hold every one. The regex goes into the cell as
// a string literal of the session's language, so it cannot inject code.
func (sh *shell) metaSearch(re string) {
	if re == "" {
		sh.say(sh.err, styleError, "usage: :search RE (the rest of the line is the regex, such as :search Package: python3)")
		return
	}
	if sh.lang == source.JS {
		lit, _ := json.Marshal(re)
		sh.exec(fmt.Sprintf(`{ const hits = search(context, %s)
for (const h of hits) print(h.ref + " line " + h.line + ": " + h.line_text)
print(hits.length === 0 ? "no match" : hits.length < hits.total ? hits.length + " of " + hits.total + " matches shown" : hits.length === 1 ? "1 match" : hits.length + " matches") }`, lit))
		return
	}
	sh.exec(fmt.Sprintf(`{
	hits := search(context, %s)
	for _, h := range hits {
		print(h.Ref + " line " + fmt.Sprint(h.Line) + ": " + h.LineText)
	}
	switch {
	case len(hits) == 0:
		print("no match")
	case len(hits) < hits[0].Total:
		print(fmt.Sprint(len(hits)) + " of " + fmt.Sprint(hits[0].Total) + " matches shown")
	case len(hits) == 1:
		print("1 match")
	default:
		print(fmt.Sprint(len(hits)) + " matches")
	}
}`, strconv.Quote(re)))
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

// metaVars prints the session's variables, one per line, as the feedback of rlm run names them
// (name, type, length) with a short rendering of the value.
func (sh *shell) metaVars() {
	vars := sh.s.Vars()
	if len(vars) == 0 {
		fmt.Fprintln(sh.out, "no variables yet")
	}
	for _, v := range vars {
		if v.Repr != "" {
			fmt.Fprintf(sh.out, "%s = %s\n", v.Label(), v.Repr)
			continue
		}
		fmt.Fprintln(sh.out, v.Label())
	}
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
