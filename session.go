package rlm

import (
	"context"
	"sync"

	"github.com/rlm-sandbox/rlm/internal/files"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/tools"
)

// session is a Session's state.
type session struct {
	s     *repl.Session
	tools *toolHost // serves SessionOptions.Tools; nil without them

	mu     sync.Mutex
	ws     files.Workspace
	closed bool
}

func openSession(ctx context.Context, o SessionOptions) (*Session, error) {
	lang := source.Go
	if o.Lang != "" {
		l, err := source.ParseLang(o.Lang)
		if err != nil {
			return nil, &OptionError{"Lang", err}
		}
		lang = l
	}
	ctxFiles, err := files.Contexts(o.Files, "file")
	if err != nil {
		return nil, &OptionError{"Files", err}
	}
	set, err := checkTools(o.Tools)
	if err != nil {
		return nil, &OptionError{"Tools", err}
	}
	var ws files.Workspace
	dir := o.Home
	if dir == "" {
		if dir, err = home.Dir(); err != nil {
			return nil, &OptionError{"Home", err}
		}
	}
	if o.Workspace != "" {
		if ws.Dir, err = files.Dir(o.Workspace, dir, "workspace"); err != nil {
			return nil, &OptionError{"Workspace", err}
		}
	} else {
		if ws, err = newWorkspace(dir); err != nil {
			return nil, err
		}
	}
	var th *toolHost
	ro := repl.Options{Lang: string(lang), Contexts: ctxFiles, Roots: o.Roots, Workspace: ws.Dir, Home: dir,
		CellTimeout: o.CellTimeout, Limits: o.Limits, Quota: o.Quota, WorkerMemory: o.WorkerMemory, NoValidate: o.NoValidate, AllowDegraded: o.AllowDegraded,
		Indexes: indexCache(dir, o.Warn)}
	if set.api != nil {
		th = newToolHost(set, ctxFiles, o.Roots, ws.Dir, dir)
		ro.API, ro.Host = set.api, th
	}
	s, err := repl.Open(ctx, ro)
	if err != nil {
		th.Close()
		ws.Finish()
		return nil, err
	}
	return &Session{session{s: s, ws: ws, tools: th}}, nil
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
