package golang

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang/desugar"
	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/engine/internal/prefault"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
)

// Config configures an Engine. The zero value is safe and means the defaults.
//
// The packages and symbols cells may use are the engine's own, generated from the validator's
// default policy (see allowedImports): no configuration widens them.
type Config struct {
	OutputCap int    // characters of output kept per cell; 0 means limits.OutputChars
	Context   string // name of the document bound to `context`; "" means "ctx0"
	Contexts  int    // number of context documents: ctx0 … ctx{Contexts-1} are declared too
	// API is the session's model API (engine.WithTools: engine.API and the session's tools);
	// nil is engine.API.
	API engine.Registry
}

// Engine runs Go cells with yaegi. State (variables, functions, types, imports) persists from
// one cell to the next. An Engine runs one cell at a time.
type Engine struct {
	mu      sync.Mutex
	it      *interp.Interpreter
	host    engine.Host
	api     engine.Registry // the session's model API (Config.API)
	out     *capture        // stdout of the current cell
	stderr  *capture        // yaegi's panic trace of the current cell (not shown; read for positions)
	smu     sync.Mutex      // guards state
	state   cellState
	sess    *desugar.Session
	imports map[string]bool // imports already compiled, by file (see importKey)
	closed  bool
	preds   sync.Map // compiled rune predicates, by text (see runePred)
	sorts   sync.Map // parsed sort specs, by text (see sortBy)

	gen    atomic.Uint64 // counts cells (see at)
	busy   bool          // a cancelled cell is still inside a native call (see waitIdle)
	types  *typecheck.Session
	loaded map[string]bool // packages registered so far (see ensure)
	copier *varCopier
}

// cellState is what the bridge records during one cell.
type cellState struct {
	ctx      context.Context
	final    *engine.Final
	finalVar string
	at       int      // index of the top-level statement running (see desugar.Pass.Body), or -1
	defers   []func() // calls deferred at top level (see topDefer)
}

// New returns an engine whose model API calls go to host.
func New(cfg Config, host engine.Host) (*Engine, error) {
	if host == nil {
		return nil, errors.New("golang.New: nil host")
	}
	if cfg.OutputCap <= 0 {
		cfg.OutputCap = limits.OutputChars
	}
	if cfg.Context == "" {
		cfg.Context = "ctx0"
	}
	clearYaegiEnv()
	prefault.Heap(2 << 20) // an interpreter with the prelude compiled is about 1 MB of allocation
	e := &Engine{host: host, api: cfg.API, out: newCapture(cfg.OutputCap), stderr: newCapture(4096), sess: desugar.NewSession(), imports: map[string]bool{},
		loaded: map[string]bool{}}
	e.it = interp.New(interp.Options{
		Stdin:                strings.NewReader(""),
		Stdout:               e.out,
		Stderr:               e.stderr,
		Args:                 []string{},
		Env:                  []string{},
		SourcecodeFilesystem: fstest.MapFS{},
		GoPath:               "",
		Unrestricted:         false,
	})
	if err := e.it.Use(interp.Exports{bridgePath + "/" + bridgePath: e.bridgeSymbols()}); err != nil {
		return nil, fmt.Errorf("golang.New: %w", err)
	}
	src := prelude(cfg.API, cfg.Context, cfg.Contexts)
	if err := e.load(preludeFile, src); err != nil {
		return nil, fmt.Errorf("golang.New: prelude: %w", err)
	}
	e.types = typecheck.NewSession(library(), allowedImports(), src, bridgePath)
	return e, nil
}

// clearYaegiEnv removes the YAEGI_* variables yaegi reads at New (they turn on graph dumps that
// run an external command, disable running, or change how channels and stdio behave).
func clearYaegiEnv() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "YAEGI_") {
			os.Unsetenv(k)
		}
	}
}

// load compiles and runs trusted source.
func (e *Engine) load(name, src string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f, err := parser.ParseFile(e.it.FileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	p, err := e.it.CompileAST(f)
	if err != nil {
		return err
	}
	_, err = e.it.Execute(p)
	return err
}

// FileSet is the FileSet cells must be parsed into: source.Options.FileSet, or
// validator.GoFileSet(e.FileSet()) when the validator parses them.
func (e *Engine) FileSet() *token.FileSet { return e.it.FileSet() }

// Exec runs one validated cell: a whole program (its main runs once) or a snippet (its
// declarations, then its statements). The cell's output, its FINAL answer and its error are
// returned; a panic, a compile error and a timeout are errors of a fault kind, not Go errors.
func (e *Engine) Exec(ctx context.Context, u *source.GoUnit) engine.Result {
	return e.execute(ctx, u, true)
}

// ExecUnchecked runs a cell without the type checker, for testing the interpreter and the
// layers below it alone (with the validator off, rlm run --no-validate). The rewrites that need
// types are not made, so modern constructs (min, range over an integer, ...) fail as in yaegi.
func (e *Engine) ExecUnchecked(ctx context.Context, u *source.GoUnit) engine.Result {
	return e.execute(ctx, u, false)
}

func (e *Engine) execute(ctx context.Context, u *source.GoUnit, checked bool) engine.Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.out.reset()
	e.stderr.reset()
	e.gen.Add(1)
	e.withState(func(st *cellState) { *st = cellState{ctx: ctx, at: -1} })
	err := e.safeExec(ctx, u, checked)
	res := engine.Result{Stdout: e.out.String(), Truncated: e.out.truncated(), Final: e.snapshot().final, Err: err, NotRun: isCompileError(err)}
	e.withState(func(st *cellState) { *st = cellState{} })
	return res
}

// withState runs f with the cell state locked: the bridge's callbacks run on the interpreter's
// goroutine, and one of an interrupted cell may still be running.
func (e *Engine) withState(f func(st *cellState)) {
	e.smu.Lock()
	defer e.smu.Unlock()
	f(&e.state)
}

func (e *Engine) snapshot() cellState {
	e.smu.Lock()
	defer e.smu.Unlock()
	return e.state
}

// safeExec turns a panic of the engine's own code (a bug) into an error: the worker survives.
func (e *Engine) safeExec(ctx context.Context, u *source.GoUnit, checked bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &fault.Error{Kind: fault.Code, Msg: fmt.Sprintf("internal error in the Go engine: %v", r)}
		}
	}()
	return e.exec(ctx, u, checked)
}

func (e *Engine) exec(ctx context.Context, u *source.GoUnit, checked bool) error {
	if e.busy && !e.waitIdle(idleGrace) {
		return &fault.Error{Kind: fault.Timeout, Msg: "an interrupted cell is still inside a long call of a Go package; start a new session"}
	}
	e.busy = false
	switch {
	case e.closed:
		return fault.New(fault.Code, "the engine is closed")
	case u == nil || u.Decls == nil:
		return fault.New(fault.Code, "no parsed unit: validate the cell first")
	case u.Fset != e.it.FileSet():
		return fault.New(fault.Code, "the cell was parsed into another FileSet: parse it into engine.FileSet() (source.Options.FileSet, validator.GoFileSet)")
	}
	var tc *typecheck.Cell
	if checked {
		var err error
		if tc, err = e.types.Check(u); err != nil {
			return typeError(u, err)
		}
		if err := hostStores(tc, u); err != nil {
			return err
		}
		e.noteImports(tc.Added)
	} else {
		typecheck.HoistVars(u)
	}
	d := desugar.New(e.sess, u, e.gen.Load(), tc)
	mainName := d.File(u.Decls)
	if u.Body != nil {
		d.Body(u.Body)
	}
	if err := e.ensureImports(u.Decls); err != nil {
		return &fault.Error{Kind: fault.Code, Msg: "loading packages: " + err.Error()}
	}
	commit := func(body bool) {
		d.Commit(body)
		if tc != nil {
			tc.Commit(body)
		}
	}
	c := &cell{e: e, u: u, marks: d.Marks()}
	if err := c.decls(ctx); err != nil {
		return err
	}
	switch {
	case mainName != "":
		commit(true)
		if err := c.run(ctx, e.synthetic(mainName+"()"), nil); err != nil {
			return err
		}
	case u.Body != nil:
		err := c.stmts(ctx, u.Body.List)
		commit(err == nil || !isCompileError(err))
		if d.Defers() && ctx.Err() == nil {
			if derr := c.run(ctx, e.synthetic("_runDefers()"), nil); err == nil {
				err = derr
			}
		}
		if err != nil {
			return err
		}
	default:
		commit(true)
	}
	return e.finalVar(ctx, c)
}

// noteImports tells the model, first in the cell's output, which imports the cell was given.
func (e *Engine) noteImports(paths []string) {
	if len(paths) == 0 {
		return
	}
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = strconv.Quote(p)
	}
	word := "import"
	if len(paths) > 1 {
		word = "imports"
	}
	fmt.Fprintf(e.out, "added %s %s\n", word, strings.Join(quoted, ", "))
}

// finalVar records the value of the variable named by FINAL_VAR.
func (e *Engine) finalVar(ctx context.Context, c *cell) error {
	name := e.snapshot().finalVar
	if name == "" {
		return nil
	}
	if !token.IsIdentifier(name) || !e.sess.Declared(name) {
		return &fault.Error{Kind: fault.Code, Msg: fmt.Sprintf("FINAL_VAR(%q): no variable of that name; the variables are: %s", name, strings.Join(e.varNames(), ", "))}
	}
	return c.run(ctx, e.synthetic("FINAL("+name+")"), nil)
}

// synthetic parses a statement the engine itself runs.
func (e *Engine) synthetic(stmt string) *ast.BlockStmt {
	f, err := parser.ParseFile(e.it.FileSet(), "rlm_engine.go", "package main; func _() { "+stmt+" }", parser.SkipObjectResolution)
	if err != nil {
		panic(err) // the engine's own statements always parse
	}
	return f.Decls[0].(*ast.FuncDecl).Body
}

// idleGrace is how long a cancelled cell may take to unwind before the engine stops waiting.
const idleGrace = time.Second

// waitIdle waits up to d until no goroutine runs this engine's interpreter. ExecuteWithContext
// returns as soon as the context is done, but the goroutine running the cell goes on until its
// next interpreted step, which a long native call (a regexp over megabytes, a huge
// strings.Repeat) can delay; yaegi offers no way to wait for it, so the engine looks for it in
// the goroutine stacks. The next cell never runs alongside it.
func (e *Engine) waitIdle(d time.Duration) bool {
	needle := fmt.Sprintf("interp.(*Interpreter).Execute(%p", e.it)
	buf := make([]byte, 1<<16)
	for deadline := time.Now().Add(d); ; {
		n := runtime.Stack(buf, true)
		if n == len(buf) && len(buf) < 64<<20 {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if !strings.Contains(string(buf[:n]), needle) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Vars returns the names of the variables that cells have declared at top level, sorted.
func (e *Engine) Vars() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.varNames()
}

func (e *Engine) varNames() []string {
	names := e.sess.Vars()
	sort.Strings(names)
	return names
}

// Close releases the interpreter. Exec after Close fails.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}
