// Package controller is the Recursive Language Model loop: it drives a root model through a
// sandboxed REPL session until the model's code records an answer with FINAL or FINAL_VAR.
//
// One run, in order:
//
//  1. Decide the mode. Inputs under DirectThreshold characters go to the model in one call,
//     with the context in the prompt, unless the caller forces the loop (Config.Mode).
//  2. Open a repl.Session over the context files, with this package's Host serving llm_query
//     and llm_query_batched (sub-calls), under their caps.
//  3. Send the system prompt (generated from engine.API, the registry the engines enforce, and
//     from the run's limits) and a first message with the context's metadata: files, sizes in
//     characters, and a short head and tail preview. The context itself is never sent.
//  4. Each iteration: call the root model, extract the code blocks (```repl fences and the
//     session language's own fences, in order), run them, and answer with each cell's output
//     (head plus tail, with its true length), its error, and the session's variables with
//     their types and lengths ("lines []string(48213), counts Map(17)"). An answer
//     exists only when code called FINAL or FINAL_VAR: "FINAL(" in the model's prose never counts.
//  5. After MaxIterations, one forced final-answer iteration; then the run fails.
//
// RunScript is the --script mode: one cell from a file, with the same sub-call host, caps and
// Observer events, and no root model.
//
// The root history is compacted when its estimated size passes 85% of the model's window.
// Events (model calls, cells, sub-calls) go to an Observer, which package rlm (rlm.Ask) wires
// to the audit trail and the trace; the controller itself writes nothing to disk.
package controller
