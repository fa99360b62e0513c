// Package limits declares every cap, budget and timeout of rlm with its default, once: the
// constants below are the only place a default is written, and every other package reads it
// from here (a test fails if another package declares one). It imports the standard library
// only, so that any package, the confined worker's included, may depend on it.
//
// Zero means the default, never unlimited: every struct of settings in rlm (the API caps below,
// repl.Options, rlm.Options, llm.Config, sandbox.Config, config.Config, …) is safe as its zero
// value, each zero field standing for the constant here. The one budget whose zero is "none" is
// MaxCost: calls and tokens, always finite, still bound a run without a dollar budget.
//
// How a limit is described:
//   - to a model: the system prompt writes each number from here. engine.API's doc lines name
//     the fields of API as placeholders ("at most {PeekChars} per call") that engine's Describe
//     fills in from the caps a run enforces; the controller's limit lines state the rest
//     (replies, blocks, failures, time, memory, the model budget, crashes);
//   - to a person: Table gives each limit that rlm.toml, a flag or a variable sets its line of
//     description, which `rlm config --keys` and the flags' --help show, and its default, which
//     config.Defaults is built from.
//
// Fixed bounds that nothing configures and no prompt states (the worker protocol's largest line,
// an HTTP request's header size, a grace period) stay beside the code they bound.
package limits

import "time"

// Byte units.
const (
	KiB = 1 << 10
	MiB = 1 << 20
	GiB = 1 << 30
)

// The caps of the model-facing API (API's fields): per call, per cell, per session and per run.
// Table describes each.
const (
	PeekChars     = 16_000
	SearchResults = 200
	MatchChars    = 500
	Chunks        = 5_000
	TallyResults  = 1_000
	TextChars     = 32_000_000
	ReadChars     = 50_000
	GrepResults   = 100
	WriteBytes    = 50_000
	FileCalls     = 50
	OutputChars   = 100_000
	FinalChars    = 1_000_000
	SubCalls      = 32
	Batches       = 8
	BatchWidth    = 4
)

// tally's bounds on what one call tracks while it scans, fixed: past either, the call fails and
// asks for a narrower regex. They bound the worker's memory, whatever TallyResults is.
const (
	TallyDistinct = 1_000_000 // distinct matches one tally counts
	TallyBytes    = 64 * MiB  // bytes of those matches' texts (each cut at MatchChars characters)
)

// The file tools' other caps, and the workspace quota (what write_file may leave in it).
const (
	ListEntries      = 1_000  // entries one list_dir returns
	GrepFiles        = 10_000 // files one grep of a directory scans
	WorkspaceBytes   = 256 * MiB
	WorkspaceEntries = 10_000
)

// The root loop (controller).
const (
	MaxIterations = 25      // root model replies before the forced final answer
	MaxBlocks     = 8       // code blocks of one reply that run; the rest are skipped
	FeedbackChars = 20_000  // characters of output shown to the root model per reply
	MinBlockChars = 1_000   // of those, what each block of a reply gets at least (fixed)
	FailedStreak  = 3       // replies in a row in which no block worked: the run ends (fixed)
	Window        = 128_000 // the root model's context window in tokens; history is compacted at 85%
)

// Time.
const (
	RunTimeout  = 90 * time.Minute  // wall clock of a whole run
	CellTimeout = 120 * time.Second // soft deadline of one cell: the engine interrupts itself
	KillGrace   = time.Second       // the hard deadline is CellTimeout+KillGrace: SIGKILL
)

// Recursion and the guards checked before a run.
const (
	MaxDepth  = 1   // depth of a run's tree: 1 = root and sub-calls; above 1, llm_query runs a child run
	DepthCap  = 5   // the deepest MaxDepth and a run's depth may go (SFA_MAX_DEPTH)
	MinFreeMB = 100 // free space, in MB, a run needs in RLM_HOME
	// MaxRuns is how many processes may have a model run going in one RLM_HOME at once, the
	// new run's included: the runs of one process (a batch's tasks, an MCP server's requests)
	// count once, and sub-runs and runs that have made no model call (a script, rlm repl) not
	// at all.
	MaxRuns = 1
)

// The model client's budgets (per run, every model and sub-call together), and its network and
// retry bounds.
const (
	MaxCalls  = 80      // model API calls (HTTP attempts, quota probes included)
	MaxTokens = 200_000 // tokens (prompt + completion)
	MaxCost   = 0.0     // US dollars; 0: no dollar budget (calls and tokens still bound the run)

	ConnectTimeout  = 30 * time.Second // TCP connect and TLS handshake
	StreamIdle      = 30 * time.Second // a response stream without a chunk (the first byte included)
	CallAttempts    = 5                // HTTP attempts per model for transient errors
	RetryMinBackoff = time.Second      // the first retry's wait; it doubles per attempt
	RetryMaxBackoff = 30 * time.Second // the longest wait between attempts; it caps Retry-After too
	BreakerErrors   = 5                // API errors within BreakerWindow that end the run
	BreakerWindow   = 60 * time.Second
	QuotaProbe      = 5 * time.Minute // between probes while a quota is exhausted

	// AnthropicMaxTokens is the max_tokens sent to an Anthropic model without a max_tokens
	// setting (the field is required). Every current Claude model accepts it; a server that
	// states a lower maximum is asked again with that maximum.
	AnthropicMaxTokens = 8192
)

// A session's worker: its restarts and its journal (repl).
const (
	MaxRestarts       = 5                 // worker deaths within RestartWindow before the session is degraded
	RestartWindow     = 30 * time.Minute  // the window MaxRestarts counts deaths in
	RestartMaxBackoff = 300 * time.Second // cap of the restart backoff min(2^n s, cap)
	JournalBytes      = 64 * MiB          // what a session's journal keeps for a replay
	CellJournalBytes  = 8 * MiB           // of it, what one cell's host results may take
)

// The worker process's rlimits (sandbox) and the JavaScript engine's bounds.
const (
	WorkerMemory = 512 * MiB // memory of the worker process that runs the cells
	// WorkerGCPercent is the worker's GOGC: its heap may grow to 3 times what is live before a
	// collection, always under the soft limit of WorkerMemory. Measured against Go's default
	// of 100 on taskset's cells (farm-bench, whole processes): about 7% less wall time, 15%
	// more peak memory; 400 gave 10% and 45%.
	WorkerGCPercent  = 200
	WorkerFileBytes  = 64 * MiB // the largest file the worker may write (RLIMIT_FSIZE)
	WorkerOpenFiles  = 64       // RLIMIT_NOFILE
	WorkerCPUSeconds = 3600     // RLIMIT_CPU, a backstop behind the cell timeout

	JSCallStack     = 10_000      // JS call depth (V8 allows about 11,000)
	JSRegexpTimeout = time.Second // one backtracking match (regexp2), process-wide
)

// JSHeap is the live heap above which the JavaScript engine stops a cell, in a worker of memory
// bytes (0 or less: WorkerMemory): half of it, so that the stop comes before the worker runs out
// (256 MiB for the default 512 MiB). The system prompt states the same value.
func JSHeap(memory int64) uint64 {
	if memory <= 0 {
		memory = WorkerMemory
	}
	return uint64(memory / 2)
}

// The validator's bounds, applied before any parser runs (validator.Policy).
const (
	SourceBytes = 128 * KiB // a source larger than this is rejected unparsed
	SourceDepth = 256       // nesting, as the pre-scan estimates it
	ConstAlloc  = 1 << 24   // the largest constant allocation (elements or characters)
)

// IndexSettle: the index of a context file changed more recently than this is not cached on
// disk (tools.Indexes). Longer than the coarsest timestamps of common file systems (FAT's are
// 2 s).
const IndexSettle = 3 * time.Second

// rlm mcp.
const (
	MCPSessions = 4                // sessions and runs holding a worker at once, per server
	MCPIdle     = 10 * time.Minute // a session unused this long is closed
	HTTPConns   = 256              // HTTP client connections open at once
)

// rlm batch.
const (
	// AckWait is how long a job may go without a heartbeat before it is delivered again; a
	// running job's worker sends one every third of it.
	AckWait = 30 * time.Second
	// JobAttempts is how many times a job is started before it is recorded as failed: a job
	// whose every worker died (out of memory, killed) must not circle for ever.
	JobAttempts = 4
	// BatchDrain is the longest wait for results after the workers stop.
	BatchDrain = 2 * time.Second
)

// Records and the commands that manage them.
const (
	Retention   = 30 * 24 * time.Hour // age past which log files expire and `rlm clean` deletes records
	AuditBusy   = 5 * time.Second     // how long a writer of the audit database waits for its lock
	AbortWait   = 10 * time.Second    // how long `rlm abort` waits for the run to exit
	EvalTimeout = 30 * time.Minute    // wall clock of one `rlm eval` task
)

// Users' own tools (rlm.Tool): each tool's caps when its declaration leaves them at zero, and
// the bounds of a declaration (engine.WithTools).
const (
	ToolTimeout     = 30 * time.Second // one call of a tool: its context ends then
	ToolOutputChars = 50_000           // characters of one call's result (a longer string is cut, other data refused)
	ToolCalls       = 50               // calls of one tool per run (per session for rlm.Session)
	ToolNameChars   = 64               // a tool's or parameter's name
	ToolDocChars    = 300              // a tool's one-line description, in bytes
	ToolParams      = 8                // parameters of one tool
)

// Converters ([convert] in rlm.toml): what one conversion of an input to text may take when its
// entry leaves it at zero, and the bounds an entry may set.
const (
	ConvertTimeout    = 2 * time.Minute // one run of a converter: its process group is killed then
	ConvertBytes      = 64 * MiB        // the text a converter may print; a longer one fails the run
	ConvertMaxTimeout = 24 * time.Hour  // the longest timeout an entry may set
	ConvertMaxBytes   = 1 * GiB         // the most text an entry may allow (the parent holds it in memory)
)

// Or is v, or d when v is zero or less: a limit left at zero means its default, never
// "unlimited", and a negative one is not a limit either. Every package fills its defaults in
// through it, so the rule is written once.
func Or[T ~int | ~int64 | ~float64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}
