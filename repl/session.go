package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// Options configures a Session. The zero value is safe: Go, validation on, the default limits,
// and no host calls served by the parent.
type Options struct {
	Lang      string   // "go" (default) or "js"
	Contexts  []string // context files, readable by the worker; their directories are read roots
	Roots     []string // further read-only roots (directories) for the file tools
	Workspace string   // the only writable directory (write_file); relative paths resolve in it

	CellTimeout time.Duration // soft deadline per cell (default 120 s): the engine interrupts itself
	KillGrace   time.Duration // the hard deadline is CellTimeout+KillGrace (default 1 s): SIGKILL
	OutputCap   int           // characters of output per cell (default engine.OutputCap)
	NoValidate  bool          // run cells without the validator, to test the lower layers alone

	AllowDegraded bool        // run even below the minimum confinement (the worker refuses otherwise)
	Unconfined    bool        // start the worker without the sandbox layers (tests of the upper layers only)
	Host          engine.Host // serves the worker's host calls (llm_query); nil refuses them

	MaxRestarts   int           // deaths within RestartWindow before the session is degraded (default 5)
	RestartWindow time.Duration // default 30 min
	MaxBackoff    time.Duration // cap of the restart backoff min(2^n s, cap) (default 300 s)

	Worker WorkerCommand // how to start a worker (default: this executable, "__worker")

	// DeferRebuild leaves the worker of a cell that ended with its context (cancelled, or past
	// the context's deadline) dead: the next Exec rebuilds it. For callers that cancel to stop
	// (rlm run), not to interrupt and go on (rlm repl): the replay would delay the stop.
	DeferRebuild bool
}

// Defaults.
const (
	DefaultCellTimeout   = 120 * time.Second
	DefaultKillGrace     = time.Second
	DefaultMaxRestarts   = 5
	DefaultRestartWindow = 30 * time.Minute
	DefaultMaxBackoff    = 300 * time.Second
	workerStartTimeout   = 10 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Lang == "" {
		o.Lang = "go"
	}
	if o.CellTimeout <= 0 {
		o.CellTimeout = DefaultCellTimeout
	}
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	if o.OutputCap <= 0 {
		o.OutputCap = engine.OutputCap
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = DefaultMaxRestarts
	}
	if o.RestartWindow <= 0 {
		o.RestartWindow = DefaultRestartWindow
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	return o
}

// Result is the outcome of one cell.
type Result struct {
	Stdout    string
	Truncated bool
	Final     *string // the FINAL value, serialised host-side
	Err       error   // nil, or an error of a fault kind; for rejections, the validator's findings
	Vars      []string

	// Rebuilt is set when the worker died during this cell and a new worker replayed the
	// journal of earlier successful cells. Lost is set when that replay failed, with why.
	Rebuilt bool
	Lost    error

	// Unreplayable is set when the cell left work running in the background (goroutines): it is
	// kept out of the journal, so a rebuilt session will not have what it did.
	Unreplayable bool

	// Tools lists the host calls the cell made (peek, search, read_file, llm_query, ...), in
	// order, for audit trails. Long arguments and results are cut.
	Tools []ToolCall
}

// ToolCall is one host call of a cell, as recorded for the journal.
type ToolCall struct {
	Name   string
	Args   []any  // strings cut to toolTextCap characters
	Result string // the result as JSON, cut to toolTextCap characters
	Err    string
}

const toolTextCap = 200

func toolCalls(calls []call) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		args := make([]any, len(c.Args))
		for j, a := range c.Args {
			if str, ok := a.(string); ok {
				a = cutText(str)
			}
			args[j] = a
		}
		res, _ := json.Marshal(c.Result)
		out[i] = ToolCall{Name: c.Name, Args: args, Result: cutText(string(res)), Err: c.Err}
	}
	return out
}

func cutText(s string) string {
	r := []rune(s)
	if len(r) <= toolTextCap {
		return s
	}
	return string(r[:toolTextCap]) + "…"
}

// Session is a REPL session backed by one confined worker at a time.
type Session struct {
	opts Options

	mu       sync.Mutex
	w        *workerProc
	journal  []entry
	deaths   []time.Time
	degraded error
	nextID   int64
	iso      Isolation
	in       *inherited // the context files and roots, open for the session's lifetime
}

// entry is one successful cell and the host results it consumed.
type entry struct {
	code  string
	calls []call
}

// Open starts a session and its first worker.
func Open(ctx context.Context, opts Options) (*Session, error) {
	s := &Session{opts: opts.withDefaults()}
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
		return fault.New(fault.Denied, "the worker runs with no confinement layers; refusing to run untrusted code (pass --allow-degraded to run anyway)")
	}
	return nil
}

// Exec runs one cell. A failing cell never loses earlier state.
func (s *Session) Exec(ctx context.Context, code string) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.degraded != nil {
		return Result{Err: s.degraded}
	}
	var pre Result
	if s.w != nil && s.w.dead() {
		s.w = nil
	}
	if s.w == nil { // the last worker died between cells
		if pre = s.recover(ctx, nil); pre.Err != nil {
			return pre
		}
	}
	s.nextID++
	res, calls, death := s.w.exec(ctx, s.nextID, code, false, nil, s.opts)
	res.Tools = toolCalls(calls)
	if errors.Is(death, errRebuild) { // the cell failed and left the engine unusable
		rec := s.recover(context.WithoutCancel(ctx), nil)
		res.Rebuilt, res.Lost = rec.Rebuilt, rec.Lost
		if rec.Err != nil && res.Lost == nil {
			res.Lost = rec.Err
		}
		return res
	}
	if death != nil && s.opts.DeferRebuild && ctx.Err() != nil {
		s.w.killWait()
		s.w = nil
		res.Err = death
		return res
	}
	if death != nil {
		// Rebuilding is not part of the cell: a cancelled cell (Ctrl-C) still gets its state back.
		rec := s.recover(context.WithoutCancel(ctx), death)
		res.Err, res.Rebuilt, res.Lost = death, rec.Rebuilt, rec.Lost
		if rec.Err != nil && res.Lost == nil {
			res.Lost = rec.Err
		}
		return res
	}
	if res.Err == nil && !res.Unreplayable {
		s.journal = append(s.journal, entry{code: code, calls: calls})
	}
	res.Rebuilt, res.Lost = pre.Rebuilt, pre.Lost
	return res
}

// recover records a worker death, applies the restart policy, starts a new worker and replays the
// journal. The returned Result carries Rebuilt/Lost, or Err when no worker could be started.
func (s *Session) recover(ctx context.Context, death error) Result {
	if s.w != nil {
		s.w.kill()
		s.w = nil
	}
	now := time.Now()
	s.deaths = append(s.deaths, now)
	recent := 0
	for _, t := range s.deaths {
		if now.Sub(t) <= s.opts.RestartWindow {
			recent++
		}
	}
	if recent > s.opts.MaxRestarts {
		s.degraded = fault.New(fault.Crashed, "the worker died %d times in %v; the session is degraded and will not restart it (last: %v)", recent, s.opts.RestartWindow, death)
		return Result{Err: s.degraded}
	}
	if err := sleepCtx(ctx, backoff(recent, s.opts.MaxBackoff)); err != nil {
		return Result{Err: fault.Wrap(fault.Timeout, err, "waiting to restart the worker")}
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
		return nil
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

// replay re-runs the journal in a fresh worker, serving recorded host results. On failure the
// journal keeps the prefix that replayed, and Lost says what was lost.
func (s *Session) replay(ctx context.Context) Result {
	for i, e := range s.journal {
		s.nextID++
		res, _, death := s.w.exec(ctx, s.nextID, e.code, true, e.calls, s.opts)
		err := death
		if err == nil {
			err = res.Err
		}
		if death != nil {
			// The cell killed the new worker too: drop it, so the next rebuild gets past it.
			lost := fmt.Errorf("replaying cell %d of %d killed the worker, so it was dropped from the journal: %w", i+1, len(s.journal), death)
			s.journal = append(s.journal[:i:i], s.journal[i+1:]...)
			s.w.kill()
			s.w = nil
			return Result{Rebuilt: i > 0, Lost: lost}
		}
		if err != nil {
			lost := fmt.Errorf("state rebuilt up to cell %d of %d; replaying cell %d failed: %w", i, len(s.journal), i+1, err)
			s.journal = s.journal[:i]
			return Result{Rebuilt: i > 0, Lost: lost}
		}
	}
	return Result{Rebuilt: true}
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

// WorkerCommand says how to start a worker process.
type WorkerCommand struct {
	Path string   // default: /proc/self/exe (this binary, reachable even by an unprivileged worker)
	Args []string // default: ["__worker"]
	Env  []string // extra environment entries; the worker otherwise gets only PATH
}

func (c WorkerCommand) resolve() WorkerCommand {
	if c.Path == "" {
		c.Path = "/proc/self/exe"
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
