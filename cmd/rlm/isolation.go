package main

import (
	"encoding/json"
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
		Short:       "Show which confinement layers this machine supports, the verdict, and the worker binary",
		Example: `  rlm isolation
  rlm isolation --json`,
		Long: `Isolation probes, without confining itself, which layers a worker would get on this machine:
rlimits, no_new_privs, Landlock, seccomp, and user/net/pid/mount/ipc/uts namespaces.
The verdict is full, degraded(missing layers) or none. Below the minimum (rlimits,
no_new_privs, landlock, seccomp) rlm refuses to run untrusted code unless --allow-degraded;
the last lines say what model code runs in, and what each missing layer would have stopped.
On macOS every layer but rlimits is missing (the verdict is none): see the README's Platforms.

The worker line names the program sessions run as their worker: rlm-worker beside this
executable when it is there, trustworthy (a regular file owned by this executable's owner or
root, in a directory nobody else may write) and of this very build (it answers a handshake,
made here, with the same protocol version and build); otherwise this binary, run as
"rlm __worker" ("fallback: this binary"), and why.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, wb := isolationState(cmd.Context())
			if asJSON {
				return printJSON(cmd.OutOrStdout(), isolationJSON{rep, wb})
			}
			out := cmd.OutOrStdout()
			for _, l := range rep.Lines() {
				fmt.Fprintln(out, l)
			}
			fmt.Fprintf(out, "verdict: %s\n", rep.Verdict())
			fmt.Fprintln(out, "worker: "+workerText(wb))
			for _, l := range rep.Summary(sandbox.DefaultMinimum) {
				fmt.Fprintln(out, l)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// workerText is the worker binary as rlm isolation and rlm version print it.
func workerText(wb repl.WorkerBinary) string {
	if !wb.Fallback {
		return wb.Path
	}
	return fmt.Sprintf("%s (fallback: this binary, run as __worker; %s)", wb.Path, wb.Why)
}

// workerJSON is the worker binary in rlm isolation's and rlm version's JSON.
func workerJSON(wb repl.WorkerBinary) map[string]any {
	return map[string]any{"path": wb.Path, "fallback": wb.Fallback, "why": wb.Why}
}

// isolationJSON is the probe's report (sandbox.Report's JSON) with the worker binary added.
type isolationJSON struct {
	report sandbox.Report
	worker repl.WorkerBinary
}

func (j isolationJSON) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(j.report)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["worker"] = workerJSON(j.worker)
	return json.Marshal(m)
}
