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
// The package converts the controller's events into these records; deciding what a run does is
// not its business.
package record
