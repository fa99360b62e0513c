package rlm

import (
	"context"
	"io"
	"time"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// Options is one run: a Question for a root model, or a Script, over context files. The zero
// value of every field is safe: zero means the default, never unlimited.
type Options struct {
	// What to run: exactly one of Question and Script.
	Question string
	Script   Script
	// Files are the context files (context, ctx0, ctx1, … in the code); each must exist and
	// hold text. Their directories are readable by the file tools.
	Files []string
	// Convert turns files that are not text into text before the run: by extension, in lower
	// case without the dot ("pdf"), the command that prints a file's text (see Converter). The
	// text is kept in Home's index cache, keyed on the file, so a later run over the unchanged
	// file does not convert it again; the first message names the file and the program.
	Convert map[string]Converter
	Lang    string // "go" or "js"; "" = from Script.Name's extension, else "go"
	Mode    Mode   // Auto (default): inputs under 50,000 characters take one direct call

	// Home holds the run's records and guards (see Ask); "" = $RLM_HOME, else ~/.rlm. The
	// file tools never reach it, whatever the roots (the workspace inside it aside).
	Home string
	// Workspace is the only directory the code may write (write_file), an existing one that
	// is never changed otherwise and lies outside Home (neither Home, nor a directory holding
	// it, nor inside it but below Home/work); "" = a new directory under Home/work, removed at
	// the end when the code wrote nothing (Result.Workspace names it when it did).
	Workspace string
	Roots     []string // more directories the file tools may read

	// Model configures the model client: the root and sub-call ladders, backends, prices and
	// the task's budgets (MaxCalls 80, MaxTokens 200,000, MaxCost none). Ask sets its
	// Deadline, Log and Redactor; its Observer and Notify, if set, are called after Ask's own.
	// A question needs Model.Models (or Replay); a script without one runs, and its llm_query
	// calls fail with an error that says what to set.
	Model llm.Config
	// Replay answers with a scripted model: the reply file at this path (package llm/replay;
	// see examples/demo/model.json), served over loopback HTTP. It replaces Model's backends and
	// ladders and keeps its budgets. Sub-runs are served by it too.
	Replay string
	// Budget, when set, is shared with other runs (a batch): every model call of this run
	// is checked against it before and charged to it after, on top of Model's budgets.
	Budget *Budget

	Limits        Limits        // the caps the code is told and held to: peek, search, output, sub-calls, …
	Quota         Quota         // what write_file may leave in the workspace (256 MiB, 10,000 entries)
	MaxIterations int           // root iterations before the forced final answer (25)
	MaxBlocks     int           // code blocks of one reply that run (8)
	FeedbackChars int           // characters of output shown to the root model per reply (20,000)
	Timeout       time.Duration // the whole run's wall clock (90 min; ctx's deadline if earlier)
	CellTimeout   time.Duration // per cell (120 s)
	MinFreeMB     int           // free space Home must have at the start (100 MB)
	WorkerMemory  int64         // bytes of the worker process that runs the cells (512 MiB)

	// MaxRuns is how many processes may have a model run going in Home at once, this one's
	// included (1): Ask refuses a question run past it, and a script's first model call. The
	// runs of one process (a batch, a server) count once; sub-runs and runs that make no model
	// call are never refused and never counted.
	MaxRuns int

	// Recursive runs. Name is this agent's name (default "rlm"): progress lines and the call
	// chain. MaxDepth 1 (default) makes llm_query a model call; above it, llm_query starts a
	// child run one level deeper (see MaybeServeWorker). Chain lists the agents above this run,
	// outermost first, and Depth is its depth (1 for a run a person started): a Name already
	// in Chain is refused as a loop, and neither Depth nor MaxDepth may pass DepthCap (5).
	Name     string
	MaxDepth int
	Chain    []string
	Depth    int
	DepthCap int

	// AllowDegraded runs model code even where the machine's confinement is below the minimum
	// (rlimits, no_new_privs, Landlock, seccomp): always on macOS and other non-Linux systems,
	// and on Linux without Landlock or seccomp. Without it such a run fails with a
	// fault.Denied error that names what is missing. With it, code still runs in a separate
	// worker process with rlimits, behind the validator and the interpreters' allow-lists, and
	// the file tools still check every path against the roots; but code that gets past those
	// has the user's rights (files, network, processes). CLI: --allow-degraded.
	AllowDegraded bool
	NoValidate    bool // run cells without the validator (to test the lower layers alone)

	// Tools are functions of your own that the code may call in both languages (see Tool): the
	// parent runs them, each under its caps, and the system prompt lists them. A tool whose
	// name clashes with the API, a name of either language or another tool is refused (an
	// *OptionError for "Tools").
	Tools []Tool

	// Progress gets rlm's progress lines, "[agent:NAME] ..." (nil: none). A question run
	// writes its milestones unless Quiet; a script run only when Verbose. Notices (a retry,
	// a quota pause) are written unless Quiet; Verbose adds each cell's code and output.
	Progress io.Writer
	// Status, when set, is a terminal for one status line, drawn once a cell or a model call has
	// run 5 seconds and redrawn in place every second while it runs: what runs, for how long,
	// what the run has used. rlm writes it
	// its own text (control characters escaped) and the control sequences that redraw it. Without
	// it, a Progress line says the same every 5 seconds once the work has run that long. Quiet
	// turns both off.
	Status  io.Writer
	Quiet   bool
	Verbose bool
	NoLog   bool // write no daily log (the audit trail and the trace are still written)
	// OnEvent, when set, gets the run's events as they happen (see Event). Calls are never
	// concurrent; a slow callback slows the run.
	OnEvent func(Event)
}

// Mode chooses between one direct model call and the REPL loop.
type Mode = controller.Mode

// Modes.
const (
	Auto   = controller.Auto   // the loop for inputs of 50,000 characters or more, else one call
	Direct = controller.Direct // one model call with the context in the prompt (rlm run --direct)
	Loop   = controller.Loop   // the REPL loop whatever the input's size (rlm run --rlm)
)

// Limits are the caps of the model-facing API, stated in the system prompt and enforced by the
// sandbox and the run; a zero field means its default (package limits).
type Limits = limits.API

// Quota bounds what write_file may leave in the workspace; zero fields mean the defaults.
type Quota = repl.WorkspaceQuota

// Script is a saved program run as one cell.
type Script struct {
	Name   string // its file name: errors name it, and its extension gives the language
	Source string
}

// Status is how a run ended.
type Status string

// Statuses.
const (
	Answered  Status = "answered"  // the code recorded an answer with FINAL or FINAL_VAR
	Completed Status = "completed" // a script ran to its end without FINAL
	Failed    Status = "failed"
)

// Result is what a run produced and where it is recorded.
type Result struct {
	Status Status   `json:"status"`
	Answer string   `json:"answer,omitempty"` // the FINAL value
	Output string   `json:"output,omitempty"` // what a script printed
	Error  *Failure `json:"error,omitempty"`
	Usage  Usage    `json:"usage"`
	TaskID string   `json:"task_id"`
	Trace  string   `json:"trace"` // the JSONL trace; its outcome is beside it (trace.OutcomePath)
	// Isolation is the worker's confinement verdict: "full", "degraded(…)", … ("" when no
	// worker started).
	Isolation string `json:"isolation,omitempty"`
	// Workspace is the default workspace when the code wrote files to it ("" otherwise).
	Workspace string        `json:"workspace,omitempty"`
	Started   time.Time     `json:"started"`
	Duration  time.Duration `json:"duration_ns"`
}

// Failure is how a run or a cell failed: a kind from the closed set of package fault, the
// message (which says what to do), and for a cell the position in its code, FILE:LINE:COL,
// when known.
type Failure struct {
	Kind    fault.Kind `json:"kind"`
	Message string     `json:"message"`
	Pos     string     `json:"pos,omitempty"`
}

// Ask runs one task and records it under Options.Home exactly as `rlm run` does: the audit
// trail (audit.db), the JSONL trace and its outcome file (traces/), the sub-calls' prompts,
// and the daily log (logs/), all redacted, whatever the outcome.
//
// Before anything is recorded, Ask checks the Options (an *OptionError) and the guards: the
// call chain (loops, depth), free space in Home, Home/EMERGENCY_STOP (checked again before
// every model call), and, for a question, room for a model run in Home (Options.MaxRuns; a
// script takes its room at its first model call); those refusals are of kind limit. Then it
// returns a zero Result and the error.
//
// Otherwise it returns the Result and, when the run failed, its error too (also in
// Result.Error): check errors.Is(err, fault.Timeout) and the like.
//
// Cancelling ctx stops the run as SIGINT stops `rlm run`: the task is marked FAILED at once
// (so that a process that exits before Ask returns leaves a true record), the worker and any
// sub-runs are stopped, and the records are completed before Ask returns. The run's error is
// then context.Cause(ctx) when that carries a fault kind (the command line cancels with
// "the run was stopped by a signal"), else a limit error wrapping it.
func Ask(ctx context.Context, opts Options) (Result, error) { return ask(ctx, opts) }

// EventKind says what an Event reports.
type EventKind string

// Event kinds, in the order a run produces them.
const (
	EventStarted   EventKind = "started"    // the task is recorded: Task, Message
	EventMilestone EventKind = "milestone"  // Message: a step of the run, as printed
	EventNotice    EventKind = "notice"     // Message: a retry, a quota pause: what a person waiting should know now
	EventModelCall EventKind = "model_call" // Call: one API attempt (root or sub-call)
	EventCell      EventKind = "cell"       // Cell: one code block ran
	EventSubCall   EventKind = "sub_call"   // SubCall: one llm_query ended
	EventIteration EventKind = "iteration"  // one root iteration ended; Step, Message
	EventFinished  EventKind = "finished"   // Result: the run ended (sent before Ask returns)
)

// Event is one step of a run, for progress displays: MCP progress notifications, a batch's
// progress bar. Every event carries the task, the time, the iteration it belongs to and what
// the run has spent so far; Kind says which of the other fields is set. Text in events (code,
// output, prompts) is as the code and the models wrote it, not redacted: the records are.
type Event struct {
	Kind    EventKind
	Task    string
	Time    time.Time
	Step    int    // the root iteration in progress (the script's one cell: 1); 0 for Started, the last one for Finished
	Message string // the progress line's text, for Started, Milestone, Notice, Iteration, Finished
	Usage   Usage  // spent so far
	Call    *llm.Call
	Cell    *Cell
	SubCall *SubCall
	Result  *Result
}

// Cell is one code block of a run and its result.
type Cell struct {
	Index  int // its place in the reply, from 0
	Code   string
	Result ExecResult
	Took   time.Duration
}

// SubCall is one llm_query (or one slot of llm_query_batched).
type SubCall struct {
	Model  string // the model that answered ("" for a sub-run)
	Prompt string
	Answer string
	Error  *Failure
	Tokens int
	Took   time.Duration
}

// Budget is a budget of model calls, tokens and dollars shared by several runs, such as the
// tasks of a batch: each run given it (Options.Budget) is refused before a model call once the
// budget is spent, is charged every API attempt, and starts with its own budgets lowered to
// what is left. Concurrent runs may together overrun it by what their calls in flight spend,
// as concurrent calls of one run may overrun its own token budget. It is safe for concurrent
// use.
type Budget struct{ budget }

// NewBudget returns a budget of limit's calls, tokens and dollars (limit.Cost.USD). A zero
// field sets no shared cap on that dimension: each run's own budgets, always finite, still
// bound it.
func NewBudget(limit llm.Spent) *Budget { return &Budget{budget{limit: limit}} }

// Charge adds what was spent outside the runs that share the budget (a run on another
// machine, say).
func (b *Budget) Charge(s llm.Spent) { b.charge(s) }

// Spent is what the runs sharing the budget have spent so far.
func (b *Budget) Spent() llm.Spent { return b.spent() }

// Check returns an error of kind limit when the budget is spent, naming what is; nil while
// something is left.
func (b *Budget) Check() error { return b.check() }

// OptionError is an Options or SessionOptions value that cannot be used. Its kind is schema;
// its message names the value and says what to do.
type OptionError struct {
	Option string // the field: "Files", "Workspace", "Replay", "Lang", "Model", …
	Err    error
}

func (e *OptionError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, fault.Schema) true.
func (e *OptionError) Is(target error) bool { return target == fault.Schema }

// SessionOptions configure a confined REPL session. The zero value is safe: Go, the default
// limits, a new workspace.
type SessionOptions struct {
	Lang  string   // "go" (default) or "js"
	Files []string // context files, as Options.Files
	// Convert turns files that are not text into text when the session opens, as
	// Options.Convert does (the same index cache under Home); Conversions says what it did.
	Convert map[string]Converter
	Roots   []string // more directories the file tools may read
	// Workspace is as Options.Workspace: "" = a new directory under Home/work, removed by
	// Close when nothing was written to it.
	Workspace     string
	Home          string        // "" = $RLM_HOME, else ~/.rlm: the default workspace's parent; Workspace lies outside it, and the file tools never reach it
	Limits        Limits        // per call, per cell and per session caps
	CellTimeout   time.Duration // soft deadline per cell (120 s); the worker is killed 1 s later
	Quota         Quota         // what write_file may leave in the workspace (256 MiB, 10,000 entries)
	WorkerMemory  int64         // bytes of the worker process (512 MiB)
	AllowDegraded bool          // as Options.AllowDegraded
	NoValidate    bool          // as Options.NoValidate
	Tools         []Tool        // as Options.Tools; MaxCalls counts per session
	// Warn, when set, is told once that the index cache under Home cannot be written (read-only,
	// full): the session goes on with the inputs' indexes in memory. nil: nothing is said.
	Warn func(error)
}

// Session is a confined REPL session: each cell is validated, then run in a worker process
// under the session's limits, and state persists across cells. A worker that dies is replaced
// and the successful cells replayed (ExecResult.Rebuilt). Its methods are safe for concurrent
// use; cells run one at a time.
type Session struct{ session }

// OpenSession starts a session's worker. ctx bounds the start only.
func OpenSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	return openSession(ctx, opts)
}

// Exec runs one cell. Cancelling ctx interrupts it (the cell fails with a timeout; the session
// lives on).
func (s *Session) Exec(ctx context.Context, code string) ExecResult { return s.exec(ctx, code) }

// ExecFile runs code read from the file name as one cell, as Exec does, and names that file in
// the positions of its errors (Failure.Message and Pos: "solve.js:3:7"), where a cell typed in
// says cell.go or cell.js. The cell is still part of the session: a Go file sees the imports and
// variables of earlier cells. A name of "" is Exec.
func (s *Session) ExecFile(ctx context.Context, name, code string) ExecResult {
	return s.execFile(ctx, name, code)
}

// Conversions are the session's inputs that SessionOptions.Convert turned into text, in the
// order of SessionOptions.Files; each one's String is the line rlm repl prints of it.
func (s *Session) Conversions() []Conversion { return s.conversions() }

// Vars are the session's variables as of its last cell, as that cell's ExecResult.Vars listed
// them: none before the first cell, nor while no worker runs (after a cell that was cancelled,
// until the next cell rebuilds the session).
func (s *Session) Vars() []Var { return s.vars() }

// Limits are the model-facing caps the session enforces (per call, per cell, per session):
// SessionOptions.Limits with every zero field replaced by its default (package limits).
func (s *Session) Limits() Limits { return s.s.Limits() }

// Isolation is the worker's confinement: the verdict and one line per layer.
func (s *Session) Isolation() repl.Isolation { return s.s.Isolation() }

// Workspace is the directory the session's code writes to. After Close it is "" when that was
// the default workspace and nothing was written to it (Close removed it).
func (s *Session) Workspace() string { return s.workspace() }

// Close stops the worker and removes the default workspace if nothing was written to it.
// Closing twice is a no-op.
func (s *Session) Close() error { return s.close() }

// ExecResult is the outcome of one cell.
type ExecResult struct {
	Output    string   `json:"output"`    // what the cell printed, capped (Limits.OutputChars)
	Truncated bool     `json:"truncated"` // the output was cut; its marker states the true length
	Final     *string  `json:"final,omitempty"`
	Error     *Failure `json:"error,omitempty"`
	Vars      []Var    `json:"vars"` // the session's variables after the cell
	// Rebuilt is set when the worker died during the cell (or before it) and a new one replayed
	// the earlier cells that ran; Lost says what that replay could not restore.
	Rebuilt bool     `json:"rebuilt,omitempty"`
	Lost    *Failure `json:"lost,omitempty"`
	// Unreplayable is set for a cell that left work running in the background (or that the
	// journal had no room for): a rebuilt session will not have what it did.
	Unreplayable bool `json:"unreplayable,omitempty"`
}

// Var is one variable of a session: its name, and for the first engine.MaxLocals variables its
// type as a model would write it ("[]string", "Map"), a short rendering of its value, and its
// length (characters of a string, elements of a collection; -1 for a value without one, or
// not described). Var.Label is "lines []string(48213)".
type Var = engine.Var

// MaybeServeWorker serves this process as one of rlm's own child processes, and exits, when
// it was started as one; otherwise it returns at once. A program that runs rlm (Ask,
// OpenSession) calls it first thing in main, before flags are parsed:
//
//	func main() {
//		rlm.MaybeServeWorker()
//		// the program itself
//	}
//
// Sessions run their cells in a worker: this executable started again with the hidden argument
// "__worker" (or rlm-worker beside it, when it comes from the same build), which confines
// itself (rlimits, Landlock, seccomp, namespaces) before any interpreter exists. Runs with MaxDepth above 1 start sub-runs the same way ("__subrun").
// Without this call, such a process would run the program's main instead, and the session
// would fail to start.
func MaybeServeWorker() { maybeServeWorker() }
