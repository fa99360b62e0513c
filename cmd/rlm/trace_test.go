package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/trace/tracetest"
)

// taskID NAME sets $NAME to the id of the newest task in the audit trail.
func taskID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: taskid NAME (sets NAME to the newest task's id, NAME_PREFIX to all of it but its last character)")
	}
	db, err := audit.Open(filepath.Join(ts.Getenv("RLM_HOME"), "audit.db"), audit.Options{})
	ts.Check(err)
	defer db.Close()
	tasks, err := db.Tasks(context.Background(), 1)
	ts.Check(err)
	if len(tasks) == 0 {
		ts.Fatalf("taskid: no task recorded")
	}
	ts.Setenv(args[0], tasks[0].ID)
	ts.Setenv(args[0]+"_PREFIX", tasks[0].ID[:len(tasks[0].ID)-1]) // a unique prefix, but for a one-in-16-million draw
}

// refParse FILE prints what the reference RLM visualizer shows for a trace (package tracetest,
// a port of its parseLogFile rules): configuration lines, iterations, question, answer, the
// Variables panel of each block, and which iterations are marked as the forced final one.
func refParse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: refparse FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	f, err := tracetest.Parse(string(data))
	if err != nil {
		ts.Fatalf("the reference visualizer would fail on %s: %v", args[0], err)
	}
	w := ts.Stdout()
	final := "none"
	if f.FinalAnswer != nil {
		final = fmt.Sprintf("%q", *f.FinalAnswer)
	}
	fmt.Fprintf(w, "metadata lines: %d\nroot model: %v\niterations: %d\nskipped lines: %d\nsub-calls: %d\nquestion: %q\nfinal answer: %s\n",
		f.MetadataLines, f.Config["root_model"], len(f.Iterations), len(f.Skipped), f.TotalSubLMCalls, f.ContextQuestion, final)
	for i, it := range f.Iterations {
		if it["forced_final"] == true {
			fmt.Fprintf(w, "forced final: iteration %d\n", i+1)
		}
		blocks, _ := it["code_blocks"].([]any)
		for j, b := range blocks {
			res, _ := b.(map[string]any)["result"].(map[string]any)
			locals, _ := res["locals"].(map[string]any)
			var names []string
			for k, v := range locals {
				names = append(names, fmt.Sprintf("%s=%v", k, v))
			}
			sort.Strings(names)
			fmt.Fprintf(w, "variables %d.%d: %s\n", i+1, j+1, strings.Join(names, " "))
		}
	}
}
