// Package rlm runs Recursive Language Model tasks and confined REPL sessions from Go: what the
// rlm command does, as a library.
//
// Ask is one whole run: a root model (Options.Question) or a saved script (Options.Script)
// over context files, with the guards, budgets and records of `rlm run`. OpenSession is a
// confined session for code of one's own (an agent's), cell by cell, with the validator, caps,
// timeouts and output cap of `rlm repl`.
//
//	func main() {
//		rlm.MaybeServeWorker() // first: this executable is also the sandbox's worker
//		res, err := rlm.Ask(ctx, rlm.Options{
//			Question: "Which user had the most payment errors?",
//			Files:    []string{"app.log"},
//			Lang:     "js",
//			Model:    llm.Config{BaseURL: url, APIKey: key, Models: []string{"gpt-4.1-mini"}},
//		})
//		fmt.Println(res.Answer, res.Usage.Cost)
//	}
//
// # Processes
//
// Model code never runs in the caller's process. A session's worker is the caller's own
// executable started again with a hidden argument (or rlm's small worker binary, rlm-worker,
// when it lies beside the executable and comes from the same build: repl.DefaultWorker); it
// confines itself (rlimits, Landlock, seccomp, namespaces) before any interpreter exists.
// MaybeServeWorker, called first thing in main, serves that argument (and the one of sub-runs)
// and exits; in any other process it returns at once. Tests of a package that uses rlm call it
// from TestMain.
//
// # Your own tools
//
// Options.Tools and SessionOptions.Tools give the code functions of your own (Tool: a name, a
// one-line description, typed parameters and result, and a Go function), called in both
// languages as the API's are: a typed function of the Go prelude, a global in JS, and a line of
// the system prompt, all from one registry of the session (engine.API and its tools), so what
// the model is told is what is served. The parent runs them, never the worker: each call is
// checked against the declaration, its path parameters resolved inside the roots as read_file's
// path is, run under the tool's timeout, its result capped, and counted against the tool's calls
// per run (defaults in package limits: ToolTimeout, ToolOutputChars, ToolCalls). Calls are
// journaled (a replay after a worker's death serves the recorded result) and recorded in the
// audit trail. A name that clashes with the API, a name of either language or another tool is
// refused with an *OptionError.
//
// # Records
//
// Each run is a task in Options.Home (default $RLM_HOME, else ~/.rlm): a row in the audit
// trail (audit.db), a JSONL trace in the reference RLM logger's format with its outcome beside
// it (traces/; `rlm trace view TASK_ID` draws it), the prompts of its sub-calls, and the daily
// log (logs/). Everything written is redacted: the API keys of every configured backend and
// the usual key shapes. A home holds the model runs of one process at a time (Options.MaxRuns
// raises the count): runs of the same process (a batch's tasks, a server's requests) share
// it, and a model run of another process is refused while one is alive; sub-runs and runs
// that make no model call (a script without llm_query) are never refused.
//
// # Budgets and cancellation
//
// Each run has budgets of API calls, tokens and optionally dollars (Options.Model), a wall
// clock (Options.Timeout) and caps on what its code may do (Options.Limits); every one has a
// finite default. A Budget shares calls, tokens and dollars among many runs. Cancelling the
// context stops a run the way SIGINT stops `rlm run`: the task is marked ABORTED at once, the
// worker and any sub-runs are stopped, the records are completed, and the error is the
// cancellation's cause (context.WithCancelCause) when that carries a fault kind, else one of
// kind canceled (timeout when the context's deadline passed).
//
// # Errors
//
// Errors have a kind from package fault (errors.Is(err, fault.Timeout)); Result.Error and
// ExecResult.Error carry the kind and the message as data. An *OptionError (kind schema) names
// the Options field that cannot be used. Only the rlm command maps kinds to exit codes.
//
// # Progress
//
// Options.Progress gets the command's progress lines; Options.OnEvent gets the same steps as
// structured Events (iterations, cells, sub-calls, every API attempt with its tokens and cost),
// each with what the run has spent so far.
package rlm
