// Package audit is the SQLite audit trail of rlm runs: one row per task, and one row per model
// API call, per REPL step (cell attempt) and per trusted tool call made on its behalf.
//
// The database lives under RLM_HOME (the caller picks the path). Open configures every
// connection with WAL journaling, a busy timeout and foreign keys, and brings the schema up to
// date with an ordered list of migrations: PRAGMA user_version holds the number of migrations
// applied, and each missing one runs in its own transaction (BEGIN IMMEDIATE, so two processes
// opening the same file at once do not both migrate it). A database written by a newer rlm,
// whose version is beyond the list, is refused rather than guessed at.
//
// # What is stored
//
//   - tasks: id (see NewTaskID), question, status (RUNNING until FinishTask sets ANSWERED,
//     FAILED or ABORTED), answer, error kind and message, spent calls, tokens and cost
//     (RecordSpent overwrites them as the run goes, so an aborted task's figures are the ones
//     it reached: cost_usd, the dollars of the calls of known cost, and cost_unknown, how many
//     calls were of unknown cost), pid, start and end times, the context files and metadata
//     (JSON), language and model.
//   - api_calls: task, agent or tier, model (its configured name), backend, prompt,
//     completion and cached prompt tokens, the source of those counts, cost_usd (NULL when
//     unknown: no price and none reported; never stored as 0), latency, status, error, time.
//   - steps: task, step, attempt, code and output (truncated), validator decision, findings
//     (JSON), error kind, time.
//   - tool_calls: task, step, tool name, arguments (JSON, truncated), result summary, error,
//     duration, time. RecordTools writes a batch (a cell's calls) in one transaction; the caller
//     decides how many rows a cell gets (rlm records the first 100 calls of a cell, then one row
//     per tool with the number of calls left out).
//
// Every text column is passed through a redact.Redactor before it is written (the one in
// Options, or redact.New()), and long columns are truncated after redaction to a fixed number of
// characters with a marker that states the true length (see MaxText). Times are stored as
// RFC 3339 text in UTC with nanoseconds.
//
// A *DB is safe for concurrent use: model calls made by a batch of sub-calls are recorded from
// several goroutines at once. Writes are single statements or IMMEDIATE transactions, and the
// busy timeout makes a writer wait for another (in this process or another one) instead of
// failing.
package audit
