package mcpserver

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/redact"
)

// records are the server's audit trail: its own task, whose tool-call rows are the MCP tool
// calls, and the sessions' tasks. Rows of calls and cells are written by one goroutine, off the
// calls' path and in order; tasks are started and finished at once.
type records struct {
	db       *audit.DB
	task     string // the server's task
	calls    atomic.Int64
	sessions atomic.Int64

	mu      sync.Mutex
	closed  bool
	queue   chan func()
	written chan struct{} // closed when the queue is drained
}

// queueLen bounds the rows waiting to be written; past it a row is written by its caller.
const queueLen = 1024

// later queues a write; with the queue full it writes at once, so that no row is lost.
func (r *records) later(write func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	select {
	case r.queue <- write:
	default:
		write()
	}
}

func (r *records) writer() {
	defer close(r.written)
	for write := range r.queue {
		write()
	}
}

func openRecords(o Options, roots []string) (*records, error) {
	if err := home.Ensure(o.Home); err != nil {
		return nil, err
	}
	db, err := audit.Open(home.Audit(o.Home), audit.Options{Redactor: redact.New(o.Model.Keys()...)})
	if err != nil {
		return nil, err
	}
	r := &records{db: db, task: audit.NewTaskID(time.Now()), queue: make(chan func(), queueLen), written: make(chan struct{})}
	t := audit.Task{ID: r.task, Question: fmt.Sprintf("rlm mcp server (%s)", o.Transport), PID: os.Getpid(), CtxFiles: roots,
		CtxMetadata: map[string]any{"source": "mcp", "role": "server", "transport": o.Transport, "max_sessions": o.MaxSessions}}
	if len(o.Model.Models) > 0 {
		t.Model = o.Model.Models[0]
	}
	if err := db.StartTask(context.Background(), t); err != nil {
		db.Close()
		return nil, err
	}
	go r.writer()
	return r, nil
}

// call records one tool call as a tool-call row of the server's task.
func (r *records) call(name string, args any, result string, callErr error, took time.Duration) {
	r.calls.Add(1)
	c := audit.ToolCall{Task: r.task, Name: name, Args: args, Result: result, Duration: took}
	if callErr != nil {
		c.Error = callErr.Error()
	}
	r.later(func() { _ = r.db.RecordTool(context.Background(), c) }) // a row that fails must not fail the agent's call
}

// startSession records a session as a task of its own.
func (r *records) startSession(id, lang string, files, roots []string, workspace, client string) string {
	r.sessions.Add(1)
	task := audit.NewTaskID(time.Now())
	t := audit.Task{ID: task, Question: "sandbox session " + id + " (MCP)", Lang: lang, CtxFiles: files, PID: os.Getpid(),
		CtxMetadata: map[string]any{"source": "mcp", "role": "session", "session": id, "server_task": r.task, "roots": roots,
			"workspace": workspace, "client": client}}
	if err := r.db.StartTask(context.Background(), t); err != nil {
		return ""
	}
	return task
}

// cell records one cell of a session as a step.
func (r *records) cell(task string, n int, code string, res rlm.ExecResult) {
	if task == "" {
		return
	}
	st := audit.Step{Task: task, Step: n, Attempt: 1, Code: code, Output: res.Output, Decision: audit.Accepted}
	if res.Error != nil && res.Error.Kind == fault.Rejected {
		st.Decision = audit.Rejected
		st.Findings = []string{res.Error.Message}
	}
	if res.Error != nil {
		st.ErrorKind = res.Error.Kind
	}
	r.later(func() { _ = r.db.RecordStep(context.Background(), st) })
}

// endSession finishes a session's task: answered when the client closed it (its answer the
// last FINAL value, if any), aborted with why otherwise.
func (r *records) endSession(task, final string, why *rlm.Failure) {
	if task == "" {
		return
	}
	if why == nil {
		_ = r.db.FinishTask(context.Background(), task, audit.Answered, final, nil)
		return
	}
	_ = r.db.FinishTask(context.Background(), task, audit.Aborted, final, fault.New(why.Kind, "%s", why.Message))
}

func (r *records) close() error {
	r.mu.Lock()
	r.closed = true
	close(r.queue)
	r.mu.Unlock()
	<-r.written
	summary := fmt.Sprintf("%d tool calls, %d sessions", r.calls.Load(), r.sessions.Load())
	err := r.db.FinishTask(context.Background(), r.task, audit.Answered, summary, nil)
	if cerr := r.db.Close(); err == nil {
		err = cerr
	}
	return err
}
