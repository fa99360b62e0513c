package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/tools"
)

// The parent treats everything the worker sends as hostile: sizes are bounded on both sides
// (MaxLine, the journal rooms, MaxLoggedCalls), and a call or reply carries the id of the exec
// it belongs to, so an answer can never reach a later cell.

// MaxLine bounds one protocol line; the output cap keeps results far below it.
const MaxLine = 64 << 20

// Message is one line of the protocol. Op says which of the optional parts it carries.
type Message struct {
	Op string `json:"op"`

	// init
	Init *Init `json:"init,omitempty"`

	// exec, result, call and reply: the exec's id
	ID     int64  `json:"id,omitempty"`
	Code   string `json:"code,omitempty"`
	Replay bool   `json:"replay,omitempty"` // exec: a journal replay; calls are answered from Journal

	// Journal holds the results a replay cannot recompute (file tools, sub-calls), as a JSON
	// list of the worker's journal entries. exec (replay): what to serve; result: what the cell
	// consumed. The parent keeps it as bytes and never decodes it.
	Journal json.RawMessage `json:"journal,omitempty"`
	// CellRoom and SessionRoom bound the journal of an exec: bytes this cell may keep, and bytes
	// the session has left. A call whose result would not fit fails with a limit error.
	CellRoom    int64 `json:"cell_room,omitempty"`
	SessionRoom int64 `json:"session_room,omitempty"`

	// validate: a name for the positions; result: the validator's findings
	Name     string      `json:"name,omitempty"`
	Findings source.List `json:"findings,omitempty"`

	// result
	Result *Result  `json:"result,omitempty"`
	Tools  *ToolLog `json:"tools,omitempty"` // the cell's host calls, in bounded form

	// call and reply
	Call *Call `json:"call,omitempty"`

	// ready
	Ready *Ready `json:"ready,omitempty"`
}

// Init configures a worker once, before any interpreter exists.
type Init struct {
	Version      int            `json:"version"` // the parent's Version
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
	Quota        Quota          `json:"quota"`
	JournalBytes int64          `json:"journal_bytes"`
	MemoryBytes  int64          `json:"memory_bytes,omitempty"`  // Options.WorkerMemory (0: the default)
	ValidateOnly bool           `json:"validate_only,omitempty"` // no engine: the worker only validates
	// Tools are the session's own tools (engine.WithTools), which the worker's engines declare
	// and pass to the parent, which alone serves them.
	Tools []engine.Func `json:"tools,omitempty"`
}

// Quota bounds what write_file may leave in the workspace; zero fields mean the defaults.
type Quota struct {
	Bytes   int64 `json:"bytes,omitempty"`
	Entries int   `json:"entries,omitempty"`
}

// Root is an allowed directory as the worker gets it: the parent's real path of it and the
// paths the user named it by (to map absolute paths to it and to name it in messages), and the
// inherited O_PATH descriptor that every open below it goes through, so the worker never opens a
// host path by name.
type Root struct {
	Path        string   `json:"path"`
	Names       []string `json:"names,omitempty"` // tools.Dir.Names
	FD          int      `json:"fd"`
	FromContext bool     `json:"from_context,omitempty"` // a context file's directory, not named by the user
}

// Ready is the worker's answer to Init: who it is, and the confinement it applied.
type Ready struct {
	Version   int      `json:"version"`         // the worker's Version
	Build     string   `json:"build,omitempty"` // the worker's BuildID
	Isolation string   `json:"isolation"`       // the verdict: full, degraded(...), none, or refused
	Layers    []string `json:"layers"`          // one line per layer; for refused, why
}

// Call is one host call: made by the worker, answered by the parent.
type Call struct {
	Seq    int    `json:"seq"`
	Name   string `json:"name"`
	Args   []any  `json:"args,omitempty"`
	Result any    `json:"result,omitempty"`
	Err    *Error `json:"error,omitempty"` // the call failed: its kind, message and position, as a cell's error
}

// ToolLog is a cell's host calls for the audit trail: the first MaxLoggedCalls in full (long
// arguments and results cut to LoggedChars), and the number of calls of every tool.
type ToolLog struct {
	Calls  []Call         `json:"calls,omitempty"`
	Counts map[string]int `json:"counts,omitempty"`
}

// MaxLoggedCalls is how many host calls of one cell are logged one by one.
const MaxLoggedCalls = 100

// Result is what the worker reports for one cell.
type Result struct {
	Stdout    string       `json:"stdout"`
	Truncated bool         `json:"truncated,omitempty"`
	Final     *string      `json:"final,omitempty"`
	Err       *Error       `json:"error,omitempty"`
	Vars      []string     `json:"vars,omitempty"`
	Locals    []engine.Var `json:"locals,omitempty"`
	// Background is set when the cell left goroutines running. They could print into, or call
	// tools during, later cells, and a replay could not repeat them: the worker asks to be
	// replaced (Rebuild), and the cell is not journaled.
	Background bool `json:"background,omitempty"`
	// Rebuild is set when the engine is left unusable (a heap still over its limit, goroutines
	// left running): the parent replaces the worker and replays the journal, which never holds
	// this cell.
	Rebuild bool `json:"rebuild,omitempty"`
	// NotRun is set when the cell failed before any of it ran and left the session as it was:
	// the parent does not journal it.
	NotRun bool `json:"not_run,omitempty"`
}

// Error is an error as it crosses the protocol, either way: a fault kind, a message, a
// position. A cell's error and a host call's error are both carried as one, so neither side
// re-imposes a kind the other already knew.
type Error struct {
	Kind    string          `json:"kind"`
	Message string          `json:"message"`       // without the position, when Pos is set
	Pos     *fault.Position `json:"pos,omitempty"` // where, when the sender knew
}

// ErrorOf flattens err for the protocol, with its kind (fault.Classify). When err's text starts
// with the position of the *fault.Error it holds, the position travels apart from the message,
// so that the receiver's error reads as err did.
func ErrorOf(err error) *Error {
	if err == nil {
		return nil
	}
	e := &Error{Kind: string(fault.Classify(err)), Message: err.Error()}
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Pos.IsValid() {
		if msg, ok := strings.CutPrefix(e.Message, fe.Pos.String()+": "); ok {
			pos := fe.Pos
			e.Message, e.Pos = msg, &pos
		}
	}
	return e
}

// Errorf is ErrorOf(fault.New(kind, format, args...)).
func Errorf(kind fault.Kind, format string, args ...any) *Error {
	return ErrorOf(fault.New(kind, format, args...))
}

// Err is e as an error on the receiving side: a *fault.Error with the sender's kind, position
// and message. A nil e is a nil error; a kind outside the closed set is a code error.
func (e *Error) Err() error {
	if e == nil {
		return nil
	}
	fe := &fault.Error{Kind: fault.Parse(e.Kind), Msg: e.Message}
	if e.Pos != nil && e.Pos.IsValid() {
		fe.Pos = *e.Pos
		fe.Pos.Filename = Cut(fe.Pos.Filename) // the sender may not be trusted
	}
	return fe
}

// Conn reads and writes protocol lines. Writes are serialised; reads happen on one goroutine.
type Conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

// NewConn reads lines from r and writes them to w.
func NewConn(r io.Reader, w io.Writer) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w}
}

// Send writes m as one line.
func (c *Conn) Send(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Op, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// Recv reads the next line, of at most MaxLine bytes.
func (c *Conn) Recv() (Message, error) {
	line, err := readLine(c.r)
	if err != nil {
		return Message{}, err
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return Message{}, fmt.Errorf("bad protocol line: %w", err)
	}
	return m, nil
}

// readLine reads one line of at most MaxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("protocol line over %d bytes", MaxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}
