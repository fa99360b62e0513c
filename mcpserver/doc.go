// Package mcpserver serves rlm to agents over the Model Context Protocol: `rlm mcp`.
//
// The server is a client of package rlm (the module root) and offers five tools:
//
//   - rlm_ask: one whole Recursive Language Model run over files (rlm.Ask): the answer, the
//     usage, the task id and the trace's path. Its steps go out as MCP progress notifications
//     when the request carries a progress token, and a client's cancellation stops the run as
//     SIGINT stops `rlm run` (the task is recorded as failed, the worker and sub-runs stop).
//   - sandbox_open, sandbox_exec, sandbox_close: a persistent confined session (rlm.OpenSession)
//     for the agent's own Go or JavaScript, with the validator, caps, per-cell timeout and
//     output cap of `rlm repl`; results carry output, FINAL, error kind and position, and the
//     session's variables, as the REPL's do.
//   - validate: the validator alone, on code the agent has not run yet. The code is parsed in a
//     confined worker of its own (repl.Validate), as a cell is, never in the server: under the
//     worker's memory cap and a 10 s deadline, at most two at once.
//
// Every tool has a JSON schema for its input and its output. Failures are tool results with
// isError set and a message that says what to do next, so that the model calling the tool can
// fix its call in one turn; protocol errors are kept for malformed requests.
//
// # Limits
//
// At most Options.MaxSessions sessions and runs hold a worker at once (4); a session idle for
// Options.IdleTimeout (10 min) is closed, and so is every session of a client connection that
// ends (over HTTP: one that had an event stream and has had no request open for 5 s, whose calls
// in flight are stopped too); a session answers only the connection that opened it. A slot is
// given back on every way out of a call, within 2 s of a cancellation even when the call is
// blocked opening a file. Every number a client sends is range-checked before it is converted. A client names files and
// directories only inside Options.Roots and outside RLM_HOME, resolved as the sessions' file
// tools resolve paths (symlinks followed inside the roots only, nothing outside them looked at,
// one answer for every path outside); a
// run's budgets come from Options.Model, and a client may lower a run's limits but never raise
// them above the server's.
//
// # Records
//
// The server is a task in the audit trail of Options.Home: each tool call is one of its
// tool-call rows (name, arguments in short, result, error, duration). Each sandbox session is a
// task of its own whose steps are its cells; each rlm_ask run is recorded by rlm.Ask as `rlm
// run` records it. The traces of this server's runs are its resources (rlm://trace/TASK_ID), each
// listed and served to the client connection that ran it only.
//
// # Transports
//
// Run serves one client over a transport (stdio: mcp.StdioTransport). ServeHTTP serves the
// streamable HTTP transport on loopback only, unless HTTPOptions.AllowRemote is set together
// with a bearer token, which every request must then carry. Every read from an HTTP client has
// a deadline and a size cap, the token is checked before the body is read, and the client
// connections open at once are bounded (HTTPOptions.MaxConns), in a way that connections which
// never send a whole request cannot keep a client that does out (pool, in conns.go).
package mcpserver
