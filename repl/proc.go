package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/sandbox"
	"github.com/rlm-sandbox/rlm/wire"
)

// workerProc is one running worker process.
type workerProc struct {
	cmd    *exec.Cmd
	conn   *wire.Conn
	stdin  io.Closer
	stderr *tailBuffer
	msgs   chan wire.Message // lines from the worker; closed when it exits
	exited chan struct{}
	vars   []string
	locals []Var
}

// startWorker starts a worker in its own process group, sends init and waits for ready. With
// the default WorkerCommand it runs rlm-worker from beside this executable when that passes
// its checks and the handshake (find.go), and this executable otherwise.
func startWorker(ctx context.Context, o Options, in *inherited) (*workerProc, *wire.Ready, error) {
	return startFrom(ctx, o, in, sibling)
}

// startFrom is startWorker with sib as the rlm-worker that the default WorkerCommand may run.
func startFrom(ctx context.Context, o Options, in *inherited, sib *siblingWorker) (*workerProc, *wire.Ready, error) {
	if o.Worker.isDefault() {
		if exe, path, ok := sib.candidate(); ok {
			w, ready, err := launch(ctx, o, in, launchSpec{cmd: WorkerCommand{Path: path, Args: []string{}}, exe: exe, sibling: true})
			var bad *unusableError
			if !errors.As(err, &bad) {
				if err == nil {
					sib.accept()
				}
				return w, ready, err
			}
			sib.refuse(bad.Error())
		}
	}
	return launch(ctx, o, in, launchSpec{cmd: o.Worker.resolve()})
}

// launchSpec is the program a worker runs: cmd, or the open file exe that cmd.Path names. A
// sibling must come from this very build, and a failure to start it or to answer the
// handshake is an unusableError, after which the session falls back to this executable.
type launchSpec struct {
	cmd     WorkerCommand
	exe     *os.File
	sibling bool
}

// launch starts the worker of spec and makes the handshake.
func launch(ctx context.Context, o Options, in *inherited, spec launchSpec) (*workerProc, *wire.Ready, error) {
	cmd, release, err := workerCmd(o, spec.cmd, in, spec.exe)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	w := &workerProc{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, msgs: make(chan wire.Message, 16), exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		err = fmt.Errorf("starting the worker %s: %w", spec.cmd.Path, err)
		if spec.sibling {
			err = &unusableError{path: spec.cmd.Path, err: err}
		}
		return nil, nil, err
	}
	release()
	w.stdin, w.conn = stdin, wire.NewConn(stdout, stdin)
	go w.pump()
	ready, err := w.handshake(ctx, o, in, spec.cmd.Path, spec.sibling)
	if err != nil {
		w.kill()
		_ = stdin.Close()
		return nil, nil, err
	}
	return w, ready, nil
}

// workerCmd builds the worker's command: confined by the sandbox package (namespaces where the
// machine has them, Pdeathsig, its own process group, a minimal environment), or, with
// Options.Unconfined, a plain child in its own process group. With exe, the command runs that
// open file (execPath); release closes what that took, once the worker has started.
//
// The context files, the read roots and the workspace are passed as open descriptors (3, 4, ...;
// see inherited): an unprivileged worker reaches them without a path, and its Landlock rules are
// made from the same descriptors.
func workerCmd(o Options, wc WorkerCommand, in *inherited, exe *os.File) (*exec.Cmd, func(), error) {
	release := func() {}
	if exe != nil {
		path, done, err := execPath(exe, wc.Path, len(in.files))
		if err != nil {
			return nil, nil, &unusableError{path: wc.Path, err: err}
		}
		wc.Path, release = path, onlyOnce(done)
	}
	if o.Unconfined {
		cmd := exec.Command(wc.Path, wc.Args...)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, wc.Env...)
		cmd.SysProcAttr = unconfinedAttr()
		cmd.ExtraFiles = in.files
		return cmd, release, nil
	}
	read, ws := in.rootFDs()
	var mapped int64
	for _, f := range in.files[:len(in.ctxFDs)] {
		if st, err := f.Stat(); err == nil {
			mapped += st.Size()
		}
	}
	// The worker outlives Open's context: its lifetime is the Session's, ended by Close or a kill.
	cmd, err := sandbox.Command(context.Background(), sandbox.Config{
		AllowDegraded: o.AllowDegraded,
		ReadDirFDs:    read, WorkspaceFD: ws, MappedBytes: mapped, MemoryBytes: o.WorkerMemory,
		Path: wc.Path, Args: wc.Args, Env: wc.Env, ExtraFiles: in.files,
	})
	if err != nil {
		release()
		return nil, nil, err
	}
	return cmd, release, nil
}

// onlyOnce returns f, made safe to call more than once.
func onlyOnce(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// handshake sends init and waits for ready. A worker that answers with another protocol version,
// or (sibling: rlm-worker) from another build, or that does not answer, is an unusableError,
// before any code is sent to it.
func (w *workerProc) handshake(ctx context.Context, o Options, in *inherited, path string, sibling bool) (*wire.Ready, error) {
	init := &wire.Init{
		Version: wire.Version, Lang: o.Lang, Validate: !o.NoValidate, Contexts: o.Contexts, ContextFDs: in.ctxFDs, IndexFDs: in.idxFDs,
		Roots: in.roots, Workspace: in.ws, Hidden: in.hidden, Limits: o.Limits, SoftTimeout: o.CellTimeout.Milliseconds(),
		Quota: wire.Quota(o.Quota), JournalBytes: o.JournalBytes, MemoryBytes: o.WorkerMemory, ValidateOnly: o.validateOnly,
		Tools: o.API.Tools(),
	}
	unusable := func(err error) error {
		if sibling {
			return &unusableError{path: path, err: err}
		}
		return err
	}
	if err := w.conn.Send(wire.Message{Op: wire.OpInit, Init: init}); err != nil {
		return nil, unusable(w.death(err))
	}
	tctx, cancel := context.WithTimeout(ctx, workerStartTimeout)
	defer cancel()
	select {
	case m, ok := <-w.msgs:
		if !ok {
			return nil, unusable(w.death(errWorkerGone))
		}
		if m.Op != wire.OpReady || m.Ready == nil {
			return nil, unusable(fmt.Errorf("worker: expected ready, got %q", m.Op))
		}
		if err := checkReady(m.Ready, path, sibling); err != nil {
			return nil, err
		}
		if m.Ready.Isolation == "refused" {
			return nil, fault.New(fault.Denied, "the worker refused to start: %s", strings.Join(m.Ready.Layers, "; "))
		}
		return m.Ready, nil
	case <-tctx.Done():
		err := fault.Wrap(fault.Timeout, tctx.Err(), "waiting for the worker to start")
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, unusable(err)
	}
}

// checkReady refuses a worker of another protocol version and, for rlm-worker, of another build.
func checkReady(r *wire.Ready, path string, sibling bool) error {
	if r.Version != wire.Version {
		return &unusableError{path: path, err: fmt.Errorf("it speaks protocol version %d, this rlm %d: it comes from another build", r.Version, wire.Version)}
	}
	if build, _ := wire.BuildID(); sibling && r.Build != build {
		return &unusableError{path: path, err: fmt.Errorf("it comes from another build (%s, this rlm %s)", r.Build, build)}
	}
	return nil
}

// unusableError is a worker binary that cannot serve this parent: it did not start, did not
// answer the handshake, or answered with another protocol version or build. The session falls
// back to this executable when the binary was rlm-worker.
type unusableError struct {
	path string
	err  error
}

func (e *unusableError) Error() string {
	return fmt.Sprintf("the worker %s cannot be used: %v; rebuild rlm and %s together (go build -o DIR/ ./cmd/...)", e.path, e.err, WorkerName)
}

func (e *unusableError) Unwrap() error { return e.err }

// pump reads the worker's lines until it exits, then reaps it.
func (w *workerProc) pump() {
	for {
		m, err := w.conn.Recv()
		if err != nil {
			break
		}
		w.msgs <- m
	}
	close(w.msgs)
	_ = w.cmd.Wait()
	close(w.exited)
}

// execReq is one exec: a cell, or a journal entry to replay, and the cell's journal rooms.
type execReq struct {
	id      int64
	code    string
	replay  bool
	journal json.RawMessage // replay: the entry's journal
	room    [2]int64        // bytes the cell may journal, and bytes the session has left
}

// exec runs one cell. It serves the worker's host calls concurrently, so that the hard deadline
// holds while one is served, and returns the result, the cell's journal, and a non-nil death
// when the worker died or was killed.
func (w *workerProc) exec(ctx context.Context, req execReq, o Options) (Result, json.RawMessage, error) {
	m := wire.Message{Op: wire.OpExec, ID: req.id, Code: req.code, Replay: req.replay, Journal: req.journal, CellRoom: req.room[0], SessionRoom: req.room[1]}
	if err := w.conn.Send(m); err != nil {
		return Result{}, nil, w.death(err)
	}
	limit := o.CellTimeout + o.KillGrace
	hard := time.NewTimer(limit)
	defer hard.Stop()
	calls := newCallServer(ctx, time.Now().Add(limit), req.id, w, o.Host)
	defer calls.stop()
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				return Result{}, nil, w.death(errWorkerGone)
			}
			if m.Op == wire.OpCall && m.Call != nil {
				calls.serve(m)
				continue
			}
			if m.Op == wire.OpResult && m.ID == req.id && m.Result != nil {
				return w.result(m, o)
			}
		case <-hard.C:
			w.kill()
			return Result{}, nil, fault.New(fault.Timeout, "the cell ran past its hard deadline (%v) and the worker was killed", limit)
		case <-ctx.Done():
			w.kill()
			return Result{}, nil, fault.Stopped(ctx, "the cell was stopped and the worker was killed; the session's state is rebuilt before the next cell runs")
		}
	}
}

// result turns the worker's result message into a Result, bounding what a hostile worker could
// inflate: the output, the tool log.
func (w *workerProc) result(m wire.Message, o Options) (Result, json.RawMessage, error) {
	res := resultOf(m.Result, o.Limits.OutputChars)
	w.vars, w.locals = res.Vars, res.Locals
	res.Tools, res.ToolCounts = toolsOf(m.Tools)
	res.Unreplayable = m.Result.Background
	res.notRun = m.Result.NotRun
	if m.Result.Rebuild {
		w.kill() // the session sees a death and rebuilds from the journal
		return res, nil, errRebuild
	}
	return res, m.Journal, nil
}

// callServer serves one exec's host calls from the parent's Host, each in its own goroutine, at
// most maxConcurrentCalls at a time. Every call gets the cell's context, which ends (with the
// cause ErrCellEnded) at the cell's hard deadline or when the exec returns.
type callServer struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     int64
	w      *workerProc
	host   engine.Host
	sem    chan struct{}
	wg     sync.WaitGroup
}

// maxConcurrentCalls bounds the host calls of one cell served at once (a cell makes one at a
// time; only goroutines a cell started can make more).
const maxConcurrentCalls = 4

// callStopGrace is how long an ending exec waits for its cancelled host calls to return.
const callStopGrace = 250 * time.Millisecond

// ErrCellEnded is the cause of a host call's context that ended with its cell: at the cell's
// hard deadline, or when the cell returned (at its soft deadline, say) while the call was being
// served. engine.Host.Call tells it apart from the end of the caller's own context (a run's
// timeout, a signal) with errors.Is(context.Cause(ctx), ErrCellEnded).
var ErrCellEnded = errors.New("the cell ended")

func newCallServer(ctx context.Context, hard time.Time, id int64, w *workerProc, host engine.Host) *callServer {
	cctx, cancel := context.WithCancelCause(ctx)
	cctx, stopTimer := context.WithDeadlineCause(cctx, hard, ErrCellEnded)
	stop := func() {
		cancel(ErrCellEnded)
		stopTimer()
	}
	return &callServer{ctx: cctx, cancel: stop, id: id, w: w, host: host, sem: make(chan struct{}, maxConcurrentCalls)}
}

// serve answers one call message; the answer carries the exec's id, so a late answer can never
// reach a later cell.
func (s *callServer) serve(m wire.Message) {
	c := *m.Call
	if m.ID != s.id {
		return // a call of an earlier exec: nobody waits for it
	}
	select {
	case s.sem <- struct{}{}:
	default:
		s.reply(wire.Call{Seq: c.Seq, Name: c.Name, Err: wire.Errorf(fault.Limit, "%s: more than %d host calls at once; make them one after another", c.Name, maxConcurrentCalls)})
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		reply := wire.Call{Seq: c.Seq, Name: c.Name}
		defer func() {
			if r := recover(); r != nil { // a Host's bug fails the call, not the parent
				reply.Result, reply.Err = nil, wire.Errorf(fault.Code, "%s failed in the host: %v", c.Name, r)
				s.reply(reply)
			}
		}()
		if s.host == nil {
			reply.Err = wire.Errorf(fault.Denied, "%s is not available in this session", c.Name)
		} else if v, err := s.host.Call(s.ctx, c.Name, c.Args); err != nil {
			reply.Err = wire.ErrorOf(err)
		} else {
			reply.Result = v
		}
		s.reply(reply)
	}()
}

func (s *callServer) reply(c wire.Call) {
	_ = s.w.conn.Send(wire.Message{Op: wire.OpReply, ID: s.id, Call: &c})
}

// stop cancels the calls still being served and waits a moment for them to return.
func (s *callServer) stop() {
	s.cancel()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(callStopGrace):
	}
}

func resultOf(r *wire.Result, outputCap int) Result {
	res := Result{Stdout: r.Stdout, Truncated: r.Truncated, Final: r.Final, Vars: r.Vars, Locals: localsOf(r.Vars, r.Locals)}
	if utf8.RuneCountInString(res.Stdout) > outputCap+outputSlack {
		res.Stdout = string([]rune(res.Stdout)[:outputCap]) + fmt.Sprintf("\n[output cut by the session at %d characters]", outputCap)
		res.Truncated = true
	}
	if r.Err != nil {
		res.Err = r.Err.Err()
	}
	return res
}

// localsOf bounds the worker's descriptions of the variables: at most engine.MaxLocals, each
// one cut to its caps, and only while they name the variables in order (Locals[i].Name ==
// vars[i]): the worker is not trusted.
func localsOf(vars []string, locals []Var) []Var {
	var out []Var
	for i, v := range locals {
		if i >= engine.MaxLocals || i >= len(vars) || v.Name != vars[i] {
			break
		}
		out = append(out, v.Bound())
	}
	return out
}

// outputSlack is room for the engines' own truncation marker past the output cap.
const outputSlack = 200

// toolErr is a logged call's error text, cut again: the worker is not trusted.
func toolErr(e *wire.Error) string {
	if e == nil {
		return ""
	}
	return wire.Cut(e.Err().Error())
}

// toolsOf converts the worker's tool log, cut again to its bounds: the worker is not trusted.
func toolsOf(l *wire.ToolLog) ([]ToolCall, map[string]int) {
	if l == nil {
		return nil, nil
	}
	calls := l.Calls[:min(len(l.Calls), wire.MaxLoggedCalls)]
	out := make([]ToolCall, 0, len(calls))
	for _, c := range calls {
		args := make([]any, 0, min(len(c.Args), 8))
		for _, a := range c.Args[:min(len(c.Args), 8)] {
			if str, ok := a.(string); ok {
				a = wire.Cut(str)
			}
			args = append(args, a)
		}
		res, _ := c.Result.(string)
		out = append(out, ToolCall{Name: wire.Cut(c.Name), Args: args, Result: wire.Cut(res), Err: toolErr(c.Err)})
	}
	counts := make(map[string]int, len(l.Counts))
	for name, n := range l.Counts {
		if len(counts) == maxToolNames {
			break
		}
		counts[wire.Cut(name)] = n
	}
	return out, counts
}

// maxToolNames bounds the tool counts a worker may report (the API has fewer names).
const maxToolNames = 64

// death describes why the worker died: its exit status or signal and the tail of its stderr
// (where a Go fatal error prints "fatal error: stack overflow" and the like).
func (w *workerProc) death(cause error) error {
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		w.kill()
		<-w.exited
	}
	state := "unknown"
	if ps := w.cmd.ProcessState; ps != nil {
		state = ps.String()
	}
	msg := fmt.Sprintf("the worker (the REPL process) died (%s)", state)
	if tail := lastLine(w.stderr.String()); tail != "" {
		msg += ": " + tail
	}
	if fix := deathFix(w.stderr.String()); fix != "" {
		msg += "; " + fix
	}
	return fault.Wrap(fault.Crashed, cause, msg)
}

// deathFixes say what a cell can do against the deaths the Go runtime names on stderr, first
// match first: a stack that grew past the memory dies "out of memory" in runtime.newstack.
var deathFixes = []struct{ sign, fix string }{
	{"stack overflow", deepRecursion},
	{"stack exceeds", deepRecursion},
	{"runtime.newstack", deepRecursion},
	{"out of memory", "the cell needed more memory than the worker has: keep less in memory at once (read the input in pieces with peek over chunk, count instead of keeping copies)"},
}

const deepRecursion = "the recursion went too deep: write it as a loop"

// deathFix is the fix for the death the worker's stderr describes, or "" when none is known.
func deathFix(stderr string) string {
	for _, f := range deathFixes {
		if strings.Contains(stderr, f.sign) {
			return f.fix
		}
	}
	return ""
}

// dead reports whether the worker process has exited.
func (w *workerProc) dead() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL to the worker's process group, which ends the worker and anything it left.
func (w *workerProc) kill() {
	if w.cmd.Process != nil {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killWait kills the worker and waits (a bounded time) until it is gone, so that a caller
// about to exit leaves no worker behind.
func (w *workerProc) killWait() {
	w.kill()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
	}
}

func (w *workerProc) shutdown() {
	_ = w.conn.Send(wire.Message{Op: wire.OpShutdown})
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		w.kill()
		<-w.exited
	}
}

// tailBuffer keeps the first headMax and the last max bytes written to it: a Go fatal error
// prints its reason first and then a long goroutine dump.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	head []byte
	buf  []byte
}

const headMax = 2 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(headMax-len(t.head), len(p)); n > 0 {
		t.head = append(t.head, p[:n]...)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n" + string(t.buf)
}

// lastLine returns the most telling line of a crash log: the first "fatal error" or "panic" line
// if any, else the last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "runtime:") {
			return l
		}
	}
	return lines[len(lines)-1]
}
