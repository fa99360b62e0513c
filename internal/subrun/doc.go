// Package subrun runs recursive sub-runs: for a run whose depth is below its maximum, llm_query
// starts a child run one level deeper, whose context is the prompt, with this agent appended to
// the call chain, inside this run's budgets.
//
// The child is this executable again, started with the hidden argument Arg ("__subrun"), which
// rlm.MaybeServeWorker serves: the parent writes a Spec (everything the child needs, resolved:
// the model configuration, keys included, goes through the pipe, never the command line) as
// JSON on the child's stdin, and reads a Reply as JSON from its stdout. The child dies with its
// parent (Pdeathsig), gets SIGTERM when the sub-call's context ends, and is killed 5 s later.
//
// Each child gets half of what is left of the budgets (calls, tokens and, under a dollar
// budget, dollars), after the shares of the children still running; what it spent is charged
// to the parent when it ends.
package subrun
