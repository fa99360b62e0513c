package repl

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/sandbox"
)

// workerProc is one running worker process.
type workerProc struct {
	cmd    *exec.Cmd
	conn   *conn
	stdin  io.Closer
	stderr *tailBuffer
	msgs   chan message // lines from the worker; closed when it exits
	exited chan struct{}
	vars   []string
}

// startWorker starts a worker in its own process group, sends init and waits for ready.
func startWorker(ctx context.Context, o Options, in *inherited) (*workerProc, *readyMsg, error) {
	wc := o.Worker.resolve()
	cmd, err := workerCmd(o, wc, in)
	if err != nil {
		return nil, nil, err
	}
	w := &workerProc{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, msgs: make(chan message, 16), exited: make(chan struct{})}
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
		return nil, nil, fmt.Errorf("starting the worker %s: %w", wc.Path, err)
	}
	w.stdin, w.conn = stdin, newConn(stdout, stdin)
	go w.pump()
	ready, err := w.handshake(ctx, o, in)
	if err != nil {
		w.kill()
		return nil, nil, err
	}
	return w, ready, nil
}

// workerCmd builds the worker's command: confined by the sandbox package (namespaces where the
// machine has them, Pdeathsig, its own process group, a minimal environment), or, with
// Options.Unconfined, a plain child in its own process group.
//
// The context files, the read roots and the workspace are passed as open descriptors (3, 4, ...;
// see inherited): an unprivileged worker reaches them without a path, and its Landlock rules are
// made from the same descriptors.
func workerCmd(o Options, wc WorkerCommand, in *inherited) (*exec.Cmd, error) {
	if o.Unconfined {
		cmd := exec.Command(wc.Path, wc.Args...)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, wc.Env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.ExtraFiles = in.files
		return cmd, nil
	}
	read, ws := in.rootFDs()
	var mapped int64
	for _, f := range in.files[:len(in.ctxFDs)] {
		if st, err := f.Stat(); err == nil {
			mapped += st.Size()
		}
	}
	// The worker outlives Open's context: its lifetime is the Session's, ended by Close or a kill.
	return sandbox.Command(context.Background(), sandbox.Config{
		AllowDegraded: o.AllowDegraded,
		ReadDirFDs:    read, WorkspaceFD: ws, MappedBytes: mapped,
		Path: wc.Path, Args: wc.Args, Env: wc.Env, ExtraFiles: in.files,
	})
}

func (w *workerProc) handshake(ctx context.Context, o Options, in *inherited) (*readyMsg, error) {
	init := &initMsg{
		Lang: o.Lang, Validate: !o.NoValidate, Contexts: o.Contexts, ContextFDs: in.ctxFDs, Roots: in.roots,
		Workspace: in.ws, OutputCap: o.OutputCap, SoftTimeout: o.CellTimeout.Milliseconds(),
	}
	if err := w.conn.send(message{Op: "init", Init: init}); err != nil {
		return nil, w.death(err)
	}
	ctx, cancel := context.WithTimeout(ctx, workerStartTimeout)
	defer cancel()
	select {
	case m, ok := <-w.msgs:
		switch {
		case !ok:
			return nil, w.death(errWorkerGone)
		case m.Op != "ready" || m.Ready == nil:
			return nil, fmt.Errorf("worker: expected ready, got %q", m.Op)
		case m.Ready.Isolation == "refused":
			return nil, fault.New(fault.Denied, "the worker refused to start: %s", strings.Join(m.Ready.Layers, "; "))
		}
		return m.Ready, nil
	case <-ctx.Done():
		return nil, fault.Wrap(fault.Timeout, ctx.Err(), "waiting for the worker to start")
	}
}

// pump reads the worker's lines until it exits, then reaps it.
func (w *workerProc) pump() {
	for {
		m, err := w.conn.recv()
		if err != nil {
			break
		}
		w.msgs <- m
	}
	close(w.msgs)
	_ = w.cmd.Wait()
	close(w.exited)
}

// exec runs one cell. It serves the worker's host calls, enforces the hard deadline, and returns
// the result, the host calls the cell made, and a non-nil death when the worker died.
func (w *workerProc) exec(ctx context.Context, id int64, code string, replay bool, calls []call, o Options) (Result, []call, error) {
	if err := w.conn.send(message{Op: "exec", ID: id, Code: code, Replay: replay, Calls: calls}); err != nil {
		return Result{}, nil, w.death(err)
	}
	hard := time.NewTimer(o.CellTimeout + o.KillGrace)
	defer hard.Stop()
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				return Result{}, nil, w.death(errWorkerGone)
			}
			if m.Op == "call" && m.Call != nil {
				w.serveCall(ctx, m.Call, o)
				continue
			}
			if m.Op == "result" && m.ID == id && m.Result != nil {
				w.vars = m.Result.Vars
				res := resultOf(m.Result)
				if m.Result.Background {
					res.Unreplayable = true
				}
				if m.Result.Rebuild {
					w.kill() // the session sees a death and rebuilds from the journal
					return res, m.Calls, errRebuild
				}
				return res, m.Calls, nil
			}
		case <-hard.C:
			w.kill()
			return Result{}, nil, fault.New(fault.Timeout, "the cell ran past its hard deadline (%v) and the worker was killed", o.CellTimeout+o.KillGrace)
		case <-ctx.Done():
			w.kill()
			return Result{}, nil, fault.Wrap(fault.Timeout, ctx.Err(), "the cell was cancelled and the worker was killed")
		}
	}
}

// serveCall answers one host call from the parent's Host. The worker journals the answer.
func (w *workerProc) serveCall(ctx context.Context, c *call, o Options) {
	reply := call{Seq: c.Seq, Name: c.Name}
	if o.Host == nil {
		reply.Err = fmt.Sprintf("%s is not available in this session", c.Name)
	} else if v, err := o.Host.Call(ctx, c.Name, c.Args); err != nil {
		reply.Err = err.Error()
	} else {
		reply.Result = v
	}
	_ = w.conn.send(message{Op: "reply", Call: &reply})
}

func resultOf(r *cellResult) Result {
	res := Result{Stdout: r.Stdout, Truncated: r.Truncated, Final: r.Final, Vars: r.Vars}
	if r.Err != nil {
		res.Err = &CellError{Kind: fault.Kind(r.Err.Kind), Msg: r.Err.Message, Pos: r.Err.Pos}
	}
	return res
}

// CellError is an error a cell ended with, as the worker reported it.
type CellError struct {
	Kind fault.Kind
	Msg  string
	Pos  string // FILE:LINE:COL when known
}

func (e *CellError) Error() string { return e.Msg }

// Is makes errors.Is(err, fault.Kind) work.
func (e *CellError) Is(target error) bool { k, ok := target.(fault.Kind); return ok && k == e.Kind }

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
	msg := fmt.Sprintf("the worker died (%s)", state)
	if tail := lastLine(w.stderr.String()); tail != "" {
		msg += ": " + tail
	}
	return fault.Wrap(fault.Crashed, cause, msg)
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
	_ = w.conn.send(message{Op: "shutdown"})
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
