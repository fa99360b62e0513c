package controller

import (
	"context"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// Model is the part of llm.Client the controller uses.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Mode chooses between one direct model call and the REPL loop.
type Mode int

// Modes. Auto uses the loop for inputs of DirectThreshold characters or more.
const (
	Auto   Mode = iota
	Direct      // one model call with the context in the prompt
	Loop        // the REPL loop, whatever the input size (--rlm, --dense)
)

// The bounds of the direct mode (fixed). The defaults of Config are in package limits.
const (
	DirectThreshold = 50_000    // characters
	MaxDirectChars  = 1_000_000 // characters a forced direct call may carry
)

// Config is one run. The zero value of every limit means its default.
type Config struct {
	Question string
	Session  repl.Options // language, context files, roots, workspace, cell timeout; Host is set by Run
	Model    Model
	Mode     Mode

	MaxIterations int // root iterations before the forced final answer (25)
	MaxSubCalls   int // llm_query calls per run, batched slots included (32)
	MaxBatches    int // llm_query_batched calls per run (8)
	BatchWidth    int // concurrent sub-calls per batch (4)
	Window        int // the root model's window in tokens; history is compacted at 85% (128,000)
	FeedbackChars int // characters of output fed back per reply, shared by its blocks (20,000)
	MaxBlocks     int // code blocks of one reply that run; later ones are skipped, and the model told (8)

	// Timeout is the run's wall clock. The caller enforces it on ctx; Run states it in the
	// system prompt and in the error when it passes. Zero: Run takes it from ctx's deadline.
	Timeout time.Duration

	// SubQuery, when set, answers llm_query prompts instead of Model (a recursive sub-RLM in a
	// child process, for depth above 1). It must be safe for concurrent use.
	// model is the configured model the code picked (llm_query's options), "" for the default.
	SubQuery func(ctx context.Context, prompt, model string) (string, error)

	Observer Observer // may be nil

	// Converted names the context files that are the text of another file, made by a converter
	// ([convert]): the first message names the original and the program instead of the text file.
	Converted []Converted
}

// Converted is a context file made by a converter from the file the user named.
type Converted struct {
	Path      string // the text file, as in Session.Contexts
	Original  string // the file the user named
	Converter string // the program that printed the text
}

// Outcome is what a run produced. Err is nil exactly when Answer is set.
type Outcome struct {
	Answer     string
	Mode       Mode
	Iterations int
	SubCalls   int
	Isolation  repl.Isolation
	Err        error // a *fault.Error: limit, timeout, early_abort, crashed, denied, ...
}

// Observer receives the run's events as they happen. Calls come from one goroutine, except
// SubCall, which batched sub-calls report concurrently.
type Observer interface {
	Progress(msg string)    // a milestone for stderr
	ModelCall(mc ModelCall) // a root model call
	Cell(c Cell)            // one executed code block
	SubCall(sc SubCall)     // one sub-call
	Iteration(it Iteration)
	// Busy says what the run waits on from now on ("iteration 2: running cell 1 of 3"), and ""
	// once it waits on nothing, so that long work can show progress while it runs.
	Busy(what string)
}

// ModelCall is one root model call.
type ModelCall struct {
	Step     int
	Messages []llm.Message
	Response llm.Response
	Err      error
}

// Cell is one executed code block of an iteration.
type Cell struct {
	Step, Index int
	Code        string
	Result      repl.Result
	SubCalls    []SubCall // made by this block, in the order they ended
	Took        time.Duration
}

// SubCall is one llm_query (or one slot of llm_query_batched).
type SubCall struct {
	Step     int
	Prompt   string
	Response llm.Response
	Answer   string
	Err      error
	Took     time.Duration
}

// Iteration is one root iteration, complete: the prompt, the response, and its cells.
type Iteration struct {
	Step     int
	Messages []llm.Message
	Response llm.Response
	Cells    []Cell
	SubCalls []SubCall
	Final    *string
	Took     time.Duration
	Forced   bool // the call after the iteration cap that asks for the final answer
}

func (c Config) withDefaults() Config {
	c.MaxIterations = limits.Or(c.MaxIterations, limits.MaxIterations)
	c.MaxSubCalls = limits.Or(c.MaxSubCalls, limits.SubCalls)
	c.MaxBatches = limits.Or(c.MaxBatches, limits.Batches)
	c.BatchWidth = limits.Or(c.BatchWidth, limits.BatchWidth)
	c.Window = limits.Or(c.Window, limits.Window)
	c.FeedbackChars = limits.Or(c.FeedbackChars, limits.FeedbackChars)
	c.MaxBlocks = limits.Or(c.MaxBlocks, limits.MaxBlocks)
	// The session's values, resolved here once: the prompt states them, and the session
	// enforces the same.
	c.Session = c.Session.WithDefaults()
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	return c
}

type nopObserver struct{}

func (nopObserver) Progress(string)     {}
func (nopObserver) ModelCall(ModelCall) {}
func (nopObserver) Cell(Cell)           {}
func (nopObserver) SubCall(SubCall)     {}
func (nopObserver) Iteration(Iteration) {}
func (nopObserver) Busy(string)         {}
