package config

import (
	"time"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/sandbox"
	"github.com/rlm-sandbox/rlm/tools"
)

// kind is how a setting's value is written and checked.
type kind int

const (
	kInt      kind = iota // a whole number
	kSize                 // bytes: a whole number, or a string with a unit ("512MiB", "2 GB")
	kDuration             // a Go duration ("90m", "30s"), or a whole number of seconds
	kUSD                  // US dollars: a number; 0 is none
	kLadder               // model names: "small,large" or ["small", "large"]
	kProvider             // "openai" or "anthropic"
	kName                 // a name ([backends.NAME], "default")
)

// spec is one setting of [defaults] or [limits]: its key in the file, its flag and variable,
// its range and where its value lives in a Config. The table below is the one list of them:
// loading, checking, `rlm config` and the documentation all read it.
type spec struct {
	key    string // "limits.max_calls"
	flag   string // "max-calls" (--max-calls); "" when there is none
	env    string // "RLM_MAX_CALLS"; "" when there is none
	kind   kind
	dir    direction // which of its values an untrusted project file may set
	lo, hi float64   // the allowed range, in the kind's unit (bytes, nanoseconds, dollars)
	doc    string
	field  func(*Config) any // a pointer to the value in c
}

// direction is which values of a key make a run stricter, the only values a project file the
// user has not trusted may set (trust.go).
type direction int

const (
	// needsTrust: any value needs a trusted file (a model, a provider, a backend). The zero value,
	// so that a key added without a direction fails closed.
	needsTrust direction = iota
	// lowerIsStricter: a cap, budget or time; a value at or below the one the lower sources give
	// is stricter.
	lowerIsStricter
	// zeroIsNone: a budget where 0 means none (max_cost); any positive value is stricter than 0,
	// and a positive value at or below a positive one.
	zeroIsNone
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
	tib = 1 << 40
)

// Defaults are rlm's built-in values: DESIGN's limits table, taken from the packages that
// enforce each limit, so that a default here cannot differ from theirs.
func Defaults() Config {
	el := engine.DefaultLimits
	return Config{
		Provider: "openai",
		Backend:  "default",
		Timeout:  90 * time.Minute,
		Limits: Limits{
			MaxIterations: controller.DefaultMaxIterations, MaxSubCalls: el.SubCalls, MaxBatches: el.Batches,
			BatchWidth: el.BatchWidth, MaxBlocks: controller.DefaultMaxBlocks, FeedbackChars: controller.DefaultFeedbackChars,
			MaxCalls: 80, MaxTokens: 200_000, MaxCost: 0, CellTimeout: repl.DefaultCellTimeout,
			OutputChars: el.OutputChars, PeekChars: el.PeekChars, SearchResults: el.SearchResults, MatchChars: el.MatchChars,
			Chunks: el.Chunks, TextChars: el.TextChars, ReadChars: el.ReadChars, GrepResults: el.GrepResults,
			WriteBytes: el.WriteBytes, FileCalls: el.FileCalls, FinalChars: el.FinalChars,
			WorkspaceBytes: tools.DefaultWorkspaceBytes, WorkspaceEntries: tools.DefaultWorkspaceEntries,
			WorkerMemory: sandbox.DefaultMemoryBytes,
		},
	}
}

var specs = []spec{
	{"defaults.model", "model", "RLM_MODEL", kLadder, needsTrust, 0, 0, "the root model; \"small,large\" is an escalation ladder", func(c *Config) any { return &c.Model }},
	{"defaults.sub_model", "sub-model", "RLM_SUB_MODEL", kLadder, needsTrust, 0, 0, "the model of llm_query (its own ladder); default: the root model", func(c *Config) any { return &c.SubModel }},
	{"defaults.provider", "", "RLM_PROVIDER", kProvider, needsTrust, 0, 0, "the API of the default backend: openai (any OpenAI-compatible server) or anthropic", func(c *Config) any { return &c.Provider }},
	{"defaults.backend", "", "", kName, needsTrust, 0, 0, "the backend of models that name none ([backends.NAME], or default)", func(c *Config) any { return &c.Backend }},
	{"defaults.timeout", "timeout", "SFA_DEFAULTS_TIMEOUT", kDuration, lowerIsStricter, float64(time.Second), float64(7 * 24 * time.Hour), "wall clock of a whole run", func(c *Config) any { return &c.Timeout }},

	{"limits.max_iterations", "max-iterations", "RLM_MAX_ITERATIONS", kInt, lowerIsStricter, 1, 1000, "root model replies before the forced final answer", func(c *Config) any { return &c.Limits.MaxIterations }},
	{"limits.max_blocks", "", "RLM_MAX_BLOCKS", kInt, lowerIsStricter, 1, 100, "code blocks of one reply that run", func(c *Config) any { return &c.Limits.MaxBlocks }},
	{"limits.feedback_chars", "", "RLM_FEEDBACK_CHARS", kInt, lowerIsStricter, 1000, 1_000_000, "characters of output shown to the root model per reply", func(c *Config) any { return &c.Limits.FeedbackChars }},
	{"limits.max_subcalls", "max-subcalls", "RLM_MAX_SUBCALLS", kInt, lowerIsStricter, 1, 100_000, "sub-calls (llm_query, batched slots included) per run", func(c *Config) any { return &c.Limits.MaxSubCalls }},
	{"limits.max_batches", "max-batches", "RLM_MAX_BATCHES", kInt, lowerIsStricter, 1, 10_000, "llm_query_batched calls per run", func(c *Config) any { return &c.Limits.MaxBatches }},
	{"limits.batch_width", "", "RLM_BATCH_WIDTH", kInt, lowerIsStricter, 1, 64, "sub-calls of one batch run at a time", func(c *Config) any { return &c.Limits.BatchWidth }},
	{"limits.max_calls", "max-calls", "RLM_MAX_CALLS", kInt, lowerIsStricter, 1, 100_000, "model API calls per run (root and sub-calls, retries included)", func(c *Config) any { return &c.Limits.MaxCalls }},
	{"limits.max_tokens", "max-tokens", "RLM_MAX_TOKENS", kInt, lowerIsStricter, 1, 1_000_000_000, "tokens per run (prompt + completion)", func(c *Config) any { return &c.Limits.MaxTokens }},
	{"limits.max_cost", "max-cost", "RLM_MAX_COST", kUSD, zeroIsNone, 0, 100_000, "US dollars per run; 0: no dollar budget (calls and tokens still bound the run)", func(c *Config) any { return &c.Limits.MaxCost }},
	{"limits.cell_timeout", "cell-timeout", "RLM_CELL_TIMEOUT", kDuration, lowerIsStricter, float64(100 * time.Millisecond), float64(24 * time.Hour), "deadline of one cell", func(c *Config) any { return &c.Limits.CellTimeout }},
	{"limits.output_chars", "", "RLM_OUTPUT_CHARS", kInt, lowerIsStricter, 1000, 10_000_000, "characters of printed output a cell keeps", func(c *Config) any { return &c.Limits.OutputChars }},
	{"limits.peek_chars", "", "RLM_PEEK_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "characters one peek returns", func(c *Config) any { return &c.Limits.PeekChars }},
	{"limits.search_results", "", "RLM_SEARCH_RESULTS", kInt, lowerIsStricter, 1, 100_000, "matches one search returns", func(c *Config) any { return &c.Limits.SearchResults }},
	{"limits.match_chars", "", "RLM_MATCH_CHARS", kInt, lowerIsStricter, 10, 100_000, "characters of a match's text and line text", func(c *Config) any { return &c.Limits.MatchChars }},
	{"limits.chunks", "", "RLM_CHUNKS", kInt, lowerIsStricter, 1, 1_000_000, "slice descriptors one chunk returns", func(c *Config) any { return &c.Limits.Chunks }},
	{"limits.text_chars", "", "RLM_TEXT_CHARS", kInt, lowerIsStricter, 1000, 1_000_000_000, "characters text(ctx) returns (larger contexts need chunk and peek)", func(c *Config) any { return &c.Limits.TextChars }},
	{"limits.read_chars", "", "RLM_READ_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "characters one read_file returns", func(c *Config) any { return &c.Limits.ReadChars }},
	{"limits.grep_results", "", "RLM_GREP_RESULTS", kInt, lowerIsStricter, 1, 100_000, "matches one grep returns", func(c *Config) any { return &c.Limits.GrepResults }},
	{"limits.write_bytes", "", "RLM_WRITE_BYTES", kSize, lowerIsStricter, 1, float64(sandbox.DefaultFileSizeBytes), "bytes one write_file writes (the worker's largest file)", func(c *Config) any { return &c.Limits.WriteBytes }},
	{"limits.file_calls", "", "RLM_FILE_CALLS", kInt, lowerIsStricter, 1, 100_000, "file-tool calls (read_file, list_dir, file_info, grep) per session", func(c *Config) any { return &c.Limits.FileCalls }},
	{"limits.final_chars", "", "RLM_FINAL_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "characters of the answer (FINAL, FINAL_VAR)", func(c *Config) any { return &c.Limits.FinalChars }},
	{"limits.workspace_bytes", "", "RLM_WORKSPACE_BYTES", kSize, lowerIsStricter, mib, tib, "bytes of files write_file may leave in the workspace", func(c *Config) any { return &c.Limits.WorkspaceBytes }},
	{"limits.workspace_entries", "", "RLM_WORKSPACE_ENTRIES", kInt, lowerIsStricter, 1, 10_000_000, "files, directories and links the workspace may hold", func(c *Config) any { return &c.Limits.WorkspaceEntries }},
	{"limits.worker_memory", "", "RLM_WORKER_MEMORY", kSize, lowerIsStricter, 64 * mib, 64 * gib, "memory of the worker process that runs the cells", func(c *Config) any { return &c.Limits.WorkerMemory }},
}

// lookup returns the spec of a key.
func lookup(key string) (spec, bool) {
	for _, s := range specs {
		if s.key == key {
			return s, true
		}
	}
	return spec{}, false
}
