package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/config"
)

// warnEnvironment says on stderr, once per command, which variables of environ are named like
// rlm's (RLM_, SFA_) but are not read, each with the variable it probably meant
// (config.UnknownVariables): RLM_TIMEOUT=10m would otherwise be ignored in silence. Shell
// completion, whose stderr nobody reads, is left alone.
func warnEnvironment(cmd *cobra.Command, w io.Writer, environ []string) {
	switch cmd.Name() {
	case cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return
	}
	for _, m := range config.UnknownVariables(environ) {
		fmt.Fprintf(w, "rlm: warning: %s\n", m)
	}
}
