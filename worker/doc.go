// Package worker is rlm's confined process: everything that runs on the far side of the trust
// boundary, and nothing else. The parent (package repl) starts it as cmd/rlm-worker, or as the
// rlm binary itself with the hidden argument __worker, and talks to it over package wire.
//
// Serve does, in order, before any interpreter exists:
//
//  1. confine: apply the layers the parent configured (package sandbox: rlimits, no_new_privs,
//     Landlock, seccomp; the namespaces were set up when the parent started it);
//  2. read Init, refuse a parent of another protocol version, and map the context files and
//     open the file tools from the inherited descriptors (it never opens a host path by name);
//  3. build the engine (engine/golang or engine/js) and answer Ready with its version, build and
//     verdict.
//
// Then, for each exec, it validates the cell (package validator: size and depth pre-checks, the
// AST policy) and runs the very AST it checked, under a soft deadline; it serves the context and
// file tools itself, journals the results a replay cannot recompute, and sends every other host
// call (llm_query) to the parent. A validate request runs the validator alone.
//
// The worker's entry point links only what runs confined: cmd/rlm-worker's test holds that it
// depends on no model client, database, MCP SDK, NATS, CLI or terminal package.
package worker
