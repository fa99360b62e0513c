package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// noArgs refuses arguments to a command that takes none, naming the command and its help.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q; see %s --help", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	return nil
}

// rootRun is what rlm does without a command: --version prints the version, else the help.
func rootRun(cmd *cobra.Command, _ []string) error {
	if v, _ := cmd.Flags().GetBool("version"); v {
		return printVersion(cmd.Context(), cmd.OutOrStdout(), false)
	}
	return cmd.Help()
}

// unusedFmt keeps fmt imported until the group checks use it.
var _ = fmt.Sprint
