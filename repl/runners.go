package repl

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang"
	"github.com/rlm-sandbox/rlm/engine/js"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/validator"
)

// NewRunner builds the engine for cfg.Lang. It runs inside the worker, after the confinement
// layers are applied.
func NewRunner(cfg WorkerConfig, host engine.Host) (Runner, error) {
	switch cfg.Lang {
	case "go":
		e, err := golang.New(golang.Config{OutputCap: cfg.OutputCap}, host)
		if err != nil {
			return nil, err
		}
		r := &goRunner{e: e}
		// fmt is imported once for the session: models print with it in almost every cell.
		if res := r.Run(context.Background(), []byte(`import "fmt"`), true); res.Err != nil {
			return nil, fmt.Errorf("importing fmt for the session: %w", res.Err)
		}
		return r, nil
	case "js":
		e, err := js.New(js.Config{OutputCap: cfg.OutputCap}, host)
		if err != nil {
			return nil, err
		}
		return &jsRunner{e: e}, nil
	}
	return nil, fmt.Errorf("no engine for language %q in this build", cfg.Lang)
}

// jsRunner validates each cell (or only parses it, with validation off) and runs that AST.
type jsRunner struct{ e *js.Engine }

func (r *jsRunner) Run(ctx context.Context, src []byte, validate bool) engine.Result {
	res, err := validator.Validate(validator.JS, "cell.js", src, validator.Policy{}, parseOpts(validate)...)
	if err != nil {
		return engine.Result{Err: err}
	}
	if res.JS == nil || len(res.Findings) > 0 {
		return engine.Result{Err: rejection(res.Findings)}
	}
	return r.e.Exec(ctx, res.JS)
}

func (r *jsRunner) Vars() []string { return r.e.Vars() }

// goRunner validates each cell into the interpreter's own FileSet (yaegi keys declarations by
// position) and runs that AST. Every cell has the same file name, so imports persist.
type goRunner struct{ e *golang.Engine }

func (r *goRunner) Run(ctx context.Context, src []byte, validate bool) engine.Result {
	opts := append(parseOpts(validate), validator.GoFileSet(r.e.FileSet()))
	res, err := validator.Validate(validator.Go, "cell.go", src, validator.Policy{}, opts...)
	if err != nil {
		return engine.Result{Err: err}
	}
	if res.Go == nil || len(res.Findings) > 0 {
		return engine.Result{Err: rejection(res.Findings)}
	}
	if !validate {
		return r.e.ExecUnchecked(ctx, res.Go) // the lower layers alone: no type checker either
	}
	return r.e.Exec(ctx, res.Go)
}

func (r *goRunner) Vars() []string { return r.e.Vars() }

func parseOpts(validate bool) []validator.Option {
	if validate {
		return nil
	}
	return []validator.Option{validator.ParseOnly()}
}

// rejection turns findings into one error of kind rejected (or code, for a syntax error with the
// validator off), listing every finding on its own line.
func rejection(l validator.List) error {
	lines := make([]string, len(l))
	kind := fault.Rejected
	for i, f := range l {
		lines[i] = f.Error()
		if f.Rule == validator.Syntax && len(l) == 1 {
			kind = fault.Code
		}
	}
	return fault.New(kind, "%s", strings.Join(lines, "\n"))
}
