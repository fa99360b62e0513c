package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// Runner is what the worker needs from an engine: run one cell's source (validating it first
// unless validation is off) and list the session's variables.
type Runner interface {
	Run(ctx context.Context, src []byte, validate bool) engine.Result
	Vars() []string
}

// Setup is what a worker does once before any interpreter exists: apply the confinement layers
// and build the engine. It returns the engine and the isolation report.
type Setup func(cfg WorkerConfig, host engine.Host) (Runner, Isolation, error)

// WorkerConfig is the worker's configuration, as the parent sent it.
type WorkerConfig struct {
	Lang        string
	Validate    bool
	Contexts    []string
	ContextFDs  []int  // inherited descriptors of the context files, in order
	Roots       []Root // read-only roots: the --root directories, then the context files' directories
	Workspace   *Root  // the only writable directory; nil if there is none
	OutputCap   int
	SoftTimeout time.Duration
}

// Root is an allowed directory as the worker gets it: the parent's real path of it (to map
// absolute paths to it and to name it in messages) and the inherited O_PATH descriptor that every
// open below it goes through, so the worker never opens a host path by name.
type Root struct {
	Path        string `json:"path"`
	FD          int    `json:"fd"`
	FromContext bool   `json:"from_context,omitempty"` // a context file's directory, not named by the user
}

// Isolation is the worker's report of the layers it applied.
type Isolation struct {
	Verdict string   // full, degraded(list) or none
	Layers  []string // one line per layer
}

// ServeWorker runs the worker side of the protocol on r and w until the parent closes r. It is
// what the hidden worker subcommand calls, after nothing else has run.
func ServeWorker(r io.Reader, w io.Writer, setup Setup) error {
	c := newConn(r, w)
	first, err := c.recv()
	if err != nil || first.Op != "init" || first.Init == nil {
		return fmt.Errorf("worker: expected init, got %q (%v)", first.Op, err)
	}
	cfg := workerConfig(first.Init)
	local, err := openLocalTools(cfg)
	if err != nil {
		_ = c.send(message{Op: "ready", Ready: &readyMsg{Isolation: "refused", Layers: []string{err.Error()}}})
		return err
	}
	wk := &worker{conn: c, local: local, waiting: map[int]chan call{}}
	runner, iso, err := setup(cfg, wk)
	if err != nil {
		_ = c.send(message{Op: "ready", Ready: &readyMsg{Isolation: "refused", Layers: []string{err.Error()}}})
		return err
	}
	if err := c.send(message{Op: "ready", Ready: &readyMsg{Isolation: iso.Verdict, Layers: iso.Layers}}); err != nil {
		return err
	}
	return wk.serve(runner, cfg)
}

func workerConfig(m *initMsg) WorkerConfig {
	return WorkerConfig{
		Lang: m.Lang, Validate: m.Validate, Contexts: m.Contexts, ContextFDs: m.ContextFDs, Roots: m.Roots,
		Workspace: m.Workspace, OutputCap: m.OutputCap,
		SoftTimeout: time.Duration(m.SoftTimeout) * time.Millisecond,
	}
}

// worker is the engine's Host inside the worker process: calls go to the parent, or, during a
// replay, are answered from the journal in order.
type worker struct {
	conn  *conn
	local *localTools // context tools served in the worker; nil serves none

	mu      sync.Mutex
	seq     int
	made    []call // calls made by the current cell, with their results
	replay  []call // recorded calls to serve during a replay
	waiting map[int]chan call
	closed  bool
}

func (wk *worker) serve(runner Runner, cfg WorkerConfig) error {
	execs := make(chan message)
	errc := make(chan error, 1)
	go wk.read(execs, errc)
	for {
		select {
		case m := <-execs:
			res := wk.runCell(runner, cfg, m)
			if err := wk.conn.send(message{Op: "result", ID: m.ID, Result: res, Calls: wk.takeCalls()}); err != nil {
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
func (wk *worker) read(execs chan<- message, errc chan<- error) {
	for {
		m, err := wk.conn.recv()
		if err != nil {
			wk.closeWaiting()
			errc <- err
			return
		}
		switch m.Op {
		case "exec":
			execs <- m
		case "reply":
			wk.deliver(m.Call)
		case "shutdown":
			wk.closeWaiting()
			errc <- io.EOF
			return
		}
	}
}

func (wk *worker) runCell(runner Runner, cfg WorkerConfig, m message) *cellResult {
	wk.mu.Lock()
	wk.seq, wk.made, wk.replay = 0, nil, nil
	if m.Replay {
		wk.replay = m.Calls
	}
	wk.mu.Unlock()
	ctx := context.Background()
	if cfg.SoftTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.SoftTimeout)
		defer cancel()
	}
	before := runtime.NumGoroutine()
	r := runner.Run(ctx, []byte(m.Code), cfg.Validate)
	return &cellResult{
		Stdout: r.Stdout, Truncated: r.Truncated, Final: finalValue(r.Final),
		Err: errorInfoOf(r.Err), Vars: runner.Vars(), Background: leftRunning(before), Rebuild: r.Rebuild,
	}
}

// leftRunning reports whether more goroutines run than before the cell, after giving the
// engine's own per-cell goroutines a moment to end.
func leftRunning(before int) bool {
	for i := 0; i < 20; i++ {
		if runtime.NumGoroutine() <= before {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

func finalValue(f *engine.Final) *string {
	if f == nil {
		return nil
	}
	v := f.Value
	return &v
}

// errorInfoOf flattens an error for the protocol; an error without a kind is a code error.
func errorInfoOf(err error) *errorInfo {
	if err == nil {
		return nil
	}
	kind := fault.KindOf(err)
	if kind == "" {
		kind = fault.Code
	}
	info := &errorInfo{Kind: string(kind), Message: err.Error()}
	var pe interface{ Position() string }
	if errors.As(err, &pe) {
		info.Pos = pe.Position()
	}
	return info
}

// Call implements engine.Host for the engine running in this worker.
func (wk *worker) Call(ctx context.Context, name string, args []any) (any, error) {
	wk.mu.Lock()
	seq := wk.seq
	wk.seq++
	if wk.replay != nil {
		defer wk.mu.Unlock()
		return wk.replayed(seq, name)
	}
	if wk.local != nil {
		if v, ok, err := wk.local.call(name, args); ok {
			wk.made = append(wk.made, call{Seq: seq, Name: name, Args: args, Result: v, Err: errText(err)})
			wk.mu.Unlock()
			return v, err
		}
	}
	ch := make(chan call, 1)
	wk.waiting[seq] = ch
	closed := wk.closed
	wk.mu.Unlock()
	if closed {
		return nil, fault.New(fault.Crashed, "the session is closing")
	}
	if err := wk.conn.send(message{Op: "call", Call: &call{Seq: seq, Name: name, Args: args}}); err != nil {
		return nil, err
	}
	select {
	case got := <-ch:
		wk.record(got)
		if got.Err != "" {
			return nil, errors.New(got.Err)
		}
		return got.Result, nil
	case <-ctx.Done():
		return nil, fault.Wrap(fault.Timeout, ctx.Err(), name+" interrupted by the cell deadline")
	}
}

// replayed answers call seq from the journal; it must be the same call the original run made.
func (wk *worker) replayed(seq int, name string) (any, error) {
	if seq >= len(wk.replay) || wk.replay[seq].Name != name {
		return nil, fault.New(fault.Logic, "replay diverged at host call %d (%s): the cell no longer makes the calls it made", seq, name)
	}
	c := wk.replay[seq]
	wk.made = append(wk.made, c)
	if c.Err != "" {
		return nil, errors.New(c.Err)
	}
	return c.Result, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (wk *worker) record(c call) {
	wk.mu.Lock()
	wk.made = append(wk.made, c)
	wk.mu.Unlock()
}

func (wk *worker) deliver(c *call) {
	if c == nil {
		return
	}
	wk.mu.Lock()
	ch, ok := wk.waiting[c.Seq]
	delete(wk.waiting, c.Seq)
	wk.mu.Unlock()
	if ok {
		ch <- *c
	}
}

func (wk *worker) takeCalls() []call {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	made := wk.made
	wk.made = nil
	return made
}

func (wk *worker) closeWaiting() {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	wk.closed = true
	for seq, ch := range wk.waiting {
		ch <- call{Seq: seq, Err: "the session is closing"}
		delete(wk.waiting, seq)
	}
}
