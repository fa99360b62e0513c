package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/redact"
)

// Metadata describes the run; it is the trace's first line.
type Metadata struct {
	RootModel         string
	MaxDepth          int
	MaxIterations     int
	Backend           string         // e.g. "openai" (an OpenAI-compatible endpoint)
	BackendKwargs     map[string]any // JSON-encodable; never put the API key here (it is redacted anyway)
	EnvironmentType   string         // "" means "rlm-sandbox"
	EnvironmentKwargs map[string]any // JSON-encodable
	OtherBackends     []string
	TaskID            string // rlm extension
	Question          string // rlm extension
	Lang              string // rlm extension: "go" or "js"
}

// Message is one chat message of a root-model prompt.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Usage counts the tokens of one model call, and its cost in US dollars when known (nil: no
// price and none reported; it is never written as 0 then).
type Usage struct {
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Cost             *float64 `json:"cost,omitempty"`
}

// Cost is an amount of US dollars that may be partly unknown: USD sums the calls of known cost,
// Unknown counts the others.
type Cost struct {
	USD     float64
	Unknown int
}

// String writes the cost for a person as rlm's progress lines do: "$0.012345" (to the
// millionth of a dollar, trailing zeros dropped), "unknown (3 calls)", or "≥ $0.0123 (2 calls
// of unknown cost)".
func (c Cost) String() string {
	usd := "$" + strconv.FormatFloat(math.Round(c.USD*1e6)/1e6, 'f', -1, 64)
	calls := fmt.Sprintf("%d calls", c.Unknown)
	if c.Unknown == 1 {
		calls = "1 call"
	}
	switch {
	case c.Unknown == 0:
		return usd
	case c.USD == 0:
		return "unknown (" + calls + ")"
	}
	return "≥ " + usd + " (" + calls + " of unknown cost)"
}

// Iteration is one turn of the root model: the prompt it was sent, its response, and the code
// blocks run from that response.
type Iteration struct {
	Prompt      []Message
	Response    string
	CodeBlocks  []CodeBlock
	FinalAnswer *string       // set when a block of this iteration recorded the answer
	Time        time.Duration // model call plus code; 0 is written as null
	Usage       Usage         // the root call's tokens
	Forced      bool          // the call made after the iteration cap, asking for a final answer
}

// CodeBlock is one cell run during an iteration, with its result.
type CodeBlock struct {
	Code     string
	Stdout   string
	Stderr   string
	Locals   []Var // the session's variables after the block; capped as Var says
	Time     time.Duration
	SubCalls []SubCall
	Final    *string    // the answer this block recorded with FINAL/FINAL_VAR
	ErrKind  fault.Kind // "" when the block succeeded
	ErrMsg   string
}

// Var is one REPL variable as a block left it. Only Name is required: a Var with no Repr is
// written with an empty value, which the viewer shows as "not recorded".
//
// A block's Locals are written in order, at most MaxLocals of them (the count of the rest is
// written too); Name is cut to MaxNameChars, Type to MaxTypeChars and Repr to MaxReprChars
// characters, a cut marked with "…", and every one is redacted. The engines are expected to
// give a Repr already short (a prefix of a long string, the first elements of a slice), never
// the whole context.
type Var struct {
	Name string // the identifier, e.g. "errs"
	Type string // the engine's type name, e.g. "[]string", "Array", "number"; "" if unknown
	Repr string // a short rendering of the value, e.g. `["a", "b", … 40 more]`; "" if unknown
}

// Caps on the variables written for one code block.
const (
	MaxLocals    = 100
	MaxNameChars = 100
	MaxTypeChars = 80
	MaxReprChars = 200
)

// SubCall is one llm_query made by a cell.
type SubCall struct {
	Model    string // the model that answered (its configured name)
	Backend  string // the backend that served it
	Prompt   string
	Response string
	Usage    Usage
	Time     time.Duration
	Error    string // non-empty when the call failed (Response is then empty)
}

// Outcome is how the run ended. It is kept beside the trace, in the file OutcomePath names.
type Outcome struct {
	TaskID   string
	Status   string // ANSWERED, FAILED, ABORTED (as in package audit)
	Answer   string
	ErrKind  fault.Kind
	ErrMsg   string
	Usage    Usage         // the tokens of the model calls this process made, root and sub-calls
	Tokens   int           // every token charged to the task, recursive sub-runs included
	Calls    int           // every API call charged to the task
	Cost     *Cost         // every dollar charged to the task; nil: not recorded (older rlm)
	WallTime time.Duration // the whole run
}

// OutcomePath is where Finish keeps the outcome of the run traced in tracePath: the same name
// with ".outcome.json" for ".jsonl", so that the trace itself holds only lines the reference
// visualizer reads (see the package documentation).
func OutcomePath(tracePath string) string {
	return strings.TrimSuffix(tracePath, ".jsonl") + ".outcome.json"
}

// ReadOutcome reads the outcome kept for the trace at tracePath. ok is false, with no error,
// when there is none (a run still going, or one killed before it could write it).
func ReadOutcome(tracePath string) (o Outcome, ok bool, err error) {
	return readOutcome(OutcomePath(tracePath))
}

// Find returns the trace of task taskID in dir (RLM_HOME/traces): the one file named
// rlm_<time>_<taskID>.jsonl. The id must be a plain name.
func Find(dir, taskID string) (string, error) {
	return find(dir, taskID)
}

// ErrFinished is returned (wrapped) by a Writer used after Finish or Close.
var ErrFinished = errors.New("trace already finished")

// Writer appends the records of one run to a trace file. It is safe for concurrent use.
type Writer struct {
	mu       sync.Mutex
	f        *os.File
	path     string
	red      *redact.Redactor
	now      func() time.Time
	meta     metadataRecord
	n        int // iterations written
	finished bool
}

// FileName is the trace file name of a run that started at start: "rlm_2026-11-22_06-15-00_" +
// taskID + ".jsonl", the reference's naming with a UTC time and the task id.
func FileName(start time.Time, taskID string) string {
	return "rlm_" + start.UTC().Format("2006-01-02_15-04-05") + "_" + taskID + ".jsonl"
}

// Create creates the trace file at path (its directory too; an existing file is an error) and
// writes the metadata line. r redacts every string; nil means redact.New().
func Create(path string, meta Metadata, r *redact.Redactor) (*Writer, error) {
	return create(path, meta, r, time.Now)
}

// Iteration appends one iteration, numbered from 1 in the order of the calls.
func (w *Writer) Iteration(it Iteration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return fmt.Errorf("trace %s: iteration %d: %w", w.path, w.n+1, ErrFinished)
	}
	w.n++
	return w.writeLine(w.iterationRecord(it), "iteration")
}

// Finish writes the outcome beside the trace (OutcomePath), whole or not at all. The Writer
// accepts no record after it; Close still has to be called.
func (w *Writer) Finish(o Outcome) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return fmt.Errorf("trace %s: finish: %w", w.path, ErrFinished)
	}
	w.finished = true
	if o.TaskID == "" {
		o.TaskID = w.meta.TaskID
	}
	rec := w.outcomeRecord(o)
	rec.Timestamp = stamp(w.now())
	if err := writeAtomic(OutcomePath(w.path), rec); err != nil {
		return fmt.Errorf("trace %s: outcome: %w", w.path, err)
	}
	return nil
}

// Close closes the file. Every record was already synced when its call returned.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.finished = true
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("trace %s: close: %w", w.path, err)
	}
	return nil
}

// Summary is what Summarize found in a trace.
type Summary struct {
	TaskID, RootModel, Question string
	Iterations                  int
	CodeBlocks                  int
	Errors                      map[string]int // code blocks by error kind; "stderr" when only stderr says so
	SubCalls, SubCallErrors     int
	PromptTokens                int // the outcome's, else the sum of root and sub-call records
	CompletionTokens            int
	Tokens, Calls               int           // the outcome's task totals (sub-runs included); 0 without one
	Cost                        *Cost         // the outcome's; nil when it records none
	WallTime                    time.Duration // the outcome's, else the sum of iteration times
	FinalAnswer                 string        // the outcome's answer, else the last final_answer
	HasFinal                    bool
	Status                      string // from the outcome; "" when the trace has none
	ErrKind, ErrMsg             string // from the outcome
	TruncatedBytes              int    // size of an unterminated, unparsable last line (0: none)
}

// Summarize reads a trace (ours or the reference's). A last line cut short by a crash is
// reported in TruncatedBytes, not as an error; any other malformed line is an error. The
// outcome is not in the trace: SummarizeFile adds it.
func Summarize(r io.Reader) (Summary, error) {
	return summarize(r)
}

// SummarizeFile summarizes the trace at path with the outcome kept beside it, if any.
func SummarizeFile(path string) (Summary, error) {
	return summarizeFile(path)
}

// Format writes s for a person, one figure per line; the final answer is cut to 200 characters,
// and a truncated last line is reported as a warning.
func (s Summary) Format(w io.Writer) error {
	return s.format(w)
}

// PromptStore keeps every sub-call's prompt and response on disk, one redacted JSON file per
// call: <dir>/<task>/subcalls/0001.json, 0002.json, … It is safe for concurrent use.
type PromptStore struct {
	mu   sync.Mutex
	dir  string
	task string
	red  *redact.Redactor
	now  func() time.Time
	n    int
}

// NewPromptStore creates <dir>/<task>/subcalls. task must be a plain name (no separator, not
// "." or ".."). r redacts every string; nil means redact.New().
func NewPromptStore(dir, task string, r *redact.Redactor) (*PromptStore, error) {
	if task == "" || task == "." || task == ".." || filepath.Base(task) != task {
		return nil, fmt.Errorf("trace: prompt store in %s: task id %q is not a plain name", dir, task)
	}
	if r == nil {
		r = redact.New()
	}
	s := &PromptStore{dir: filepath.Join(dir, task, "subcalls"), task: task, red: r, now: time.Now}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("trace: prompt store: %w", err)
	}
	return s, nil
}

// Save writes one sub-call to the next numbered file and returns its path.
func (s *PromptStore) Save(c SubCall) (string, error) {
	return s.save(c)
}
