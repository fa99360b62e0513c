package rlm

import (
	"context"
	"slices"
	"sync"

	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/internal/convert/cache"
	"github.com/rlm-sandbox/rlm/internal/files"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/tools"
)

// session is a Session's state.
type session struct {
	s         *repl.Session
	tools     *toolHost    // serves SessionOptions.Tools; nil without them
	texts     []cache.Text // the inputs converted to text (SessionOptions.Convert)
	converted []Conversion // the same, as Conversions gives them

	mu     sync.Mutex
	ws     files.Workspace
	closed bool
}

// opening is a session's options checked, with what opening it has made so far.
type opening struct {
	SessionOptions
	lang  source.Lang
	files []string // absolute; a converted one replaced by its text
	set   toolSet
	texts []cache.Text
	ws    files.Workspace
}

func openSession(ctx context.Context, o SessionOptions) (*Session, error) {
	op := opening{SessionOptions: o}
	if err := op.check(); err != nil {
		return nil, err
	}
	if err := op.prepare(ctx); err != nil {
		return nil, err
	}
	ro := repl.Options{Lang: string(op.lang), Contexts: op.files, Roots: o.Roots, Workspace: op.ws.Dir, Home: op.Home,
		CellTimeout: o.CellTimeout, Limits: o.Limits, Quota: o.Quota, WorkerMemory: o.WorkerMemory, NoValidate: o.NoValidate, AllowDegraded: o.AllowDegraded,
		Indexes: indexCache(op.Home, o.Warn)}
	var th *toolHost
	if op.set.api != nil {
		th = newToolHost(op.set, op.files, o.Roots, op.ws.Dir, op.Home)
		ro.API, ro.Host = op.set.api, th
	}
	s, err := repl.Open(ctx, ro)
	if err != nil {
		th.Close()
		op.ws.Finish()
		closeTexts(op.texts)
		return nil, err
	}
	conv := make([]Conversion, len(op.texts))
	for i, t := range op.texts {
		conv[i] = conversionOf(t)
	}
	return &Session{session{s: s, ws: op.ws, tools: th, texts: op.texts, converted: conv}}, nil
}

// check checks the options and fills in the defaults. Its errors are *OptionError.
func (op *opening) check() error {
	op.lang = source.Go
	if op.Lang != "" {
		l, err := source.ParseLang(op.Lang)
		if err != nil {
			return &OptionError{"Lang", err}
		}
		op.lang = l
	}
	if err := checkConverters(op.Convert); err != nil {
		return err
	}
	var err error
	if op.files, err = files.Inputs(op.Files, "file", convert.Takes(op.Convert)); err != nil {
		return &OptionError{"Files", err}
	}
	if op.set, err = checkTools(op.Tools); err != nil {
		return &OptionError{"Tools", err}
	}
	if op.Home == "" {
		if op.Home, err = home.Dir(); err != nil {
			return &OptionError{"Home", err}
		}
	}
	if op.Workspace != "" {
		if op.ws.Dir, err = files.Dir(op.Workspace, op.Home, "workspace"); err != nil {
			return &OptionError{"Workspace", err}
		}
	}
	return nil
}

// prepare converts the inputs a converter takes (convertFiles), then creates the default
// workspace when the options name none.
func (op *opening) prepare(ctx context.Context) error {
	var err error
	if op.texts, err = convertFiles(ctx, op.Home, op.Convert, op.Files, op.files); err != nil {
		return err
	}
	if op.ws.Dir == "" {
		if op.ws, err = newWorkspace(op.Home); err != nil {
			closeTexts(op.texts)
			return err
		}
	}
	return nil
}

// newWorkspace creates the default workspace under RLM_HOME dir, creating dir first.
func newWorkspace(dir string) (files.Workspace, error) {
	if err := home.Ensure(dir); err != nil {
		return files.Workspace{}, err
	}
	return files.NewWorkspace(dir)
}

func (s *session) exec(ctx context.Context, code string) ExecResult {
	return execResult(s.s.Exec(ctx, code))
}

func (s *session) execFile(ctx context.Context, name, code string) ExecResult {
	return execResult(s.s.ExecFile(ctx, name, code))
}

func (s *session) conversions() []Conversion { return slices.Clone(s.converted) }

func (s *session) vars() []Var { return varsOf(s.s.Vars(), s.s.Locals()) }

func (s *session) workspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws.Dir
}

func (s *session) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.s.Close()
	s.tools.Close()
	closeTexts(s.texts)
	if s.ws.Created {
		s.ws.Dir = s.ws.Finish() // "" when it was empty and is gone
	}
	return err
}

// execResult converts a cell's result.
func execResult(r repl.Result) ExecResult {
	return ExecResult{Output: r.Stdout, Truncated: r.Truncated, Final: r.Final, Error: failureOf(r.Err),
		Vars: varsOf(r.Vars, r.Locals), Rebuilt: r.Rebuilt, Lost: failureOf(r.Lost), Unreplayable: r.Unreplayable}
}

// varsOf is the variables, described where the worker described them (never nil:
// ExecResult.Vars is a JSON list).
func varsOf(names []string, locals []repl.Var) []Var {
	byName := make(map[string]repl.Var, len(locals))
	for _, v := range locals {
		byName[v.Name] = v
	}
	vars := make([]Var, 0, len(names))
	for _, n := range names {
		v, ok := byName[n]
		if !ok {
			v = Var{Name: n, Len: -1}
		}
		vars = append(vars, v)
	}
	return vars
}

// indexCache keeps the inputs' indexes under RLM_HOME dir (home.Index), so that a run over an input indexed
// before need not read it whole again (rlm clean removes the stale ones). warn, if not nil,
// hears once that the cache cannot be written; the run goes on with indexes in memory.
func indexCache(dir string, warn func(error)) *tools.Indexes {
	return tools.NewIndexes(home.Index(dir), warn)
}
