// Command rlmdemo is a program outside the rlm module that embeds it through its public API
// only (package rlm): it answers a question about a file, as `rlm run` does. TestExternalModule
// builds and runs it; by hand, from this directory (-mod=mod fills in go.mod's indirect
// requirements from rlm's; the copied go.sum has their sums):
//
//	cp ../../go.sum . && GOFLAGS=-mod=mod go run . -replay ../../examples/demo/model.json \
//		-ctx ../../examples/demo/app.log "Which user had the most payment errors, and what went wrong?"
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/rlm-sandbox/rlm"
)

func main() {
	rlm.MaybeServeWorker() // first: this program is also the sandbox's worker
	ctxFile := flag.String("ctx", "", "the file to ask about")
	replay := flag.String("replay", "", "a scripted model (rlm's replay format)")
	home := flag.String("home", "", "where the run is recorded (default $RLM_HOME, else ~/.rlm)")
	flag.Parse()
	if flag.NArg() != 1 || *ctxFile == "" {
		fmt.Fprintln(os.Stderr, "usage: rlmdemo -ctx FILE [-replay FILE] [-home DIR] QUESTION")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := rlm.Ask(ctx, rlm.Options{
		Question: flag.Arg(0),
		Files:    []string{*ctxFile},
		Lang:     "js",
		Replay:   *replay,
		Home:     *home,
		Progress: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rlmdemo:", err)
		os.Exit(1)
	}
	fmt.Println(res.Answer)
	fmt.Fprintf(os.Stderr, "task %s: %d API calls, %d tokens, cost %s; trace %s\n", res.TaskID, res.Usage.Calls, res.Usage.Tokens, res.Usage.Cost, res.Trace)
}
