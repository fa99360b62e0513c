package repl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/tools"
)

// The worker protocol: one JSON object per line in each direction.
//
// parent -> worker: init, exec, reply (the answer to a call), validate, shutdown.
// worker -> parent: ready (after init), call (a host call for the parent), result (of an exec or
// a validate).
//
// The parent treats everything the worker sends as hostile: sizes are bounded on both sides
// (maxLine, the journal rooms, maxLoggedCalls), and a call or reply carries the id of the exec
// it belongs to, so an answer can never reach a later cell.

// maxLine bounds one protocol line; the output cap keeps results far below it.
const maxLine = 64 << 20

type message struct {
	Op string `json:"op"`

	// init
	Init *initMsg `json:"init,omitempty"`

	// exec, result, call and reply: the exec's id
	ID     int64  `json:"id,omitempty"`
	Code   string `json:"code,omitempty"`
	Replay bool   `json:"replay,omitempty"` // exec: a journal replay; calls are answered from Journal

	// Journal holds the results a replay cannot recompute (file tools, sub-calls), as a JSON
	// list of journalEntry. exec (replay): what to serve; result: what the cell consumed. The
	// parent keeps it as bytes and never decodes it.
	Journal json.RawMessage `json:"journal,omitempty"`
	// CellRoom and SessionRoom bound the journal of an exec: bytes this cell may keep, and bytes
	// the session has left. A call whose result would not fit fails with a limit error.
	CellRoom    int64 `json:"cell_room,omitempty"`
	SessionRoom int64 `json:"session_room,omitempty"`

	// validate: a name for the positions; result: the validator's findings
	Name     string      `json:"name,omitempty"`
	Findings source.List `json:"findings,omitempty"`

	// result
	Result *cellResult `json:"result,omitempty"`
	Tools  *toolLog    `json:"tools,omitempty"` // the cell's host calls, in bounded form

	// call and reply
	Call *call `json:"call,omitempty"`

	// ready
	Ready *readyMsg `json:"ready,omitempty"`
}

// initMsg configures a worker once, before any interpreter exists.
type initMsg struct {
	Lang         string         `json:"lang"`
	Validate     bool           `json:"validate"`
	Contexts     []string       `json:"contexts"`            // the context files' names, for messages
	ContextFDs   []int          `json:"context_fds"`         // the descriptors they are open on in the worker
	IndexFDs     []int          `json:"index_fds,omitempty"` // their indexes (tools.OpenIndexed), in the same order
	Roots        []Root         `json:"roots"`               // read-only roots and their inherited descriptors
	Workspace    *Root          `json:"workspace"`           // the writable root, or nil
	Hidden       []tools.Hidden `json:"hidden,omitempty"`    // directories the file tools never reach
	Limits       engine.Limits  `json:"limits"`              // the model-facing caps
	SoftTimeout  int64          `json:"soft_timeout_ms"`
	Quota        WorkspaceQuota `json:"quota"`
	JournalBytes int64          `json:"journal_bytes"`
	MemoryBytes  int64          `json:"memory_bytes,omitempty"`  // Options.WorkerMemory (0: the default)
	ValidateOnly bool           `json:"validate_only,omitempty"` // no engine: the worker only validates (Validate)
}

type readyMsg struct {
	Isolation string   `json:"isolation"` // the verdict: full, degraded(...), none
	Layers    []string `json:"layers"`
}

// call is one host call: made by the worker, answered by the parent.
type call struct {
	Seq    int    `json:"seq"`
	Name   string `json:"name"`
	Args   []any  `json:"args,omitempty"`
	Result any    `json:"result,omitempty"`
	Err    string `json:"error,omitempty"`
}

// journalEntry is one host result a replay serves instead of calling again: a file tool's or a
// sub-call's. Key is a digest of the arguments, so a replay serves each call the result of the
// same call (in any order: Go's map iteration differs from run to run), and a call the cell did
// not make the first time is a divergence, never a wrong answer.
type journalEntry struct {
	Name   string          `json:"n"`
	Key    string          `json:"k"`
	Result json.RawMessage `json:"r,omitempty"`
	Err    string          `json:"e,omitempty"`
}

// toolLog is a cell's host calls for the audit trail: the first maxLoggedCalls in full (long
// arguments and results cut), and the number of calls of every tool.
type toolLog struct {
	Calls  []call         `json:"calls,omitempty"`
	Counts map[string]int `json:"counts,omitempty"`
}

// maxLoggedCalls is how many host calls of one cell are logged one by one.
const maxLoggedCalls = 100

// cellResult is what the worker reports for one cell.
type cellResult struct {
	Stdout    string     `json:"stdout"`
	Truncated bool       `json:"truncated,omitempty"`
	Final     *string    `json:"final,omitempty"`
	Err       *errorInfo `json:"error,omitempty"`
	Vars      []string   `json:"vars,omitempty"`
	Locals    []Var      `json:"locals,omitempty"`
	// Background is set when the cell left goroutines running. They could print into, or call
	// tools during, later cells, and a replay could not repeat them: the worker asks to be
	// replaced (Rebuild), and the cell is not journaled.
	Background bool `json:"background,omitempty"`
	// Rebuild is set when the engine is left unusable (a heap still over its limit, goroutines
	// left running): the parent replaces the worker and replays the journal, which never holds
	// this cell.
	Rebuild bool `json:"rebuild,omitempty"`
}

// errorInfo is an error as it crosses the protocol: a fault kind, a message, a position.
type errorInfo struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Pos     string `json:"pos,omitempty"`
}

// conn reads and writes protocol lines. Writes are serialised; reads happen on one goroutine.
type conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReaderSize(r, 64<<10), w: w}
}

func (c *conn) send(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Op, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

func (c *conn) recv() (message, error) {
	line, err := readLine(c.r)
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("bad protocol line: %w", err)
	}
	return m, nil
}

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("protocol line over %d bytes", maxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}
