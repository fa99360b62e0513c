// Package repl is the sandboxed REPL: a Session runs cells of model-written Go or JavaScript in a
// confined worker process and keeps their state across cells.
//
// The pipeline of one cell (docs/design.md):
//
//  1. the parent sends the source to the worker over a JSON-lines protocol (package wire);
//  2. the worker (package worker) validates it (validator: size and depth pre-checks, then the
//     AST policy) and compiles the very AST it checked, so the parser itself only ever sees
//     hostile input inside the confined process;
//  3. the worker runs it under a soft deadline (the engine's interrupt); the parent enforces a
//     hard one by killing the worker's process group;
//  4. host calls the worker cannot serve itself (llm_query) come back to the parent;
//  5. output is capped with a marker that states the true length.
//
// This package is the parent's side only: the worker's lifecycle, the hard deadline, the
// journal and the replay. It links no engine (TestImportsNoEngine): model code runs in the
// worker, which is rlm-worker from beside this executable when that is there, trustworthy and
// of this very build, and this executable started with the hidden argument __worker otherwise
// (find.go, DefaultWorker).
//
// Every cell that ran is journaled (journal.go), a failed one too (a cell stopped by a deadline
// or a death aside), with the host results a replay cannot recompute: file tools and sub-calls,
// bounded per cell and per session. Context tools are not kept; a replay recomputes them from
// the same context files, once it has checked that they did not change. When the worker dies
// (hard deadline, out of memory, stack overflow, a fatal runtime error, kill -9), the Session
// starts a new worker and replays the journal under the
// caller's context, serving the recorded results, so the rebuilt state is the same and costs no
// model calls. A cancel stops the replay, and a cell that cannot be replayed before the deadline
// is dropped, with the variables it held named. A worker that dies more than MaxRestarts times
// within RestartWindow marks the session degraded, and restarts back off as min(2^n s, 300 s).
//
// Validate runs the validator alone in a worker of its own (no files, no engine), for a caller
// that checks code it will not run yet, so that the parser never sees hostile input in the
// caller's process either.
//
// The model-facing caps are Options.Limits (engine.Limits): the worker gets them at init and
// applies them to the context and file tools, the output and the answer (FINAL and FINAL_VAR,
// one check for both languages in the worker's runner). Context operations are not counted;
// the file tools (read_file, list_dir, file_info, grep) share Limits.FileCalls per session.
//
// After each cell the worker reports the session's variables (Result.Vars) and describes the
// first engine.MaxLocals of them (Result.Locals: type, a short rendering, length), which each
// engine computes without running model code and in time bounded by the output, whatever the
// values hold (a 30 MB string, an array of a million elements).
//
// The parent trusts nothing the worker sends. It bounds every answer, and it serves host calls
// concurrently, so that the hard deadline holds while a sub-call runs (SECURITY.md, "The
// parent's resource bounds").
package repl
