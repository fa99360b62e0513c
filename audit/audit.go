package audit

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/redact"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// MaxText is the most characters (code points) stored in a truncatable column: step code and
// output, API and tool errors, tool arguments and results. Longer text keeps its head and a
// marker stating the true length. Questions and answers are never truncated.
const MaxText = 20000

// Status is the state of a task.
type Status string

// The task statuses. A task is Running from StartTask until FinishTask.
const (
	Running  Status = "RUNNING"
	Answered Status = "ANSWERED"
	Failed   Status = "FAILED"
	Aborted  Status = "ABORTED" // stopped by its caller (a signal, `rlm abort`, a cancelled context: kind canceled), or an MCP session closed
)

// Decision is what the validator decided about a step's code.
type Decision string

// The validator decisions.
const (
	Accepted Decision = "accepted"
	Rejected Decision = "rejected"
	Skipped  Decision = "skipped" // validation was switched off, or the step ran no code
)

// ErrNotFound is returned (wrapped) for a task id the database does not hold.
var ErrNotFound = errors.New("task not found")

// ErrNotRunning is returned (wrapped) by FinishTask for a task that was already finished.
var ErrNotRunning = errors.New("task is not running")

// Options configures Open. The zero value is ready to use.
type Options struct {
	Redactor    *redact.Redactor // applied to every text column; nil means redact.New()
	BusyTimeout time.Duration    // how long a writer waits for the lock; 0 means limits.AuditBusy
	Now         func() time.Time // the clock for times the caller leaves zero; nil means time.Now
}

// Task is one row of the tasks table.
type Task struct {
	ID           string
	Question     string
	Status       Status // set by StartTask and FinishTask; ignored on input
	Answer       string
	ErrorKind    fault.Kind
	ErrorMessage string
	Calls        int // model API calls spent so far
	Tokens       int // prompt + completion tokens spent so far
	// CostUSD is the dollars spent so far by the calls of known cost; CostUnknown counts the
	// calls whose cost is unknown. With CostUnknown > 0, CostUSD is a lower bound.
	CostUSD     float64
	CostUnknown int
	PID         int
	StartedAt   time.Time // zero means now
	EndedAt     time.Time // zero while running
	CtxFiles    []string
	CtxMetadata map[string]any // any JSON-encodable values; read back as decoded JSON
	Lang        string
	Model       string
}

// APICall is one model API call made for a task.
type APICall struct {
	Task             string
	Agent            string // agent name or model tier ("root", "sub", …)
	Model            string // the configured model name
	Backend          string // the backend that served it ("default" or a [backends.NAME])
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int    // part of PromptTokens read from the server's cache
	Source           string // of the token counts: "usage", "logprobs", "estimate", "none"
	// CostUSD is the call's cost in US dollars; nil when unknown (stored as NULL, never 0).
	CostUSD *float64
	Latency time.Duration // stored in milliseconds
	Status  string        // "ok", or what went wrong ("error", "early_abort", …)
	Error   string
	At      time.Time // zero means now
}

// Step is one attempt at running one cell of a task.
type Step struct {
	Task      string
	Step      int // the root iteration (or script cell), from 1
	Attempt   int // from 1
	Code      string
	Output    string
	Decision  Decision
	Findings  any // JSON-encodable, e.g. []source.Finding; read back as json.RawMessage
	ErrorKind fault.Kind
	At        time.Time // zero means now
}

// ToolCall is one call of a trusted host tool (peek, search, read_file, …).
type ToolCall struct {
	Task     string
	Step     int
	Name     string
	Args     any    // JSON-encodable; read back as json.RawMessage
	Result   string // a short summary of the result
	Error    string
	Duration time.Duration // stored in milliseconds
	At       time.Time     // zero means now
}

// DB is an open audit database. It is safe for concurrent use.
type DB struct {
	db   *sql.DB
	path string
	red  *redact.Redactor
	now  func() time.Time
}

// NewTaskID returns a new task id that sorts by start time: "20261122-061500-a1b2c3", the UTC
// time to the second and 24 random bits.
func NewTaskID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Open opens (creating if needed) the audit database at path and migrates it to the current
// schema.
func Open(path string, opts Options) (*DB, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("audit: open %q: the path must be non-empty and contain no '?'", path)
	}
	d := &DB{path: path, red: opts.Redactor, now: opts.Now}
	if d.red == nil {
		d.red = redact.New()
	}
	if d.now == nil {
		d.now = time.Now
	}
	if err := createFile(path); err != nil {
		return nil, fmt.Errorf("audit: open %w", err)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = limits.AuditBusy
	}
	dsn := fmt.Sprintf("%s?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)"+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)", path, busy.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %w", path, err)
	}
	// WAL lets readers run beside the one writer; a few connections are plenty for one run.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	if err := migrate(context.Background(), db, migrations); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("audit: open %s: %w", path, err)
	}
	d.db = db
	return d, nil
}

// createFile creates path's directory and the database file itself, private to the user, so
// that SQLite (which gives its -wal and -shm files the database's mode) does not create it
// world-readable.
func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// Close closes the database.
func (d *DB) Close() error {
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("audit: close %s: %w", d.path, err)
	}
	return nil
}

// StartTask inserts t with status RUNNING.
func (d *DB) StartTask(ctx context.Context, t Task) error {
	files, err := d.jsonText(t.CtxFiles, "[]")
	if err != nil {
		return d.errf(err, "start task %s: context files", t.ID)
	}
	meta, err := d.jsonText(t.CtxMetadata, "{}")
	if err != nil {
		return d.errf(err, "start task %s: context metadata", t.ID)
	}
	_, err = d.db.ExecContext(ctx, `INSERT INTO tasks (id, question, status, calls, tokens, pid,
		started_at, ctx_files, ctx_metadata, lang, model) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		t.ID, d.red.String(t.Question), Running, t.Calls, t.Tokens, t.PID,
		d.stamp(t.StartedAt), files, meta, d.red.String(t.Lang), d.red.String(t.Model))
	return d.errf(err, "start task %s", t.ID)
}

// SetSpent records what the task has spent so far (absolute figures, not increments); its
// cost is left as it was (see RecordSpent).
func (d *DB) SetSpent(ctx context.Context, id string, calls, tokens int) error {
	res, err := d.db.ExecContext(ctx, `UPDATE tasks SET calls = ?, tokens = ? WHERE id = ?`,
		calls, tokens, id)
	return d.errf(affected(res, err, id), "set spent of task %s", id)
}

// Spent is what a task has spent: API calls, tokens, the dollars of the calls of known cost,
// and the number of calls of unknown cost.
type Spent struct {
	Calls, Tokens int
	CostUSD       float64
	CostUnknown   int
}

// RecordSpent records what the task has spent so far, cost included (absolute figures).
func (d *DB) RecordSpent(ctx context.Context, id string, s Spent) error {
	if !finite(s.CostUSD) {
		return d.errf(fmt.Errorf("cost %v is not a finite amount", s.CostUSD), "set spent of task %s", id)
	}
	res, err := d.db.ExecContext(ctx, `UPDATE tasks SET calls = ?, tokens = ?, cost_usd = ?, cost_unknown = ? WHERE id = ?`,
		s.Calls, s.Tokens, s.CostUSD, s.CostUnknown, id)
	return d.errf(affected(res, err, id), "set spent of task %s", id)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// FinishTask ends a running task with status, its answer (if any), and the error that ended it
// (nil if none): its kind (fault.KindOf) and message are stored. Finishing a task twice returns
// an error wrapping ErrNotRunning and changes nothing.
func (d *DB) FinishTask(ctx context.Context, id string, status Status, answer string, cause error) error {
	var kind fault.Kind
	var msg string
	if cause != nil {
		kind, msg = fault.KindOf(cause), cause.Error()
	}
	res, err := d.db.ExecContext(ctx, `UPDATE tasks SET status = ?, answer = ?, error_kind = ?,
		error_message = ?, ended_at = ? WHERE id = ? AND status = ?`,
		status, d.red.String(answer), kind, d.text(msg), d.stamp(time.Time{}), id, Running)
	if err = affected(res, err, id); errors.Is(err, ErrNotFound) {
		if _, gerr := d.Task(ctx, id); gerr == nil {
			err = ErrNotRunning
		}
	}
	return d.errf(err, "finish task %s", id)
}

// RecordCall appends one API call.
func (d *DB) RecordCall(ctx context.Context, c APICall) error {
	var cost any // NULL: unknown
	if c.CostUSD != nil {
		if !finite(*c.CostUSD) {
			return d.errf(fmt.Errorf("cost %v is not a finite amount", *c.CostUSD), "record api call of task %s", c.Task)
		}
		cost = *c.CostUSD
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO api_calls (task, agent, model, backend, prompt_tokens,
		completion_tokens, cached_tokens, source, cost_usd, latency_ms, status, error, at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.Task, d.red.String(c.Agent), d.red.String(c.Model), d.red.String(c.Backend), c.PromptTokens, c.CompletionTokens,
		c.CachedTokens, d.red.String(c.Source), cost, c.Latency.Milliseconds(), d.red.String(c.Status), d.text(c.Error), d.stamp(c.At))
	return d.errf(err, "record api call of task %s", c.Task)
}

// RecordStep appends one step attempt.
func (d *DB) RecordStep(ctx context.Context, s Step) error {
	findings, err := d.jsonText(s.Findings, "[]")
	if err != nil {
		return d.errf(err, "record step %d of task %s: findings", s.Step, s.Task)
	}
	_, err = d.db.ExecContext(ctx, `INSERT INTO steps (task, step, attempt, code, output, decision,
		findings, error_kind, at) VALUES (?,?,?,?,?,?,?,?,?)`,
		s.Task, s.Step, s.Attempt, d.text(s.Code), d.text(s.Output), s.Decision, findings,
		s.ErrorKind, d.stamp(s.At))
	return d.errf(err, "record step %d of task %s", s.Step, s.Task)
}

// RecordTool appends one tool call.
func (d *DB) RecordTool(ctx context.Context, c ToolCall) error {
	args, err := d.jsonText(c.Args, "{}")
	if err != nil {
		return d.errf(err, "record tool call %s of task %s: arguments", c.Name, c.Task)
	}
	_, err = d.db.ExecContext(ctx, `INSERT INTO tool_calls (task, step, name, args, result, error,
		duration_ms, at) VALUES (?,?,?,?,?,?,?,?)`,
		c.Task, c.Step, d.red.String(c.Name), args, d.text(c.Result), d.text(c.Error),
		c.Duration.Milliseconds(), d.stamp(c.At))
	return d.errf(err, "record tool call %s of task %s", c.Name, c.Task)
}

// RecordTools appends tool calls in one transaction: a cell's calls cost one commit, not one
// each. Nothing is written if any row fails.
func (d *DB) RecordTools(ctx context.Context, calls []ToolCall) (err error) {
	if len(calls) == 0 {
		return nil
	}
	task := calls[0].Task
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.errf(err, "record %d tool calls of task %s", len(calls), task)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO tool_calls (task, step, name, args, result, error,
		duration_ms, at) VALUES (?,?,?,?,?,?,?,?)`)
	if err != nil {
		return d.errf(err, "record %d tool calls of task %s", len(calls), task)
	}
	defer stmt.Close()
	for _, c := range calls {
		args, err := d.jsonText(c.Args, "{}")
		if err != nil {
			return d.errf(err, "record tool call %s of task %s: arguments", c.Name, c.Task)
		}
		if _, err := stmt.ExecContext(ctx, c.Task, c.Step, d.red.String(c.Name), args, d.text(c.Result),
			d.text(c.Error), c.Duration.Milliseconds(), d.stamp(c.At)); err != nil {
			return d.errf(err, "record tool call %s of task %s", c.Name, c.Task)
		}
	}
	return d.errf(tx.Commit(), "record %d tool calls of task %s", len(calls), task)
}

// Task reads back one task; an unknown id gives an error wrapping ErrNotFound.
func (d *DB) Task(ctx context.Context, id string) (Task, error) {
	ts, err := d.queryTasks(ctx, `WHERE id = ?`, id)
	if err == nil && len(ts) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return Task{}, d.errf(err, "read task %s", id)
	}
	return ts[0], nil
}

// Tasks lists the most recently started tasks, newest first; limit <= 0 means all.
func (d *DB) Tasks(ctx context.Context, limit int) ([]Task, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	ts, err := d.queryTasks(ctx, `ORDER BY started_at DESC, id DESC LIMIT ?`, limit)
	return ts, d.errf(err, "list tasks")
}

// TasksWithPrefix lists the tasks whose id starts with prefix, newest first, at most limit
// (<= 0: all).
func (d *DB) TasksWithPrefix(ctx context.Context, prefix string, limit int) ([]Task, error) {
	if limit <= 0 {
		limit = -1
	}
	ts, err := d.queryTasks(ctx, `WHERE substr(id, 1, ?) = ? ORDER BY started_at DESC, id DESC LIMIT ?`, len(prefix), prefix, limit)
	return ts, d.errf(err, "find tasks %s…", prefix)
}

// Calls lists a task's API calls in the order they were recorded.
func (d *DB) Calls(ctx context.Context, task string) ([]APICall, error) {
	cs, err := d.queryCalls(ctx, task)
	return cs, d.errf(err, "list api calls of task %s", task)
}

// Steps lists a task's steps in the order they were recorded.
func (d *DB) Steps(ctx context.Context, task string) ([]Step, error) {
	ss, err := d.querySteps(ctx, task)
	return ss, d.errf(err, "list steps of task %s", task)
}

// ToolCalls lists a task's tool calls in the order they were recorded.
func (d *DB) ToolCalls(ctx context.Context, task string) ([]ToolCall, error) {
	cs, err := d.queryTools(ctx, task)
	return cs, d.errf(err, "list tool calls of task %s", task)
}

// Prune deletes the finished tasks that ended before the given time, with all their records,
// and reports how many tasks it deleted. Running tasks are kept whatever their age.
func (d *DB) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := d.db.ExecContext(ctx, `DELETE FROM tasks WHERE status != ? AND ended_at != ''
		AND ended_at < ?`, Running, before.UTC().Format(timeLayout))
	if err != nil {
		return 0, d.errf(err, "prune tasks ended before %s", before.UTC().Format(time.RFC3339))
	}
	n, err := res.RowsAffected()
	return int(n), d.errf(err, "prune tasks")
}
