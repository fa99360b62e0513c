package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/sandbox"
)

func newIsolationCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "isolation",
		Annotations: map[string]string{noHome: ""},
		Short:       "Show which confinement layers this machine supports, and the verdict",
		Long: `Isolation probes, without confining itself, which layers a worker would get on this machine:
rlimits, no_new_privs, Landlock, seccomp, and user/net/pid/mount/ipc/uts namespaces.
The verdict is full, degraded(missing layers) or none. Below the minimum (rlimits,
no_new_privs, landlock, seccomp) rlm refuses to run untrusted code unless --allow-degraded;
the last lines say what model code runs in, and what each missing layer would have stopped.
On macOS every layer but rlimits is missing (the verdict is none): see the README's Platforms.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := sandbox.Probe()
			if asJSON {
				return printJSON(cmd.OutOrStdout(), rep)
			}
			iso := repl.IsolationOf(rep)
			for _, l := range iso.Layers {
				fmt.Fprintln(cmd.OutOrStdout(), l)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "verdict: %s\n", iso.Verdict)
			for _, l := range rep.Summary(sandbox.DefaultMinimum) {
				fmt.Fprintln(cmd.OutOrStdout(), l)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
