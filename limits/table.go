package limits

import (
	"strconv"
	"strings"
)

// Limit is one cap, budget or timeout that a person configures (rlm.toml, a flag, a variable):
// its key, its default and the line that describes it.
type Limit struct {
	// Key is its name in rlm.toml: "limits.max_calls", "defaults.timeout".
	Key string
	// Default is the constant above, as the type of the setting: int (a count or characters),
	// int64 (bytes), float64 (US dollars) or time.Duration.
	Default any
	// Doc says what it bounds, in one line: `rlm config --keys` and the flags' --help show it.
	Doc string
}

// Table lists the configurable limits in the order `rlm config` shows them. Package config
// reads each one's default and description from here; its own table adds the flag, the
// variable and the range.
var Table = []Limit{
	{"defaults.timeout", RunTimeout, "wall clock of a whole run"},

	{"limits.max_iterations", MaxIterations, "root model replies before the forced final answer"},
	{"limits.max_blocks", MaxBlocks, "code blocks of one reply that run"},
	{"limits.feedback_chars", FeedbackChars, "characters of output shown to the root model per reply"},
	{"limits.max_subcalls", SubCalls, "sub-calls (llm_query, batched slots included) per run"},
	{"limits.max_batches", Batches, "llm_query_batched calls per run"},
	{"limits.batch_width", BatchWidth, "sub-calls of one batch run at a time"},
	{"limits.max_runs", MaxRuns, "processes with a model run going in one RLM_HOME at once (sub-runs, scripts without model calls and rlm repl are not counted)"},
	{"limits.max_calls", MaxCalls, "model API calls per run (root and sub-calls, retries included)"},
	{"limits.max_tokens", MaxTokens, "tokens per run (prompt + completion)"},
	{"limits.max_cost", MaxCost, "US dollars per run; 0: no dollar budget (calls and tokens still bound the run)"},
	{"limits.cell_timeout", CellTimeout, "deadline of one cell"},
	{"limits.output_chars", OutputChars, "characters of printed output a cell keeps"},
	{"limits.peek_chars", PeekChars, "characters one peek returns"},
	{"limits.search_results", SearchResults, "matches one search returns"},
	{"limits.match_chars", MatchChars, "characters of a match's text and line text"},
	{"limits.chunks", Chunks, "slice descriptors one chunk returns"},
	{"limits.tally_results", TallyResults, "distinct matches one tally returns, most frequent first"},
	{"limits.text_chars", TextChars, "characters text(ctx) returns (larger contexts need chunk and peek)"},
	{"limits.read_chars", ReadChars, "characters one read_file returns"},
	{"limits.grep_results", GrepResults, "matches one grep returns"},
	{"limits.write_bytes", WriteBytes, "bytes one write_file writes (the worker's largest file)"},
	{"limits.file_calls", FileCalls, "file-tool calls (read_file, list_dir, file_info, grep) per session"},
	{"limits.final_chars", FinalChars, "characters of the answer (FINAL, FINAL_VAR)"},
	{"limits.workspace_bytes", int64(WorkspaceBytes), "bytes of files write_file may leave in the workspace"},
	{"limits.workspace_entries", WorkspaceEntries, "files, directories and links the workspace may hold"},
	{"limits.worker_memory", int64(WorkerMemory), "memory of the worker process that runs the cells"},
}

// Lookup returns the limit of a key of Table.
func Lookup(key string) (Limit, bool) {
	for _, l := range Table {
		if l.Key == key {
			return l, true
		}
	}
	return Limit{}, false
}

// Thousands writes n with commas between groups of three digits, as a limit is written for a
// model and a person: 32000000 → "32,000,000".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
