package record

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/logfile"
	"github.com/rlm-sandbox/rlm/redact"
	"github.com/rlm-sandbox/rlm/trace"
)

// Records are the open records of one task.
type Records struct {
	Task      string
	DB        *audit.DB
	Tools     *Tools // tool-call rows, written off the cells' critical path
	Log       *logfile.Logger
	Trace     *trace.Writer
	TracePath string
	Prompts   *trace.PromptStore
}

// Spec says what to record a task as.
type Spec struct {
	Home    string
	Task    audit.Task     // ID, Question, CtxFiles, Lang, Model
	Meta    trace.Metadata // the trace's first line; TaskID and Question are filled in
	Started time.Time
	NoLog   bool
}

// Open opens the audit trail, the log, the trace and the sub-call prompt store, and records
// the task as running. On an error, what was opened is closed again.
func Open(s Spec, red *redact.Redactor) (_ *Records, err error) {
	r := &Records{Task: s.Task.ID}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.DB, err = audit.Open(home.Audit(s.Home), audit.Options{Redactor: red}); err != nil {
		return nil, err
	}
	r.Tools = newTools(r.DB, func(err error) {
		if r.Log != nil {
			r.Log.Error("recording tool calls failed", "task", r.Task, "err", err)
		}
	})
	s.Task.PID = os.Getpid()
	if err := r.DB.StartTask(context.Background(), s.Task); err != nil {
		return nil, err
	}
	if r.Log, err = logfile.Open(home.Logs(s.Home), logfile.Options{Redactor: red, Disabled: s.NoLog}); err != nil {
		return nil, err
	}
	s.Meta.TaskID, s.Meta.Question = s.Task.ID, s.Task.Question
	r.TracePath = filepath.Join(home.Traces(s.Home), trace.FileName(s.Started, s.Task.ID))
	if r.Trace, err = trace.Create(r.TracePath, s.Meta, red); err != nil {
		return nil, err
	}
	r.Prompts, err = trace.NewPromptStore(home.Traces(s.Home), s.Task.ID, red)
	return r, err
}

// Close waits a bounded time for the queued tool-call rows, then closes everything; it may be
// called on partly opened records.
func (r *Records) Close() {
	if r.Tools != nil {
		if n := r.Tools.close(toolWriteGrace); n > 0 && r.Log != nil {
			r.Log.Warn("tool-call rows not recorded: the run ended first", "task", r.Task, "rows", n)
		}
	}
	if r.Trace != nil {
		r.Trace.Close()
	}
	if r.Log != nil {
		r.Log.Close()
	}
	if r.DB != nil {
		r.DB.Close()
	}
}
