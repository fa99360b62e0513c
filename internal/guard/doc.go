// Package guard holds the checks a run passes before it starts, and the ones it repeats while it
// runs (docs/design.md, "CLI contract"):
//
//   - the state directory (RLM_HOME, default ~/.rlm) exists, 0700;
//   - its filesystem has free space for the records (100 MB by default);
//   - no EMERGENCY_STOP file is in it (checked again before every model call: Model);
//   - it has room for a model run: at most limits.MaxRuns processes have one going in it at
//     once (a PID file per run under run/, which says whether the run calls a model; runs of one
//     process count once, sub-runs and runs without a model call not at all, and PID files of
//     dead processes are removed);
//   - the run's agent name is not already in its call chain (direct or indirect recursion), and
//     the tree of runs is not deeper than its cap.
//
// The package reads no environment variable but RLM_HOME (Home); the command line maps SFA_*
// and RLM_MIN_FREE_MB to the arguments.
package guard
