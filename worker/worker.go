package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
	"github.com/rlm-sandbox/rlm/wire"
)

// Runner is what the worker needs from an engine: run one cell's source (validating it first
// unless validation is off), list the session's variables, sorted, and describe the first
// engine.MaxLocals of them in that order.
type Runner interface {
	Run(ctx context.Context, src []byte, validate bool) engine.Result
	Vars() []string
	Locals() []engine.Var
}

// Setup is what a worker does once before any interpreter exists: apply the confinement layers
// and build the engine. It returns the engine and the isolation report.
type Setup func(cfg Config, host engine.Host) (Runner, Isolation, error)

// Config is the worker's configuration, as the parent sent it.
type Config struct {
	Lang        string
	Validate    bool
	Contexts    []string
	ContextFDs  []int         // inherited descriptors of the context files, in order
	IndexFDs    []int         // inherited descriptors of their indexes, in the same order; none: index them here
	Roots       []wire.Root   // read-only roots: the --root directories, then the context files' directories
	Workspace   *wire.Root    // the only writable directory; nil if there is none
	Limits      engine.Limits // the model-facing caps, effective (no zero fields)
	SoftTimeout time.Duration
	Quota       wire.Quota // zero fields mean the defaults
	Journal     int64      // Options.JournalBytes, for the message of a full journal
	Memory      int64      // Options.WorkerMemory; 0: limits.WorkerMemory

	Hidden []tools.Hidden // directories the file tools never reach (RLM_HOME)

	// API is the session's model API: engine.API and the session's tools (Init.Tools), which the
	// engines declare and the worker passes to the parent.
	API engine.Registry

	// ValidateOnly marks a worker started by repl.Validate: Setup builds no engine, and the
	// worker serves validate requests only.
	ValidateOnly bool
}

// Isolation is the worker's report of the layers it applied.
type Isolation struct {
	Verdict string   // full, degraded(list) or none
	Layers  []string // one line per layer
}

// ServeWith runs the worker side of the protocol on r and w until the parent closes r, with the
// engine and confinement that setup gives. Serve is ServeWith with the real ones; tests give
// their own.
func ServeWith(r io.Reader, w io.Writer, setup Setup) error {
	c := wire.NewConn(r, w)
	first, err := c.Recv()
	if err != nil || first.Op != wire.OpInit || first.Init == nil {
		return fmt.Errorf("worker: expected init, got %q (%v)", first.Op, err)
	}
	if v := first.Init.Version; v != wire.Version {
		err := fmt.Errorf("the parent speaks protocol version %d, this worker %d: they come from different builds", v, wire.Version)
		_ = c.Send(refused(err))
		return err
	}
	cfg := configOf(first.Init)
	if cfg.API, err = engine.WithTools(first.Init.Tools); err != nil {
		_ = c.Send(refused(err))
		return err
	}
	local, err := openLocalTools(cfg)
	if err != nil {
		_ = c.Send(refused(err))
		return err
	}
	wk := &worker{conn: c, local: local, waiting: map[int]chan wire.Call{}, sessionBound: cfg.Journal}
	runner, iso, err := setup(cfg, wk)
	if err != nil {
		_ = c.Send(refused(err))
		return err
	}
	if err := c.Send(ready(iso.Verdict, iso.Layers)); err != nil {
		return err
	}
	return wk.serve(runner, cfg)
}

// ready is the handshake's answer: this worker's protocol version and build, and its verdict.
func ready(verdict string, layers []string) wire.Message {
	build, _ := wire.BuildID()
	return wire.Message{Op: wire.OpReady, Ready: &wire.Ready{Version: wire.Version, Build: build, Isolation: verdict, Layers: layers}}
}

// refused is the answer of a worker that will not serve: the verdict refused, and why.
func refused(err error) wire.Message { return ready("refused", []string{err.Error()}) }

func configOf(m *wire.Init) Config {
	return Config{
		Lang: m.Lang, Validate: m.Validate, Contexts: m.Contexts, ContextFDs: m.ContextFDs, IndexFDs: m.IndexFDs, Roots: m.Roots,
		Workspace: m.Workspace, Hidden: m.Hidden, Limits: m.Limits.Effective(),
		SoftTimeout: time.Duration(m.SoftTimeout) * time.Millisecond, Quota: m.Quota, Journal: m.JournalBytes,
		Memory: m.MemoryBytes, ValidateOnly: m.ValidateOnly,
	}
}

// journalEntry is one host result a replay serves instead of calling again: a file tool's or a
// sub-call's. Key is a digest of the arguments, so a replay serves each call the result of the
// same call (in any order: Go's map iteration differs from run to run), and a call the cell did
// not make the first time is a divergence, never a wrong answer. The parent keeps a cell's
// entries as bytes (wire.Message.Journal) and never decodes them.
type journalEntry struct {
	Name   string          `json:"n"`
	Key    string          `json:"k"`
	Result json.RawMessage `json:"r,omitempty"`
	Err    *wire.Error     `json:"e,omitempty"`
}

// worker is the engine's Host inside the worker process. It serves the functions the registry
// places in the worker (engine.InWorker) and passes the others to the parent. A call whose
// Replay is engine.Rerun (the context tools) is never journaled: a replay recomputes it from
// the same mapped files (the parent checks that the files are unchanged before it replays).
// Every other call, the file tools' and the parent's, is journaled, and during a replay
// answered from the journal.
type worker struct {
	conn  *wire.Conn
	local *localTools // context and file tools served in the worker; nil serves none

	mu      sync.Mutex
	cell    int64 // the running exec's id; 0 between cells
	seq     int   // calls made by the current cell
	log     wire.ToolLog
	journal bytes.Buffer // the current cell's journal entries, comma-separated
	room    [2]int64     // the exec's CellRoom and SessionRoom
	full    string       // set once the journal is full: the error every later journaled call gets
	replay  *replayJournal
	waiting map[int]chan wire.Call
	closed  bool

	sessionBound int64 // Options.JournalBytes
}

func (wk *worker) serve(runner Runner, cfg Config) error {
	execs := make(chan wire.Message)
	errc := make(chan error, 1)
	go wk.read(execs, errc)
	for {
		select {
		case m := <-execs:
			var reply wire.Message
			switch {
			case m.Op == wire.OpValidate:
				reply = validateCell(cfg, m)
			case runner == nil:
				reply = wire.Message{Op: wire.OpResult, ID: m.ID, Result: &wire.Result{Err: wire.ErrorOf(fault.New(fault.Logic, "this worker only validates"))}}
			default:
				res, journal, log := wk.runCell(runner, cfg, m)
				reply = wire.Message{Op: wire.OpResult, ID: m.ID, Result: res, Journal: journal, Tools: log}
			}
			if err := wk.conn.Send(reply); err != nil {
				return err
			}
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// read dispatches incoming lines: execs to the serve loop, replies to waiting calls.
func (wk *worker) read(execs chan<- wire.Message, errc chan<- error) {
	for {
		m, err := wk.conn.Recv()
		if err != nil {
			wk.closeWaiting()
			errc <- err
			return
		}
		switch m.Op {
		case wire.OpExec, wire.OpValidate:
			execs <- m
		case wire.OpReply:
			wk.deliver(m.ID, m.Call)
		case wire.OpShutdown:
			wk.closeWaiting()
			errc <- io.EOF
			return
		}
	}
}

func (wk *worker) runCell(runner Runner, cfg Config, m wire.Message) (*wire.Result, json.RawMessage, *wire.ToolLog) {
	rj, err := parseJournal(m.Journal)
	if err != nil {
		return &wire.Result{Err: wire.ErrorOf(fault.Wrap(fault.Logic, err, "replay"))}, nil, nil
	}
	wk.mu.Lock()
	wk.cell, wk.seq, wk.log, wk.full = m.ID, 0, wire.ToolLog{}, ""
	wk.journal.Reset()
	wk.room = [2]int64{m.CellRoom, m.SessionRoom}
	wk.replay = nil
	if m.Replay {
		wk.replay = rj
	}
	wk.mu.Unlock()
	ctx := context.Background()
	if cfg.SoftTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cfg.SoftTimeout, engine.TimeLimit(cfg.SoftTimeout))
		defer cancel()
	}
	before := interpreterGoroutines()
	r := runner.Run(ctx, []byte(m.Code), cfg.Validate)
	bg := leftRunning(before)
	vars := runner.Vars()
	var locals []engine.Var
	if !bg { // goroutines the cell left could be changing the values as they are read
		locals = runner.Locals()
	}
	wk.mu.Lock()
	defer wk.mu.Unlock()
	wk.cell, wk.replay = 0, nil
	var journal json.RawMessage
	if wk.journal.Len() > 0 && !m.Replay {
		journal = append(append([]byte{'['}, wk.journal.Bytes()...), ']')
	}
	log := wk.log
	// A cell that left goroutines running asks for a new worker: that is the one way to stop
	// them, so that they cannot print into, or call tools during, a later cell.
	if wk.local != nil {
		r.Stdout += wk.local.hints.take()
	}
	return &wire.Result{
		Stdout: r.Stdout, Truncated: r.Truncated, Final: finalValue(r.Final),
		Err: wire.ErrorOf(r.Err), Vars: vars, Locals: locals, Background: bg, Rebuild: r.Rebuild || bg,
		NotRun: r.NotRun,
	}, journal, &log
}

func finalValue(f *engine.Final) *string {
	if f == nil {
		return nil
	}
	v := f.Value
	return &v
}

// Call implements engine.Host for the engine running in this worker.
func (wk *worker) Call(ctx context.Context, name string, args []any) (any, error) {
	wk.mu.Lock()
	cell, seq := wk.cell, wk.seq
	wk.seq++
	rj := wk.replay
	wk.mu.Unlock()
	if cell == 0 {
		return nil, fault.New(fault.Logic, "%s was called while no cell was running, by a goroutine an earlier cell left behind; wait for your goroutines (sync.WaitGroup) before a cell ends", name)
	}
	f, _ := engine.Lookup(name)
	var v any
	var err error
	switch {
	case f.Place == engine.InWorker && f.Replay == engine.Rerun && wk.local != nil:
		v, _, err = wk.local.call(name, args)
	case rj != nil:
		wk.local.replayed(f) // a rebuilt worker's file-call budget counts the replayed calls
		v, err = rj.serve(name, args)
	default:
		v, err = wk.journaled(ctx, cell, seq, name, args)
	}
	wk.logCall(cell, name, args, v, err)
	return v, err
}

// journaled makes a call whose result a replay cannot recompute, and keeps the result in the
// cell's journal, within the exec's rooms.
func (wk *worker) journaled(ctx context.Context, cell int64, seq int, name string, args []any) (any, error) {
	wk.mu.Lock()
	full := wk.full
	wk.mu.Unlock()
	if full != "" {
		return nil, fault.New(fault.Limit, "%s", full)
	}
	var v any
	var err error
	handled := false
	if wk.local != nil {
		v, handled, err = wk.local.call(name, args)
	}
	if !handled {
		v, err = wk.remote(ctx, cell, seq, name, args)
	}
	if kerr := wk.keep(cell, name, args, v, err); kerr != nil {
		return nil, kerr
	}
	return v, err
}

// keep appends a call's outcome to the cell's journal. A result that does not fit the rooms is
// dropped, the journal is closed with a marker, and the call fails with a limit error, as does
// every later journaled call of the cell (a replay serves the same error from the marker).
func (wk *worker) keep(cell int64, name string, args []any, v any, callErr error) error {
	e := journalEntry{Name: name, Key: argsKey(name, args), Err: wire.ErrorOf(callErr)}
	if callErr == nil {
		raw, err := json.Marshal(v)
		if err != nil {
			return fault.Wrap(fault.Logic, err, name+": the result cannot be journaled")
		}
		e.Result = raw
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fault.Wrap(fault.Logic, err, name+": the result cannot be journaled")
	}
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.cell != cell {
		return nil
	}
	used := int64(wk.journal.Len() + len(b) + 3)
	if used <= wk.room[0] && used <= wk.room[1] {
		wk.appendEntry(b)
		return nil
	}
	if wk.room[0] < wk.room[1] {
		wk.full = roomMessage(name, true, wk.room[0])
	} else {
		wk.full = roomMessage(name, false, wk.sessionBound)
	}
	marker, _ := json.Marshal(journalEntry{Name: overflowName, Err: wire.Errorf(fault.Limit, "%s", wk.full)})
	wk.appendEntry(marker)
	return fault.New(fault.Limit, "%s", wk.full)
}

func (wk *worker) appendEntry(b []byte) {
	if wk.journal.Len() > 0 {
		wk.journal.WriteByte(',')
	}
	wk.journal.Write(b)
}

// overflowName marks the end of a journal that ran out of room.
const overflowName = "*"

// roomMessage is the error of a call whose result does not fit the journal: the one place it is
// written.
func roomMessage(name string, perCell bool, room int64) string {
	if perCell {
		return fmt.Sprintf("%s: this cell's file-tool and sub-call results passed %s, the most one cell keeps to rebuild the session after a crash; do the work in smaller cells: grep first, read only what matches, and print summaries", name, sizeText(room))
	}
	return fmt.Sprintf("%s: the session's file-tool and sub-call results passed %s, the most a session keeps to rebuild itself after a crash; no more fit: answer from what you have found, or start a new session", name, sizeText(room))
}

// sizeText writes a byte count for people: "8 MiB", "512 KiB", "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// argsKey is a digest of a call's name and arguments (as JSON, whose object keys are sorted).
func argsKey(name string, args []any) string {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	_ = json.NewEncoder(h).Encode(args)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// remote asks the parent and waits for its reply or the end of the cell.
func (wk *worker) remote(ctx context.Context, cell int64, seq int, name string, args []any) (any, error) {
	ch := make(chan wire.Call, 1)
	wk.mu.Lock()
	closed := wk.closed
	if !closed {
		wk.waiting[seq] = ch
	}
	wk.mu.Unlock()
	if closed {
		return nil, fault.New(fault.Crashed, "the session is closing")
	}
	defer func() {
		wk.mu.Lock()
		delete(wk.waiting, seq)
		wk.mu.Unlock()
	}()
	if err := wk.conn.Send(wire.Message{Op: wire.OpCall, ID: cell, Call: &wire.Call{Seq: seq, Name: name, Args: args}}); err != nil {
		return nil, err
	}
	select {
	case got := <-ch:
		if got.Err != nil {
			return nil, got.Err.Err()
		}
		return got.Result, nil
	case <-ctx.Done():
		return nil, fault.Wrap(fault.Timeout, ctx.Err(), name+" interrupted by the cell deadline")
	}
}

// logCall counts the call, and logs it in full if it is among the cell's first wire.MaxLoggedCalls.
func (wk *worker) logCall(cell int64, name string, args []any, v any, err error) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.cell != cell {
		return
	}
	if wk.log.Counts == nil {
		wk.log.Counts = map[string]int{}
	}
	wk.log.Counts[name]++
	if len(wk.log.Calls) >= wire.MaxLoggedCalls {
		return
	}
	cut := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = wire.Cut(s)
		}
		cut[i] = a
	}
	c := wire.Call{Seq: len(wk.log.Calls), Name: name, Args: cut, Err: cutError(err)}
	if err == nil {
		if s, ok := v.(string); ok {
			v = wire.Cut(s) // before encoding: a text(ctx) result is up to 32M characters
		}
		res, _ := json.Marshal(v)
		c.Result = wire.Cut(string(res))
	}
	wk.log.Calls = append(wk.log.Calls, c)
}

// replayJournal serves a replayed cell's journaled calls: by name and argument digest, each
// recorded result once, in the order recorded.
type replayJournal struct {
	byKey    map[string][]journalEntry
	overflow error // the error of calls past a full journal, if the cell ran out of room
}

func parseJournal(raw json.RawMessage) (*replayJournal, error) {
	rj := &replayJournal{byKey: map[string][]journalEntry{}}
	if len(raw) == 0 {
		return rj, nil
	}
	var entries []journalEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("the journal is unreadable: %w", err)
	}
	for _, e := range entries {
		if e.Name == overflowName {
			rj.overflow = e.Err.Err()
			continue
		}
		rj.byKey[e.Name+"\x00"+e.Key] = append(rj.byKey[e.Name+"\x00"+e.Key], e)
	}
	return rj, nil
}

// serve answers a replayed call from the journal; a call the cell did not make the first time is
// a divergence.
func (rj *replayJournal) serve(name string, args []any) (any, error) {
	k := name + "\x00" + argsKey(name, args)
	q := rj.byKey[k]
	if len(q) == 0 {
		if rj.overflow != nil {
			return nil, rj.overflow
		}
		return nil, fault.New(fault.Logic, "replay diverged: the cell called %s with arguments it did not use the first time", name)
	}
	e := q[0]
	rj.byKey[k] = q[1:]
	if e.Err != nil {
		return nil, e.Err.Err()
	}
	var v any
	if len(e.Result) > 0 {
		d := json.NewDecoder(bytes.NewReader(e.Result))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fault.Wrap(fault.Logic, err, "replay: a journaled result is unreadable")
		}
	}
	return plainNumbers(v), nil
}

// plainNumbers turns json.Number into int64 (or float64), as the engines' plain data has it.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = plainNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plainNumbers(x[k])
		}
	}
	return v
}

// cutError is err for the tool log: its kind, and its message cut to wire.LoggedChars.
func cutError(err error) *wire.Error {
	e := wire.ErrorOf(err)
	if e != nil {
		e.Message = wire.Cut(e.Message)
	}
	return e
}

func (wk *worker) deliver(cell int64, c *wire.Call) {
	if c == nil {
		return
	}
	wk.mu.Lock()
	var ch chan wire.Call
	if cell == wk.cell {
		ch = wk.waiting[c.Seq]
		delete(wk.waiting, c.Seq)
	}
	wk.mu.Unlock()
	if ch != nil {
		ch <- *c
	}
}

func (wk *worker) closeWaiting() {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	wk.closed = true
	for seq, ch := range wk.waiting {
		ch <- wire.Call{Seq: seq, Err: wire.Errorf(fault.Crashed, "the session is closing")}
		delete(wk.waiting, seq)
	}
}
