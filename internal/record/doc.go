// Package record writes what a run leaves behind, whatever its outcome, under its home:
//
//   - the audit trail (audit.db, SQLite): the task, its steps, API calls and tool calls;
//   - the JSONL trace (traces/rlm_<time>_<task>.jsonl, in the reference RLM logger's format) and
//     its outcome file beside it;
//   - the prompts and answers of sub-calls (traces/<task>/subcalls/NNNN.json);
//   - the daily log (logs/), unless switched off.
//
// Everything passes through the run's redactor. Tool-call rows are written off the cells'
// critical path by one goroutine (Tools), which the end of the run waits for a bounded time.
// It writes records and knows nothing of what produces them: the root package converts the
// controller's events into them (records.go), so this package sits below the controller and the
// REPL, not above them (TestRecordImportsNoPhase).
package record
