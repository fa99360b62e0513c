// Package trace writes the JSONL trace of one rlm run, in the record shapes of the reference
// Recursive Language Model implementation (github.com/alexzhang13/rlm), so that its trajectory
// visualizer opens our runs unchanged, and summarizes such a trace for `rlm trace summary`.
//
// # The reference format
//
// The facts below were read from alexzhang13/rlm at commit 72d6940 (June 2026): the writer is
// rlm/logger/rlm_logger.py (class RLMLogger), the record contents come from the to_dict methods
// in rlm/core/types.py, the loop that calls the logger is rlm/core/rlm.py, and the reader is the
// visualizer's visualizer/src/lib/parse-logs.ts and visualizer/src/lib/types.ts.
//
// File. One file per run, named <prefix>_<YYYY-MM-DD_HH-MM-SS>_<run id>.jsonl (prefix "rlm",
// local start time, the first 8 characters of a UUID); the visualizer only insists on the
// ".jsonl" suffix. FileName builds rlm's version of that name (UTC time, the task id).
// One JSON object per line. A line whose "type" is "metadata" configures the view; every other
// line is taken as an iteration, so a line of any other shape breaks the visualizer.
//
// Metadata line, written once, first: "type" ("metadata"), "timestamp" (ISO 8601), "root_model",
// "max_depth", "max_iterations", "backend", "backend_kwargs" (object, secrets filtered),
// "environment_type", "environment_kwargs" (object), "other_backends" (array or null).
//
// Iteration line, one per turn of the root model: "type" ("iteration"), "iteration" (counting
// from 1), "timestamp", "prompt" (the message list sent to the root model, each {"role",
// "content"}), "response" (the model's text), "code_blocks" (array), "final_answer" (string, or
// null while there is none) and "iteration_time" (seconds, or null). When the iteration cap is
// reached, the reference asks once more for an answer and logs that call as one more iteration
// with no code blocks whose final_answer is the response.
//
// A code block is {"code", "result"}; the result holds "stdout", "stderr" (the reference appends
// "\n<ExceptionType>: <message>" to it when the code raised), "locals" (the REPL variables, as
// an object), "execution_time" (seconds), "rlm_calls" (the sub-calls the code made, in order)
// and "final_answer" (the answer the block recorded, or null).
//
// A sub-call is {"root_model" (the model that answered), "prompt", "response", "usage_summary":
// {"model_usage_summaries": {<model>: {"total_calls", "total_input_tokens",
// "total_output_tokens"}}}, "execution_time" (seconds)}, plus "error" only when the call failed.
// The visualizer's types read "prompt_tokens" and "completion_tokens" directly on a sub-call
// and format "execution_time" as a number, so rlm writes both token spellings.
//
// # What rlm adds
//
// Extra keys are ignored by the visualizer. rlm adds: on the metadata line "task_id",
// "question" and "lang"; on an iteration "usage" ({"prompt_tokens", "completion_tokens"} of the
// root call) and, on the call made after the iteration cap, "forced_final": true; on a code
// block's result "error" ({"kind", "message"}, kind from package fault, also appended to
// stderr in the reference's way), "local_types" (variable → type name, for the variables whose
// type the engine reported) and "locals_omitted" (how many variables past MaxLocals were left
// out); on a sub-call "backend" (the backend that served it).
//
// Cost. A call's cost in US dollars is written where it is known, and left out where it is not
// (no price and none reported), never written as 0 for unknown: the root call's as "cost" in
// an iteration's "usage", a sub-call's as "total_cost" in its model usage summary (the
// reference's key, which the trace viewer reads).
//
// Locals. The reference writes the REPL's variables after the block, each value serialized
// (primitives as JSON, anything else as its repr). rlm writes one string per variable: a short
// rendering from the engine, capped (see Var), or "" when only the name is known.
//
// The question. The visualizer looks for it in the first iteration's user messages, first as
// `original query: "…"`; rlm's first message ends with that phrase (package controller).
//
// The forced final answer. When the iteration cap is reached the reference logs one more
// iteration with no code blocks whose final_answer is the response. rlm's forced call still
// answers through code (FINAL), so that iteration is logged with its blocks, the answer they
// recorded as final_answer (null if none), and "forced_final": true.
//
// The outcome. The reference has no end-of-run record, and its parser reads every line whose
// type is not "metadata" as an iteration (a record of a new type breaks it; a second metadata
// line replaces the configuration). So the metadata line is written once, and Writer.Finish
// keeps the outcome beside the trace, in <trace name>.outcome.json (OutcomePath): {"type":
// "outcome", "timestamp", "task_id", "status", "answer", "error" {"kind", "message"},
// "prompt_tokens", "completion_tokens" (the model calls this process made), "total_tokens",
// "api_calls" (everything charged to the task, recursive sub-runs included), "wall_time", "cost"
// {"usd" (the dollars of the calls of known cost; null when none was known), "unknown_calls"}},
// written to a temporary file and renamed. Traces written before this carry the same object as
// "outcome" on a second metadata line; Summarize still reads it. Package tracetest restates the
// visualizer's reading rules so that tests check all of this.
//
// # Durability and secrets
//
// Every line is written whole with one write and fsynced before the call returns, so a crash
// loses at most the line being written; Summarize reports such a truncated last line instead of
// failing. Every string that reaches a line or the outcome (prompts, responses, code, output,
// variables, kwargs, keys included) goes through a redact.Redactor first.
//
// PromptStore keeps each sub-call's prompt and response as its own JSON file,
// <dir>/<task>/subcalls/NNNN.json, also redacted.
package trace
