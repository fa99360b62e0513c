package main

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
)

// exampleTaskID is the task id the examples use; `example` replaces it by $TASK.
const exampleTaskID = "20261124-101500-3f9a1c"

// TestExamples: every command a user sees has an Examples section in its help, and every
// example that runs rlm names a real command, with flags it has, values they accept and as many
// arguments as it takes. (help_examples.txtar runs the ones that need no model, network or
// terminal, with the example command.)
func TestExamples(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.IsAvailableCommand() && c.HasParent() || c.Name() == "help" || c.HasParent() && c.Parent().Name() == "completion" {
			return // hidden, cobra's help, and cobra's per-shell completion commands (their help says how)
		}
		runs := exampleCommands(c.Example)
		if len(runs) == 0 {
			t.Errorf("%s: no example in its help that runs rlm", c.CommandPath())
		}
		for _, words := range runs {
			if err := checkExample(c.CommandPath(), words); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), strings.Join(words, " "), err)
			}
		}
	}
	walk(newRoot(io.Discard, io.Discard))
}

// checkExample parses an example's words (words[0] is "rlm") as rlm would: the command it names
// must be path or one below it, and take the flags, their values and the arguments.
func checkExample(path string, words []string) error {
	cmd, rest, err := newRoot(io.Discard, io.Discard).Find(words[1:])
	if err != nil {
		return err
	}
	if cmd.CommandPath() != path && !strings.HasPrefix(cmd.CommandPath(), path+" ") {
		return errors.New("it runs " + cmd.CommandPath())
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return nil
}

// exampleCommands returns the words of each example line that runs rlm: the line's comment
// dropped, the part after its last pipe, its leading VAR=value assignments dropped. Lines that
// start with another program are left out.
func exampleCommands(example string) [][]string {
	var out [][]string
	for _, line := range strings.Split(example, "\n") {
		if i := strings.LastIndex(line, " | "); i >= 0 {
			line = line[i+3:]
		}
		words := shellWords(line)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "rlm" {
			out = append(out, words)
		}
	}
	return out
}

// shellWords splits a line as a shell would for the examples' needs: words separated by
// spaces, single and double quotes, and a comment from an unquoted # after a space; it stops at
// a redirection.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	quote, started := byte(0), false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, started = c, true
		case c == ' ' || c == '\t':
			if started {
				words, started = append(words, w.String()), false
				w.Reset()
			}
		case (c == '#' || c == '>' || c == '<') && !started:
			return words
		default:
			w.WriteByte(c)
			started = true
		}
	}
	if started {
		words = append(words, w.String())
	}
	return words
}

// example CMD... N runs the N-th example that runs rlm (counting from 1) in the help of the
// command CMD ("trace summary"; none for rlm itself), as its help prints it, with exampleTaskID
// replaced by $TASK; its stdin is the script's stdin command's, as for exec. With !, it must fail.
func exampleCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: example [CMD...] N")
	}
	n, err := strconv.Atoi(args[len(args)-1])
	ts.Check(err)
	cmd, _, err := newRoot(io.Discard, io.Discard).Find(args[:len(args)-1])
	ts.Check(err)
	runs := exampleCommands(cmd.Example)
	if n < 1 || n > len(runs) {
		ts.Fatalf("%s has %d examples that run rlm, not %d", cmd.CommandPath(), len(runs), n)
	}
	words := append([]string(nil), runs[n-1][1:]...)
	for i, w := range words {
		words[i] = strings.ReplaceAll(w, exampleTaskID, ts.Getenv("TASK"))
	}
	ts.Logf("example: rlm %s", strings.Join(words, " "))
	err = ts.Exec("rlm", words...)
	switch {
	case neg && err == nil:
		ts.Fatalf("example %d of %s succeeded; want a failure", n, cmd.CommandPath())
	case !neg && err != nil:
		ts.Fatalf("example %d of %s: %v", n, cmd.CommandPath(), err)
	}
}
