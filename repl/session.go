package repl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// Options configures a Session. The zero value is safe: Go, validation on, the default limits,
// and no host calls served by the parent.
type Options struct {
	Lang      string   // "go" (default) or "js"
	Contexts  []string // context files, readable by the worker; their directories are read roots
	Roots     []string // further read-only roots (directories) for the file tools
	Workspace string   // the only writable directory (write_file); relative paths resolve in it
	// Home is RLM_HOME: the file tools never reach it, whatever the roots, except the workspace
	// when it lies inside it (tools.HiddenDir). "" hides nothing.
	Home string

	CellTimeout time.Duration // soft deadline per cell (default 120 s): the engine interrupts itself
	KillGrace   time.Duration // the hard deadline is CellTimeout+KillGrace (default 1 s): SIGKILL
	// Limits are the model-facing caps the session enforces: per call (peek, search, chunk,
	// text, read_file, grep, write_file), per cell (output, FINAL) and per session (file-tool
	// calls). Zero fields mean their defaults (package limits). SubCalls, Batches and BatchWidth are
	// enforced by whoever serves llm_query (the controller), not by the session.
	Limits     engine.Limits
	NoValidate bool // run cells without the validator, to test the lower layers alone

	AllowDegraded bool        // run even below the minimum confinement (the worker refuses otherwise)
	Unconfined    bool        // start the worker without the sandbox layers (tests of the upper layers only)
	Host          engine.Host // serves the worker's host calls (llm_query, the session's tools); nil refuses them
	// API is the session's model API (engine.WithTools): engine.API and the session's own
	// tools, which the worker's engines declare and Host serves. nil is engine.API.
	API engine.Registry

	MaxRestarts   int           // deaths within RestartWindow before the session is degraded (default 5)
	RestartWindow time.Duration // default 30 min
	MaxBackoff    time.Duration // cap of the restart backoff min(2^n s, cap) (default 300 s)

	// The journal keeps what a new worker needs to rebuild the session's state: the code of
	// every cell that ran (failed ones too) and the host results a replay cannot recompute
	// (file tools and sub-calls; context tools are recomputed). A call whose result would take
	// a cell past CellJournalBytes (default 8 MiB), or the session past JournalBytes (default
	// 64 MiB), fails with a limit error that says so.
	JournalBytes     int64
	CellJournalBytes int64

	Quota WorkspaceQuota // what write_file may leave in the workspace (default 256 MiB, 10,000 entries)

	// WorkerMemory is the worker process's memory cap in bytes (sandbox.Config.MemoryBytes;
	// default limits.WorkerMemory, 512 MiB). Unconfined workers are not capped.
	WorkerMemory int64

	Worker WorkerCommand // how to start a worker (default: this executable, "__worker")

	validateOnly bool // set by Validate: a worker without an engine

	// Indexes gives each context file its index, which the worker receives instead of
	// scanning the file itself: built once per input and kept in memory (and on disk, if it
	// has a directory). nil builds each index when the session opens.
	Indexes *tools.Indexes
}

// WorkspaceQuota bounds what write_file may leave in the workspace; zero means the default.
type WorkspaceQuota struct {
	Bytes   int64 // bytes of regular files (default limits.WorkspaceBytes)
	Entries int   // files, directories and links (default limits.WorkspaceEntries)
}

const workerStartTimeout = 10 * time.Second

// WithDefaults returns o with every zero field filled in from package limits, as Open does; a
// caller that states the session's values (the controller's system prompt) resolves them here.
func (o Options) WithDefaults() Options {
	if o.Lang == "" {
		o.Lang = "go"
	}
	if o.CellTimeout <= 0 {
		o.CellTimeout = limits.CellTimeout
	}
	if o.KillGrace <= 0 {
		o.KillGrace = limits.KillGrace
	}
	o.Limits = o.Limits.Effective()
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = limits.MaxRestarts
	}
	if o.RestartWindow <= 0 {
		o.RestartWindow = limits.RestartWindow
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = limits.RestartMaxBackoff
	}
	if o.JournalBytes <= 0 {
		o.JournalBytes = limits.JournalBytes
	}
	if o.CellJournalBytes <= 0 {
		o.CellJournalBytes = limits.CellJournalBytes
	}
	return o
}

// Isolation is a worker's report of the confinement layers it applied.
type Isolation struct {
	Verdict string   // full, degraded(list) or none
	Layers  []string // one line per layer
}

// Result is the outcome of one cell.
type Result struct {
	Stdout    string
	Truncated bool
	Final     *string  // the FINAL value, serialised host-side
	Err       error    // nil, or an error of a fault kind; for rejections, the validator's findings
	Vars      []string // the session's variables after the cell, sorted
	// Locals describe the first MaxLocals of Vars, in the same order (Locals[i].Name ==
	// Vars[i]): type, a short rendering and length, each bounded (see Var).
	Locals []Var

	// Rebuilt is set when a new worker replayed the journal of earlier cells that ran: the
	// worker died during this cell (or before it). Lost is set when that replay did not restore
	// everything, with why and which variables are gone.
	Rebuilt bool
	Lost    error

	// Unreplayable is set when the cell left work running in the background (goroutines): the
	// worker was replaced to stop it (Rebuilt), so the cell's output and FINAL stand but its
	// changes to the session's state are gone. It is also set for a cell the journal had no
	// room for: a rebuilt session will not have what it did.
	Unreplayable bool

	// Deaths is set when the worker died during this cell (or before it): the deaths within
	// Options.RestartWindow, this one included. RestartsLeft is how many more the session
	// survives; one more past that and the session is degraded for good.
	Deaths, RestartsLeft int

	// Tools lists the cell's first host calls (peek, search, read_file, llm_query, ...), in
	// order, for audit trails: at most 100, long arguments and results cut. ToolCounts counts
	// every host call of the cell, by name.
	Tools      []ToolCall
	ToolCounts map[string]int

	notRun bool // the cell failed before any of it ran: the journal need not keep it
}

// Kept reports whether the journal keeps the cell, so that a rebuild after a worker death
// replays it: a cell that ran, to its end or to an error of its own, and that left nothing
// running. A cell stopped by a deadline, its caller or a death is not kept, and what it did is
// lost when the worker is replaced. Of a cell during which the worker was replaced (Rebuilt),
// nothing is left to keep, whatever Kept says.
func (r Result) Kept() bool {
	_, ok := replayable(r.Err)
	return ok && !r.notRun && !r.Unreplayable
}

// ToolCall is one host call of a cell, as recorded for the audit trail.
type ToolCall struct {
	Name   string
	Args   []any  // strings cut to wire.LoggedChars characters
	Result string // the result as JSON, cut to wire.LoggedChars characters
	Err    string
}

// Session is a REPL session backed by one confined worker at a time.
type Session struct {
	opts Options

	mu       sync.Mutex
	w        *workerProc
	journal  journal
	deaths   []time.Time
	degraded error
	nextID   int64
	cells    int // the cells Exec was given, which numbers them in messages
	iso      Isolation
	in       *inherited // the context files and roots, open for the session's lifetime
}

// Open starts a session and its first worker.
func Open(ctx context.Context, opts Options) (*Session, error) {
	s := &Session{opts: opts.WithDefaults()}
	if s.opts.Lang != "go" && s.opts.Lang != "js" {
		return nil, fmt.Errorf("unknown language %q: use go or js", s.opts.Lang)
	}
	in, err := openInherited(s.opts)
	if err != nil {
		return nil, err
	}
	s.in = in
	if err := s.start(ctx); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

func (s *Session) closeFiles() {
	if s.in != nil {
		s.in.close()
	}
}

// Limits are the model-facing caps the session enforces: Options.Limits with every zero field
// replaced by its default.
func (s *Session) Limits() engine.Limits { return s.opts.Limits }

// Isolation reports the confinement layers of the current worker.
func (s *Session) Isolation() Isolation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.iso
}

func (s *Session) start(ctx context.Context) error {
	w, ready, err := startWorker(ctx, s.opts, s.in)
	if err != nil {
		return err
	}
	s.w, s.iso = w, Isolation{Verdict: ready.Isolation, Layers: ready.Layers}
	// Below the minimum the worker itself refuses; a worker with no layers at all is refused here.
	if ready.Isolation == "none" && !s.opts.AllowDegraded {
		w.kill()
		s.w = nil
		return fault.New(fault.Denied, "the worker runs with no confinement layers; refusing to run untrusted code (pass --allow-degraded to run anyway)")
	}
	return nil
}

// Exec runs one cell. A failing cell never loses earlier state. Everything Exec does ends with
// ctx: the cell, and the rebuild of the session's state after a worker death. A cell stopped
// through ctx (Ctrl-C, a signal, the caller's deadline) returns at once; the next Exec rebuilds
// the state first, under its own ctx.
func (s *Session) Exec(ctx context.Context, code string) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cells++
	cell := s.cells
	if s.degraded != nil {
		return Result{Err: s.degraded}
	}
	var pre Result
	if s.w != nil && s.w.dead() {
		s.w = nil
		if err := s.died(&pre, fault.New(fault.Crashed, "the worker died between cells")); err != nil {
			pre.Err = err
			return pre
		}
	}
	if s.w == nil {
		rec := s.rebuild(ctx)
		pre.Rebuilt, pre.Lost = rec.Rebuilt, rec.Lost
		if s.w == nil {
			pre.Err = rec.Err
			if pre.Err == nil {
				pre.Err, pre.Lost = pre.Lost, nil
			}
			return pre
		}
	}
	s.nextID++
	start, before := time.Now(), s.w.vars
	res, calls, death := s.w.exec(ctx, execReq{id: s.nextID, code: code, room: s.journal.rooms(s.opts, code)}, s.opts)
	res.Deaths, res.RestartsLeft = pre.Deaths, pre.RestartsLeft
	if death == nil {
		e := entry{cell: cell, code: code, calls: calls, took: time.Since(start), vars: res.Vars, added: missing(res.Vars, before)}
		s.journal.keep(s.opts, e, &res)
		res.Rebuilt, res.Lost = pre.Rebuilt, pre.Lost
		return res
	}
	s.w.killWait()
	s.w = nil
	if !errors.Is(death, errRebuild) {
		res.Err = death
		if ctx.Err() != nil {
			return res // stopped on purpose: not a death; the next Exec rebuilds
		}
	}
	if err := s.died(&res, death); err != nil {
		res.Lost = err
		return res
	}
	if ctx.Err() != nil {
		return res
	}
	rec := s.rebuild(ctx)
	res.Rebuilt, res.Lost = rec.Rebuilt, rec.Lost
	if rec.Err != nil && res.Lost == nil {
		res.Lost = rec.Err
	}
	return res
}

// died records a worker death and applies the restart policy: past MaxRestarts deaths within
// RestartWindow the session is degraded, and the error says so. It sets res.Deaths and
// res.RestartsLeft.
func (s *Session) died(res *Result, death error) error {
	now := time.Now()
	s.deaths = append(s.deaths, now)
	recent := s.recentDeaths(now)
	res.Deaths, res.RestartsLeft = recent, max(s.opts.MaxRestarts-recent, 0)
	if recent > s.opts.MaxRestarts {
		s.degraded = fault.New(fault.Crashed, "the worker died %d times in %v; the session is degraded and will not restart it (last: %v)", recent, s.opts.RestartWindow, death)
		return s.degraded
	}
	return nil
}

// recentDeaths counts the deaths within RestartWindow of now, forgetting older ones.
func (s *Session) recentDeaths(now time.Time) int {
	kept := s.deaths[:0]
	for _, t := range s.deaths {
		if now.Sub(t) <= s.opts.RestartWindow {
			kept = append(kept, t)
		}
	}
	s.deaths = kept
	return len(kept)
}

// rebuild starts a new worker, after the restart backoff, and replays the journal. Everything
// ends with ctx. The Result carries Rebuilt and Lost, or Err when no worker runs afterwards.
func (s *Session) rebuild(ctx context.Context) Result {
	if err := sleepCtx(ctx, backoff(s.recentDeaths(time.Now()), s.opts.MaxBackoff)); err != nil {
		return Result{Err: fault.Stopped(ctx, "waiting to restart the worker")}
	}
	if err := s.start(ctx); err != nil {
		return Result{Err: err}
	}
	return s.replay(ctx)
}

// backoff is 0 for the first death in the window, then min(2^(n-2) s, max): 1 s, 2 s, 4 s, ...
func backoff(deaths int, max time.Duration) time.Duration {
	if deaths <= 1 {
		return 0
	}
	d := time.Second << min(deaths-2, 20)
	return min(d, max)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// replay re-runs the journal in the fresh worker, serving the recorded host results; context
// tools are recomputed from the context files, which must not have changed. A cell whose replay
// would not end before ctx's deadline is not replayed; a cell that failed must fail the same way
// again. On any other outcome the journal keeps the prefix that replayed, and Lost says what was
// lost. When ctx ends during the replay, the worker is stopped, the journal is kept whole, and
// Err says that the next cell rebuilds again.
func (s *Session) replay(ctx context.Context) Result {
	if len(s.journal.entries) > 0 {
		if err := s.in.unchanged(); err != nil {
			return Result{Lost: s.journal.dropFrom(0, err)}
		}
	}
	for i := 0; i < len(s.journal.entries); i++ {
		e := s.journal.entries[i]
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < e.took {
			why := fmt.Errorf("cell %d took %v to run, and only %v remain before the deadline", e.cell, e.took.Round(time.Millisecond), max(time.Until(dl), 0).Round(time.Millisecond))
			return Result{Rebuilt: i > 0, Lost: s.journal.dropFrom(i, why)}
		}
		s.nextID++
		res, _, death := s.w.exec(ctx, execReq{id: s.nextID, code: e.code, replay: true, journal: e.calls}, s.opts)
		if ctx.Err() != nil {
			s.w.killWait()
			s.w = nil
			return Result{Err: fault.Stopped(ctx, fmt.Sprintf("rebuilding the session's state was stopped at cell %d; the next cell rebuilds it again", e.cell))}
		}
		if death != nil {
			// The cell killed the new worker too: drop it, so the next rebuild gets past it.
			s.w.killWait()
			s.w = nil
			lost := fmt.Errorf("replaying cell %d killed the worker, so it was dropped from the journal: %w", e.cell, death)
			s.journal.drop(i)
			var r Result
			if err := s.died(&r, death); err != nil {
				lost = err
			}
			return Result{Rebuilt: i > 0, Lost: lost}
		}
		if err := replayedAs(e, res); err != nil {
			return Result{Rebuilt: i > 0, Lost: s.journal.dropRan(i, err, res.Vars)}
		}
	}
	return Result{Rebuilt: true}
}

// replayedAs says why a replay of e that ended with res did not end as e did, or nil if it did:
// it ran (a cell that ran when it was first run), it ended with no error or, for a cell that
// failed, with an error of the same kind at the same position, and it introduced the
// variables e did.
func replayedAs(e entry, res Result) error {
	err := res.Err
	switch {
	case err == nil && e.failed != "":
		return fmt.Errorf("cell %d failed (%s) when it ran, and its replay did not", e.cell, e.failed)
	case err != nil && e.failed == "":
		return fmt.Errorf("replaying cell %d failed: %w", e.cell, err)
	case err != nil && (res.notRun || fault.KindOf(err) != e.failed || where(err) != e.failedAt):
		return fmt.Errorf("replaying cell %d, which failed when it ran (%s at %s), failed otherwise: %w", e.cell, e.failed, cmp.Or(e.failedAt, "no position"), err)
	}
	if gone := missing(e.added, res.Vars); len(gone) > 0 {
		return fmt.Errorf("replaying cell %d did not bring back %s, which it introduced when it ran", e.cell, strings.Join(gone, ", "))
	}
	return nil
}

// Var is one of the session's variables as a cell left it: its name, its type as a model would
// write it ("[]string", "Map"), a short rendering of its value and its length.
type Var = engine.Var

// Locals returns the descriptions of the session's variables as of the last cell (see
// Result.Locals).
func (s *Session) Locals() []Var {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return nil
	}
	return s.w.locals
}

// Vars returns the session's variables as of the last cell.
func (s *Session) Vars() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return nil
	}
	return s.w.vars
}

// Close stops the worker.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		s.w.shutdown()
		s.w = nil
	}
	s.closeFiles()
	return nil
}

// WorkerCommand says how to start a worker process. The zero value runs rlm-worker from beside
// this executable when it is there, trustworthy and of this build (DefaultWorker says whether),
// and this executable with the argument "__worker" otherwise.
type WorkerCommand struct {
	Path string   // default: this binary (/proc/self/exe on Linux, reachable even by an unprivileged worker)
	Args []string // default: ["__worker"]
	Env  []string // extra environment entries; the worker otherwise gets only PATH
}

// isDefault reports whether c is the zero WorkerCommand, which may run rlm-worker.
func (c WorkerCommand) isDefault() bool { return c.Path == "" && c.Args == nil && c.Env == nil }

func (c WorkerCommand) resolve() WorkerCommand {
	if c.Path == "" {
		c.Path = selfExe()
	}
	if c.Args == nil {
		c.Args = []string{"__worker"}
	}
	return c
}

// errWorkerGone is returned for calls on a dead worker.
var errWorkerGone = errors.New("worker is gone")

// errRebuild marks a cell after which the worker was replaced on purpose.
var errRebuild = errors.New("the worker was replaced to free what the failed cell left behind")
