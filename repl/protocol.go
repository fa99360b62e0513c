package repl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// The worker protocol: one JSON object per line in each direction.
//
// parent -> worker: init, exec, reply (the answer to a call), shutdown.
// worker -> parent: ready (after init), call (a host call for the parent), result (of an exec).

// maxLine bounds one protocol line; the output cap keeps results far below it.
const maxLine = 64 << 20

type message struct {
	Op string `json:"op"`

	// init
	Init *initMsg `json:"init,omitempty"`

	// exec and result
	ID     int64  `json:"id,omitempty"`
	Code   string `json:"code,omitempty"`
	Replay bool   `json:"replay,omitempty"` // exec: a journal replay; calls are answered from Calls
	Calls  []call `json:"calls,omitempty"`  // exec (replay): recorded results; result: the calls made

	// result
	Result *cellResult `json:"result,omitempty"`

	// call and reply
	Call *call `json:"call,omitempty"`

	// ready
	Ready *readyMsg `json:"ready,omitempty"`
}

// initMsg configures a worker once, before any interpreter exists.
type initMsg struct {
	Lang        string   `json:"lang"`
	Validate    bool     `json:"validate"`
	Contexts    []string `json:"contexts"`    // the context files' names, for messages
	ContextFDs  []int    `json:"context_fds"` // the descriptors they are open on in the worker
	Roots       []Root   `json:"roots"`       // read-only roots and their inherited descriptors
	Workspace   *Root    `json:"workspace"`   // the writable root, or nil
	OutputCap   int      `json:"output_cap"`
	SoftTimeout int64    `json:"soft_timeout_ms"`
}

type readyMsg struct {
	Isolation string   `json:"isolation"` // the verdict: full, degraded(...), none
	Layers    []string `json:"layers"`
}

// call is one host call: made by the worker, answered by the parent or the journal.
type call struct {
	Seq    int    `json:"seq"`
	Name   string `json:"name"`
	Args   []any  `json:"args,omitempty"`
	Result any    `json:"result,omitempty"`
	Err    string `json:"error,omitempty"`
}

// cellResult is what the worker reports for one cell.
type cellResult struct {
	Stdout    string     `json:"stdout"`
	Truncated bool       `json:"truncated,omitempty"`
	Final     *string    `json:"final,omitempty"`
	Err       *errorInfo `json:"error,omitempty"`
	Vars      []string   `json:"vars,omitempty"`
	// Background is set when the cell left goroutines running: it cannot be replayed
	// deterministically (a goroutine that panics later would kill every rebuilt worker).
	Background bool `json:"background,omitempty"`
	// Rebuild is set when the engine is left unusable (a heap still over its limit): the parent
	// replaces the worker and replays the journal, which never holds the failed cell.
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
