// Package logfile writes rlm's daily log files: dir/rlm-YYYY-MM-DD.log, one line per record in
// log/slog's text format, with levels.
//
// Days are UTC days: the file name is the UTC date of each record, so a run that crosses
// midnight UTC continues in the next day's file (a long `rlm repl` session included). Files are
// opened for appending, so several runs of one day share one file; each line is written with a
// single write, so lines of concurrent processes do not interleave.
//
// Secrets: every record is redacted twice over. The message and every string attribute are
// passed through a redact.Redactor before formatting (so a multi-line secret such as a PEM
// block is seen whole, before the text handler quotes it), and the formatted line is redacted
// again (catching secrets inside errors and other values formatted by the handler).
//
// Retention: when a Logger is opened, and again at each rollover, files named rlm-*.log in dir
// that are older than the retention period (30 days by default) are deleted. The age of
// rlm-YYYY-MM-DD.log is its date; any other rlm-*.log is judged by its modification time.
// Nothing else in dir is touched. Options.Now makes the clock injectable for tests.
//
// Disabled mode (for --no-log and SFA_NO_LOG=1) returns a Logger that discards every record
// and touches no file.
package logfile
