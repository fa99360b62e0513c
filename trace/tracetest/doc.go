// Package tracetest reads a trace the way the reference RLM trajectory visualizer does, so that
// tests can check what it would show for an rlm trace.
//
// Parse follows the rules of parseLogFile in the visualizer's visualizer/src/lib/parse-logs.ts
// (alexzhang13/rlm at commit 72d6940), restated here from reading it:
//
//   - The content is trimmed and split on "\n"; blank lines are dropped.
//   - Each line goes through JSON.parse. A line it rejects is logged and skipped, and so is
//     the line "null" (reading its "type" throws inside the same try).
//   - A value whose "type" is "metadata" replaces the whole configuration (root_model,
//     max_depth, max_iterations, backend, backend_kwargs, environment_type,
//     environment_kwargs, other_backends, each defaulting to null): the last such line wins.
//     Every other value, whatever its type, is taken as an iteration.
//   - The totals: iterations; code blocks (reading code_blocks.length, which throws, failing
//     the whole file, when an iteration has none); sub-LM calls (rlm_calls.length of each
//     block with a result); execution time (iteration_time when not null, else the blocks'
//     execution_time); errors (any block whose stderr is non-empty); the final answer (the
//     last truthy final_answer, a [variable, value] pair giving the value).
//   - The question (extractContextQuestion), from the first iteration's prompt: in the user
//     messages, in order, the first `original query: "…"` match; a message containing
//     "answer the prompt" is passed over; else the first user message of more than 50 and
//     fewer than 500 UTF-16 code units, cut to 200 with "..."; else the text after the first
//     colon of the system message's "context variable…:" line; else a string
//     locals.context under 500 units; else "Context available in REPL environment".
//
// Where the visualizer would throw, Parse returns an error.
package tracetest
