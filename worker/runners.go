package worker

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang"
	"github.com/rlm-sandbox/rlm/engine/js"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// NewRunner builds the engine for cfg.Lang. It runs inside the worker, after the confinement
// layers are applied.
func NewRunner(cfg Config, host engine.Host) (Runner, error) {
	lim := cfg.Limits
	switch cfg.Lang {
	case "go":
		e, err := golang.New(golang.Config{OutputCap: lim.OutputChars, Contexts: len(cfg.ContextFDs), API: cfg.API}, host)
		if err != nil {
			return nil, err
		}
		r := &goRunner{e: e}
		// fmt is imported once for the session: models print with it in almost every cell.
		if res := r.Run(context.Background(), []byte(`import "fmt"`), true); res.Err != nil {
			return nil, fmt.Errorf("importing fmt for the session: %w", res.Err)
		}
		return finalCap{r, lim}, nil
	case "js":
		e, err := js.New(js.Config{Limits: lim, Contexts: len(cfg.ContextFDs), HeapLimit: limits.JSHeap(cfg.Memory), API: cfg.API}, host)
		if err != nil {
			return nil, err
		}
		return finalCap{&jsRunner{e: e}, lim}, nil
	}
	return nil, fmt.Errorf("no engine for language %q in this build", cfg.Lang)
}

// finalCap is where the answer's size is enforced, once for both languages and for FINAL and
// FINAL_VAR alike: an answer over Limits.FinalChars is dropped and the cell fails with
// engine.CheckFinal's error, which says what to do instead.
type finalCap struct {
	Runner
	lim engine.Limits
}

func (r finalCap) Run(ctx context.Context, src []byte, validate bool) engine.Result {
	res := r.Runner.Run(ctx, src, validate)
	if res.Final != nil {
		if err := engine.CheckFinal(r.lim, res.Final.Value); err != nil {
			res.Final = nil
			if res.Err == nil {
				res.Err = err
			}
		}
	}
	return res
}

// jsRunner validates each cell (or only parses it, with validation off) and runs that AST.
type jsRunner struct{ e *js.Engine }

func (r *jsRunner) Run(ctx context.Context, src []byte, validate bool) engine.Result {
	// The session's top-level variables are in scope: a cell may use frames, declared by an
	// earlier cell, although the name is a denied global where it is free.
	opts := append(parseOpts(validate), validator.JSDeclared(r.e.Vars()))
	res, err := validator.Validate(source.JS, "cell.js", src, validator.Policy{}, opts...)
	if err != nil {
		return engine.Result{Err: err, NotRun: true}
	}
	if res.JS == nil || len(res.Findings) > 0 {
		return engine.Result{Err: rejection(res.Findings), NotRun: true}
	}
	return r.e.Exec(ctx, res.JS)
}

func (r *jsRunner) Vars() []string { return r.e.Vars() }

func (r *jsRunner) Locals() []engine.Var { return r.e.Locals() }

// goRunner validates each cell into the interpreter's own FileSet (yaegi keys declarations by
// position) and runs that AST. Every cell has the same file name, so imports persist.
type goRunner struct{ e *golang.Engine }

func (r *goRunner) Run(ctx context.Context, src []byte, validate bool) engine.Result {
	opts := append(parseOpts(validate), validator.GoFileSet(r.e.FileSet()))
	res, err := validator.Validate(source.Go, "cell.go", src, validator.Policy{}, opts...)
	if err != nil {
		return engine.Result{Err: err, NotRun: true}
	}
	if res.Go == nil || len(res.Findings) > 0 {
		return engine.Result{Err: rejection(res.Findings), NotRun: true}
	}
	if !validate {
		return r.e.ExecUnchecked(ctx, res.Go) // the lower layers alone: no type checker either
	}
	return r.e.Exec(ctx, res.Go)
}

func (r *goRunner) Vars() []string { return r.e.Vars() }

func (r *goRunner) Locals() []engine.Var { return r.e.Locals() }

func parseOpts(validate bool) []validator.Option {
	if validate {
		return nil
	}
	return []validator.Option{validator.ParseOnly()}
}

// rejection turns findings into one error of kind rejected (or code, for a syntax error with the
// validator off), listing every finding on its own line.
func rejection(l source.List) error {
	lines := make([]string, len(l))
	kind := fault.Rejected
	for i, f := range l {
		lines[i] = f.Error()
		if f.Rule == source.Syntax && len(l) == 1 {
			kind = fault.Code
		}
	}
	return fault.New(kind, "%s", strings.Join(lines, "\n"))
}

// interpreterFrames mark a goroutine that runs model code, or was started by it: yaegi runs Go
// cells (and the goroutines they start) in its interpreter; goja runs JS on the calling
// goroutine and cannot start one.
var interpreterFrames = [][]byte{[]byte("github.com/traefik/yaegi/interp."), []byte("github.com/dop251/goja.")}

// interpreterGoroutines returns the IDs of the goroutines whose stack, or whose creator, lies in
// an interpreter. Goroutines of libraries that run no model code, such as the clock regexp2
// keeps for match timeouts (started by a JS regex with a lookahead, and alive for a second
// after), are not among them.
func interpreterGoroutines() map[int64]bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	ids := map[int64]bool{}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		rest, ok := bytes.CutPrefix(g, []byte("goroutine "))
		if !ok {
			continue
		}
		end := bytes.IndexByte(rest, ' ')
		id, err := strconv.ParseInt(string(rest[:max(end, 0)]), 10, 64)
		if err != nil {
			continue
		}
		for _, f := range interpreterFrames {
			if bytes.Contains(g, f) {
				ids[id] = true
				break
			}
		}
	}
	return ids
}

// leftRunning reports whether the cell left model code running: a goroutine of an interpreter
// that was not there before the cell, after giving the engine's own per-cell goroutines a
// moment to end (a Go cell stopped at its deadline inside a long native call goes on until
// the call returns, for one).
func leftRunning(before map[int64]bool) bool {
	for i := 0; i < 20; i++ {
		left := false
		for id := range interpreterGoroutines() {
			left = left || !before[id]
		}
		if !left {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}
