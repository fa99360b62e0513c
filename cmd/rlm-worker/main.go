// Command rlm-worker is rlm's confined worker process, and nothing else: rlm starts it for each
// session when it finds it beside its own executable (go build -o DIR/ ./cmd/... or go install
// ./cmd/... put it there), and runs itself as "rlm __worker" otherwise. It confines itself,
// then serves the protocol (package wire) on stdin and stdout; see package worker.
//
// It links only what runs confined: the validator, the engines, the tools, the sandbox. main_test.go
// holds that it depends on no model client, database, MCP SDK, NATS, CLI or terminal package,
// which the rlm binary holds and each of whose init code would otherwise run in every worker.
package main

import (
	"fmt"
	"os"

	"github.com/rlm-sandbox/rlm/worker"
)

func main() {
	// rlm passes no argument; "__worker" is what a WorkerCommand naming this binary gets by default.
	if len(os.Args) > 2 || (len(os.Args) == 2 && os.Args[1] != "__worker") {
		fmt.Fprintln(os.Stderr, "usage: rlm-worker (started by rlm, which speaks to it on stdin and stdout)")
		os.Exit(2)
	}
	if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "rlm-worker: %v\n", err)
		os.Exit(1)
	}
}
