package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// checkCommands sets the argument checks of cmd and every command below it. A group (a command
// with subcommands) refuses an unknown subcommand as a usage error (exit 2), naming the nearest
// commands or else all of them; one that does nothing itself prints its help when called alone.
// cobra's own help command is added first, so that it is checked too (addCompletion has added
// its completion command).
func checkCommands(cmd *cobra.Command) {
	if !cmd.HasParent() {
		cmd.InitDefaultHelpCmd()
	}
	for _, c := range cmd.Commands() {
		checkCommands(c)
	}
	switch {
	case cmd.Name() == "help" && cmd.HasParent() && !cmd.Parent().HasParent():
		cmd.Args = helpArgs
	case cmd.HasSubCommands():
		if !cmd.Runnable() {
			cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
			cmd.DisableFlagsInUseLine = true // "rlm trace" alone: the help
			if cmd.Annotations == nil {
				cmd.Annotations = map[string]string{}
			}
			cmd.Annotations[noHome] = ""
		}
		cmd.Args = subcommandArgs
	}
}

// subcommandArgs refuses any argument of a group: cobra gives it the words it found no
// subcommand for.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

// helpArgs refuses `rlm help GROUP WORD` when WORD is no command of GROUP.
func helpArgs(cmd *cobra.Command, args []string) error {
	target, rest, err := cmd.Root().Find(args)
	if err == nil && target.HasSubCommands() && len(rest) > 0 {
		return unknownCommand(target, rest[0])
	}
	return nil
}

// unknownCommand is the error of a word that is no subcommand of the group cmd.
func unknownCommand(cmd *cobra.Command, word string) error {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	path := cmd.CommandPath()
	if near := cmd.SuggestionsFor(word); len(near) > 0 {
		return usagef("unknown command %q for %q; did you mean %s? (%s --help lists its commands)", word, path, quoteList(near), path)
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return usagef("unknown command %q for %q; its commands are %s (%s --help says more)", word, path, strings.Join(names, ", "), path)
}

// quoteList is "a", "a" or "b", "a", "b" or "c".
func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// noArgs refuses arguments to a command that takes none, naming the command and its help.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q; see %s --help", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	return nil
}

// exactArgs wants n arguments, described by what ("FILE|TASK_ID").
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (%s), got %d; see %s --help", cmd.CommandPath(), arguments(n), what, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// maxArgs wants at most n arguments, described by what.
func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("%s takes at most %s (%s), got %d; see %s --help", cmd.CommandPath(), arguments(n), what, len(args), cmd.CommandPath())
		}
		return nil
	}
}

func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}

// rootRun is what rlm does without a command: --version prints the version, else the help.
func rootRun(cmd *cobra.Command, _ []string) error {
	if v, _ := cmd.Flags().GetBool("version"); v {
		return printVersion(cmd.Context(), cmd.OutOrStdout(), false)
	}
	return cmd.Help()
}
