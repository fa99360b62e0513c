package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/llm"
)

// The runs rlm runs lists by default, and the characters of a question it shows.
const (
	runsShown     = 20
	questionShown = 60
	lastTask      = "last" // names the newest task wherever a task id is taken
)

func newRunsCmd() *cobra.Command {
	var n int
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "runs [-n N] [--json]",
		Aliases: []string{"ls"},
		Short:   "List the recent runs recorded under RLM_HOME, newest first",
		Example: `  rlm runs                        # the last 20: id, status, cost, started, duration, question
  rlm runs -n 5 --json`,
		Long: `Runs lists the runs recorded in RLM_HOME/audit.db, newest first: the task id, its status
(RUNNING, ANSWERED, FAILED, ABORTED; UNFINISHED for a run recorded as running whose process is
gone, killed before it could record its end), its cost (unknown when a call's price is unknown, never
$0), when it started, how long it took, and its question (clipped; a script run's is its file).
--json prints an array of objects with every field, the error's kind and message too.

Wherever a command takes a task id (rlm trace summary, rlm trace view, rlm abort), "last" names
the newest run, and a unique prefix of an id names that run; an ambiguous prefix lists the runs
it could be.

Exit status: 0 · 2 usage or unreadable records.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if n < 1 {
				return usagef("-n %d: want at least 1", n)
			}
			tasks, err := recentTasks(cmd.Context(), n)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), runsJSON(tasks))
			}
			return printRuns(cmd.OutOrStdout(), tasks, time.Now())
		},
	}
	cmd.Flags().IntVarP(&n, "limit", "n", runsShown, "how many runs to list")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// openAudit opens RLM_HOME's audit trail for reading; nil when nothing was recorded yet.
func openAudit() (*audit.DB, error) {
	p := home.Audit(rlmHome())
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	db, err := audit.Open(p, audit.Options{})
	if err != nil {
		return nil, usageError{err}
	}
	return db, nil
}

// recentTasks are the n newest tasks; none when nothing was recorded.
func recentTasks(ctx context.Context, n int) ([]audit.Task, error) {
	db, err := openAudit()
	if db == nil {
		return nil, err
	}
	defer db.Close()
	ts, err := db.Tasks(ctx, n)
	if err != nil {
		return nil, usageError{err}
	}
	return ts, nil
}

// printRuns writes the table of rlm runs.
func printRuns(w io.Writer, tasks []audit.Task, now time.Time) error {
	if len(tasks) == 0 {
		_, err := fmt.Fprintf(w, "no runs recorded in %s yet\n", rlmHome())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATUS\tCOST\tSTARTED\tDURATION\tQUESTION")
	for _, t := range tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, taskStatus(t, rlmHome()), taskCost(t), t.StartedAt.Local().Format("2006-01-02 15:04:05"),
			taskDuration(t, now), clipLine(t.Question, questionShown))
	}
	return tw.Flush()
}

// taskCost is a task's cost as rlm prints costs: unknown, never $0, when a call's is unknown.
func taskCost(t audit.Task) string {
	return llm.Cost{USD: t.CostUSD, Unknown: t.CostUnknown}.String()
}

// unfinished is the status rlm runs shows for a task recorded as running whose process is gone.
const unfinished = "UNFINISHED"

// taskStatus is a task's status, UNFINISHED for one recorded as running without a live PID file
// in the home h (its process was killed before it could record the end).
func taskStatus(t audit.Task, h string) string {
	if t.Status != audit.Running {
		return string(t.Status)
	}
	if pid, err := guard.ReadPID(home.PIDFile(h, t.ID)); err != nil || !guard.Alive(pid) {
		return unfinished
	}
	return string(t.Status)
}

// taskDuration is how long a task ran, or has been running.
func taskDuration(t audit.Task, now time.Time) string {
	if t.EndedAt.IsZero() && taskStatus(t, rlmHome()) == unfinished {
		return "unknown"
	}
	if t.EndedAt.IsZero() {
		return now.Sub(t.StartedAt).Round(time.Second).String() + " so far"
	}
	return t.EndedAt.Sub(t.StartedAt).Round(time.Millisecond).String()
}

// clipLine is s on one line, cut to n characters with an ellipsis.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// runJSON is one run in rlm runs --json.
type runJSON struct {
	TaskID           string     `json:"task_id"`
	Status           string     `json:"status"`
	Question         string     `json:"question"`
	Started          time.Time  `json:"started"`
	Ended            *time.Time `json:"ended"`
	DurationNS       *int64     `json:"duration_ns"`
	APICalls         int        `json:"api_calls"`
	Tokens           int        `json:"tokens"`
	CostUSD          *float64   `json:"cost_usd"`
	CostUnknownCalls int        `json:"cost_unknown_calls"`
	CostUSDKnown     float64    `json:"cost_usd_known"`
	Cost             string     `json:"cost"`
	Error            *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// runsJSON is rlm runs --json's array: the cost fields as in the usage object (cost_usd null,
// never 0, when a call's cost is unknown).
func runsJSON(tasks []audit.Task) []runJSON {
	out := make([]runJSON, 0, len(tasks))
	for _, t := range tasks {
		r := runJSON{TaskID: t.ID, Status: taskStatus(t, rlmHome()), Question: t.Question, Started: t.StartedAt, APICalls: t.Calls,
			Tokens: t.Tokens, CostUnknownCalls: t.CostUnknown, CostUSDKnown: t.CostUSD, Cost: taskCost(t)}
		if t.CostUnknown == 0 {
			r.CostUSD = &t.CostUSD
		}
		if !t.EndedAt.IsZero() {
			d := int64(t.EndedAt.Sub(t.StartedAt))
			r.Ended, r.DurationNS = &t.EndedAt, &d
		}
		if t.ErrorKind != "" || t.ErrorMessage != "" {
			r.Error = &struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			}{string(t.ErrorKind), t.ErrorMessage}
		}
		out = append(out, r)
	}
	return out
}

// resolveTask is the task a task-id argument names: "last" is the newest run, and a unique
// prefix of a recorded id is that id. An ambiguous prefix is a usage error that lists the
// runs it could be; an id nothing matches is returned as given, for the caller to refuse.
func resolveTask(ctx context.Context, arg string) (string, error) {
	db, err := openAudit()
	if err != nil {
		return "", err
	}
	if db == nil {
		if arg == lastTask {
			return "", usagef("%s: no runs recorded in %s yet", lastTask, rlmHome())
		}
		return arg, nil
	}
	defer db.Close()
	var ts []audit.Task
	if arg == lastTask {
		ts, err = db.Tasks(ctx, 1)
	} else {
		ts, err = db.TasksWithPrefix(ctx, arg, 6)
	}
	switch {
	case err != nil:
		return "", usageError{err}
	case len(ts) == 0 && arg == lastTask:
		return "", usagef("%s: no runs recorded in %s yet", lastTask, rlmHome())
	case len(ts) == 0:
		return arg, nil
	case len(ts) == 1 || arg == lastTask:
		return ts[0].ID, nil
	}
	for _, t := range ts {
		if t.ID == arg { // a whole id that is also the start of another's
			return arg, nil
		}
	}
	return "", ambiguous(arg, ts)
}

// resolveRunning is resolveTask among the runs that are going (rlm abort): "last" is the newest
// of them, and a prefix need only be unique among them. An id that names no run going is
// returned as given, for abort to say so.
func resolveRunning(ctx context.Context, arg string) (string, error) {
	db, err := openAudit()
	if db == nil || err != nil {
		return resolveTask(ctx, arg)
	}
	defer db.Close()
	ts, err := db.Tasks(ctx, runningScan)
	if err != nil {
		return "", usageError{err}
	}
	var going []audit.Task
	for _, t := range ts {
		if taskStatus(t, rlmHome()) == string(audit.Running) && (arg == lastTask || strings.HasPrefix(t.ID, arg)) {
			going = append(going, t)
		}
	}
	switch {
	case len(going) == 0 && arg == lastTask:
		return "", usagef("%s: no run is going in %s (rlm runs lists the recent ones)", lastTask, rlmHome())
	case len(going) == 0:
		return resolveTask(ctx, arg)
	case len(going) == 1 || arg == lastTask:
		return going[0].ID, nil
	}
	return "", ambiguous(arg, going)
}

// runningScan is how many of the newest runs resolveRunning looks through for the ones going.
const runningScan = 200

// ambiguous refuses a task-id prefix that names several runs, listing them (at most 5).
func ambiguous(prefix string, ts []audit.Task) error {
	var b strings.Builder
	for i, t := range ts {
		if i == 5 {
			b.WriteString("\n  …")
			break
		}
		fmt.Fprintf(&b, "\n%s  %s  %s", t.ID, t.Status, clipLine(t.Question, questionShown))
	}
	return usagef("task id %q is the start of several runs; give more of it (rlm runs lists them):%s", prefix, b.String())
}
