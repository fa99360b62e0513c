// Package wire is the protocol between rlm's two processes: the trusted parent (package repl,
// the Session) and the confined worker (package worker, which runs model code). It is phase
// data: the messages, their bounds and the line codec, and it imports no engine, so each side
// links only its own half of the system.
//
// One JSON object per line in each direction. The parent starts the worker and sends Init; the
// worker confines itself, builds its engine and answers Ready with its protocol Version, its
// BuildID and the confinement it applied. The parent checks them before it sends any code: a
// worker that speaks another version, or (for the rlm-worker binary found beside rlm) comes
// from another build, is never used. Then the parent sends exec (a cell) or validate; the
// worker answers result, and in between sends call for the host calls it cannot serve itself
// (llm_query), which the parent answers with reply.
//
// The parent trusts nothing the worker sends: every line is at most MaxLine bytes, the tool
// log at most MaxLoggedCalls calls of LoggedChars characters, and the parent cuts them again.
package wire
