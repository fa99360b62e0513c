package js

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/internal/prefault"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
)

const heapSampleEvery = 5 * time.Millisecond // watchdog sampling period

// Config tunes an Engine. The zero value is safe: every zero field means its default, and no
// field can switch a limit off.
type Config struct {
	// Limits are the model-facing caps; the engine applies OutputChars (printed output per
	// cell) and bounds the memory a FINAL serialisation may take by FinalChars (the answer's
	// cap itself is engine.CheckFinal, applied by the caller). Zero fields mean defaults.
	Limits        engine.Limits
	Contexts      int           // context documents: ctx0 (the same handle as context) … ctx{Contexts-1}
	MaxCallStack  int           // maximum JS call depth (default limits.JSCallStack)
	HeapLimit     uint64        // live Go heap in bytes above which a cell is stopped, process-wide (default limits.JSHeap(0))
	RegexpTimeout time.Duration // backtracking regexp match timeout; process-wide, first New wins (default limits.JSRegexpTimeout)
	// API is the session's model API (engine.WithTools: engine.API and the session's tools);
	// nil is engine.API.
	API engine.Registry
	// AsWritten runs cells without the rewrites of forof.go, destructure.go, concat.go,
	// splitws.go, matchascii.go and sortnum.go: for tests that compare what a cell gives with and without them.
	AsWritten bool
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.Effective()
	if c.MaxCallStack <= 0 {
		c.MaxCallStack = limits.JSCallStack
	}
	if c.HeapLimit == 0 {
		c.HeapLimit = limits.JSHeap(0)
	}
	if c.RegexpTimeout <= 0 {
		c.RegexpTimeout = limits.JSRegexpTimeout
	}
	return c
}

// ContextArg is what the host receives for a Context parameter when model code passes the
// `context` handle (or ctx0, the same handle); ctx1, ctx2, … pass their names.
const ContextArg = "context"

var regexpTimeoutOnce sync.Once

// setRegexpTimeout bounds every backtracking match of regexps compiled from now on. The variable
// is process-wide and read by regexp2.Compile, so it is set once, before any runtime exists.
func setRegexpTimeout(d time.Duration) {
	regexpTimeoutOnce.Do(func() { regexp2.DefaultMatchTimeout = d })
}

// Engine is one JS session: a hardened goja runtime whose global state persists across cells.
// It is not safe for concurrent use: run one cell at a time.
type Engine struct {
	cfg      Config
	host     engine.Host
	vm       *goja.Runtime
	handle   *goja.Object            // the `context` global
	handles  map[*goja.Object]string // every context handle (context, ctx1, …) and its host name
	apiFuncs map[string]*goja.Object // the API's function objects, by name (see shadowed)
	baseline map[string]bool         // global names that exist before any cell: never model variables
	cell     *cellState              // the running cell, nil between cells
	closed   atomic.Bool
	hostErrs map[*goja.Object]error // errors thrown by host functions in this cell, by JS object
	natives  natives                // built-ins the variables view calls (see Locals)
	cat      *catBuffers            // the text __rlm_cat builds (concat.go), released after each cell
	broken   bool                   // goja panicked: the runtime must be rebuilt (see runProgram)
}

// cellState is what one Exec collects.
type cellState struct {
	ctx      context.Context
	out      output
	final    *engine.Final
	rejected []*goja.Promise
}

// New builds a runtime, installs the model API from Config.API (engine.API and the session's tools) and runs the hardening prelude.
func New(cfg Config, host engine.Host) (*Engine, error) {
	if host == nil {
		return nil, errors.New("js: New needs a Host")
	}
	cfg = cfg.withDefaults()
	prefault.Heap(4 << 20) // a hardened runtime is about 2.5 MB of allocation
	setRegexpTimeout(cfg.RegexpTimeout)
	e := &Engine{cfg: cfg, host: host, vm: goja.New()}
	e.vm.SetMaxCallStackSize(cfg.MaxCallStack)
	e.vm.SetPromiseRejectionTracker(e.trackRejection)
	// What is installed before the intrinsics are frozen: the model API, then what the rewritten
	// cells call (forof.go, destructure.go, splitws.go, concat.go, matchascii.go, sortnum.go) and the faster JSON.parse.
	for _, in := range []struct {
		what    string
		install func() error
	}{
		{"API", e.installAPI}, {plainArrayName, e.installPlainArray}, {takeName, e.installDestructure},
		{"JSON.parse", e.installJSONParse}, {splitWSName, e.installSplitWS}, {catName, e.installCat},
		{matchOfName, e.installMatchASCII}, {sortNumName, e.installSortNum},
	} {
		if err := in.install(); err != nil {
			return nil, fmt.Errorf("js: install %s: %w", in.what, err)
		}
	}
	if err := harden(e.vm, writableGlobals()); err != nil {
		return nil, fmt.Errorf("js: hardening prelude: %w", err)
	}
	if err := e.takeNatives(); err != nil {
		return nil, fmt.Errorf("js: %w", err)
	}
	e.baseline = map[string]bool{}
	for _, name := range e.vm.GlobalObject().GetOwnPropertyNames() {
		e.baseline[name] = true
	}
	return e, nil
}

// Exec runs one validated cell. Top-level declarations persist for later cells.
func (e *Engine) Exec(ctx context.Context, unit *source.JSUnit) engine.Result {
	if e.closed.Load() {
		return engine.Result{Err: fault.New(fault.Crashed, "the JS engine is closed")}
	}
	if unit == nil || unit.Program == nil {
		return engine.Result{Err: fault.New(fault.Code, "no program to run"), NotRun: true}
	}
	prg, err := e.compile(unit)
	if err != nil {
		return engine.Result{Err: err, NotRun: true}
	}
	st := &cellState{ctx: ctx, out: output{cap: e.cfg.Limits.OutputChars}}
	e.cell, e.hostErrs = st, map[*goja.Object]error{}
	defer func() { e.cell, e.hostErrs = nil, nil; e.cat.release() }()
	runErr := e.run(ctx, prg, unit)
	if runErr == nil && st.final == nil {
		st.out.write(unshownNote(unit))
	}
	stdout, truncated := st.out.result()
	return engine.Result{
		Stdout: stdout, Truncated: truncated, Final: st.final, Err: runErr,
		Rebuild: e.broken || errors.Is(runErr, fault.Limit) && liveHeapOver(e.cfg.HeapLimit/4*3),
	}
}

// run executes prg under the cell's limits: cancellation and the heap watchdog interrupt the
// runtime; both stay armed until the error (which may run model getters) has been formatted.
func (e *Engine) run(ctx context.Context, prg *goja.Program, unit *source.JSUnit) error {
	e.vm.ClearInterrupt()
	if e.closed.Load() { // Close ran after Exec's check: its interrupt may just have been cleared
		return fault.New(fault.Crashed, "the JS engine is closed")
	}
	if err := ctx.Err(); err != nil {
		return fault.Wrap(fault.Timeout, err, "cell not started: the deadline had already passed")
	}
	stop := watch(ctx, e.vm, e.cfg.HeapLimit)
	defer func() {
		stop()
		e.vm.ClearInterrupt()
	}()
	err := e.runProgram(prg)
	if e.broken {
		return err
	}
	if err == nil {
		err = e.unhandledRejection()
	}
	return e.cellError(err, unit)
}

// runProgram runs prg and turns a panic inside goja into an error instead of a dead worker:
// goja has bugs a cell can reach (its in-place sort indexes past an array that a comparator's
// valueOf shortened). The runtime's state is then unknown, so the engine asks to be rebuilt.
func (e *Engine) runProgram(prg *goja.Program) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.broken = true
			err = &fault.Error{Kind: fault.Code, Msg: fmt.Sprintf("internal error in the JS engine: %v; the session restores its state by running the earlier cells again: do what this cell did another way", r)}
		}
	}()
	_, err = e.vm.RunProgram(prg)
	return err
}

// trackRejection records promises rejected with no handler; a handler attached later removes it.
func (e *Engine) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if e.cell == nil {
		return
	}
	switch op {
	case goja.PromiseRejectionReject:
		e.cell.rejected = append(e.cell.rejected, p)
	case goja.PromiseRejectionHandle:
		for i, q := range e.cell.rejected {
			if q == p {
				e.cell.rejected = append(e.cell.rejected[:i], e.cell.rejected[i+1:]...)
				break
			}
		}
	}
}

func (e *Engine) unhandledRejection() error {
	if len(e.cell.rejected) == 0 {
		return nil
	}
	reason := e.describe(e.cell.rejected[0].Result())
	return fault.New(fault.Code, "Uncaught (in promise) %s", reason)
}

// Vars lists the session's top-level variables, functions and classes, sorted.
func (e *Engine) Vars() []string {
	if e.closed.Load() {
		return nil
	}
	names := e.shadowed()
	for _, name := range e.vm.GlobalObject().GetOwnPropertyNames() {
		if !e.baseline[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Close ends the session: a running cell is interrupted (best effort: Close may be called from
// another goroutine), and Exec afterwards fails.
func (e *Engine) Close() {
	if e.closed.Swap(true) {
		return
	}
	e.vm.Interrupt(fault.New(fault.Crashed, "the JS engine was closed"))
}
