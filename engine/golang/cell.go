package golang

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/traefik/yaegi/interp"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
)

// errNotRun is the cause, beside the compiler's, of a cell's error when the cell was not run
// (it did not compile): such a cell leaves the session as it was.
var errNotRun = errors.New("the cell was not run")

// notRun is the cause of a compile error: errNotRun, and the compiler's error if any.
func notRun(err error) error {
	if err == nil {
		return errNotRun
	}
	return errors.Join(errNotRun, err)
}

func isCompileError(err error) bool { return errors.Is(err, errNotRun) }

// cell runs the parts of one unit.
type cell struct {
	e     *Engine
	u     *source.GoUnit
	marks []token.Pos // the top-level statements' positions (see desugar.Pass.Body)
}

// decls compiles and runs the unit's declarations, skipping imports this file name already has
// (yaegi scopes imports by file name and rejects a second import of a compiled package).
func (c *cell) decls(ctx context.Context) error {
	f := c.u.Decls
	file := filepath.Base(c.u.Fset.Position(f.Pos()).Filename)
	var keep []ast.Decl
	var added []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			keep = append(keep, d)
			continue
		}
		var specs []ast.Spec
		for _, s := range g.Specs {
			key := importKey(file, s.(*ast.ImportSpec))
			if !c.e.imports[key] {
				specs = append(specs, s)
				added = append(added, key)
			}
		}
		if len(specs) > 0 {
			g.Specs = specs
			keep = append(keep, g)
		}
	}
	f.Decls = keep
	if len(keep) == 0 {
		return nil
	}
	err := c.run(ctx, f, f)
	for _, k := range added {
		if path := k[strings.LastIndexByte(k, 0)+1:]; err == nil || !strings.Contains(err.Error(), strconv.Quote(path)) {
			c.e.imports[k] = true
		}
	}
	return err
}

func importKey(file string, s *ast.ImportSpec) string {
	name := ""
	if s.Name != nil {
		name = s.Name.Name
	}
	path, _ := strconv.Unquote(s.Path.Value)
	return file + "\x00" + name + "\x00" + path
}

// stmts compiles and runs a snippet's statements (at top level).
func (c *cell) stmts(ctx context.Context, list []ast.Stmt) error {
	if len(list) == 0 {
		return nil
	}
	b := &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[len(list)-1].End()}
	return c.run(ctx, b, b)
}

// typeError turns the type checker's errors into the cell's compile error: the first at its
// position, the others on their own lines after it.
func typeError(u *source.GoUnit, err error) error {
	var l typecheck.List
	if !errors.As(err, &l) || len(l) == 0 {
		return &fault.Error{Kind: fault.Code, Msg: err.Error(), Err: notRun(err)}
	}
	e := &fault.Error{Kind: fault.Code, Pos: u.Position(l[0].Pos), Msg: l[0].Msg, Err: notRun(nil)}
	for _, x := range l[1:] {
		e.Msg += "\n" + u.Position(x.Pos).String() + ": " + x.Msg
	}
	return e
}

// run compiles n and executes it. src is the part of the unit n comes from, used to map
// positions back to the cell as written (nil for the engine's own statements).
func (c *cell) run(ctx context.Context, n ast.Node, src ast.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &fault.Error{Kind: fault.Code, Msg: fmt.Sprintf("the interpreter cannot compile this cell (%v); simplify the construct", r), Err: notRun(nil)}
		}
	}()
	p, err := c.e.it.CompileAST(n)
	if err != nil {
		return c.compileError(err, src)
	}
	if p == nil {
		return nil
	}
	if _, err = c.e.it.ExecuteWithContext(ctx, p); err != nil {
		if ctx.Err() != nil && !c.e.waitIdle(idleGrace) {
			c.e.busy = true
		}
		return c.runError(ctx, err, src)
	}
	return nil
}

// posPrefix matches yaegi's "file:line:col: message".
var posPrefix = regexp.MustCompile(`^(.*?):(\d+):(\d+): (?s)(.*)$`)

func (c *cell) compileError(err error, src ast.Node) error {
	msg := err.Error()
	e := &fault.Error{Kind: fault.Code, Msg: msg, Err: notRun(err)}
	if m := posPrefix.FindStringSubmatch(msg); m != nil {
		e.Msg = m[4]
		e.Pos = c.position(m[1], m[2], m[3], src)
	}
	return e
}

func (c *cell) runError(ctx context.Context, err error, src ast.Node) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return engine.Interrupted(ctx)
	}
	e := &fault.Error{Kind: fault.Code, Msg: err.Error(), Err: err}
	var p interp.Panic
	if errors.As(err, &p) {
		var he *HostError
		if v, ok := p.Value.(error); ok && errors.As(v, &he) {
			e.Msg, e.Err = he.Error(), he.Err
			if k := fault.KindOf(he.Err); k != "" {
				e.Kind = k
			}
			e.Pos = c.panicPosition(src)
		} else {
			msg, at := panicMessage(fmt.Sprint(p.Value))
			e.Msg = "panic: " + msg
			if e.Pos = c.panicPosition(src); at != nil {
				e.Pos = c.position(at[1], at[2], at[3], src)
			}
		}
	}
	return e
}

// runtimePanics maps the panics of yaegi's reflect-based evaluation to the run-time errors Go
// reports for the same faults; yaegi does not give the index and length Go adds, so the message
// says how to avoid the fault instead.
var runtimePanics = []struct{ prefix, msg string }{
	{"reflect: slice index out of range", indexRange},
	{"reflect: array index out of range", indexRange},
	{"reflect: string index out of range", indexRange},
	{"reflect.Value.Slice", "runtime error: slice bounds out of range; check the length first, as in s[:min(k, len(s))]"},
	{"reflect.Value.Call: call of nil function", nilDeref},
	{"reflect: Method on nil interface value", nilDeref},
	{"reflect: call of reflect.Value.", nilDeref}, // ... on zero Value: a nil pointer or interface
}

const (
	nilDeref   = "runtime error: invalid memory address or nil pointer dereference"
	indexRange = "runtime error: index out of range; check the index against len(...) first"
)

// panicMessage returns the message of a panic as Go words it, and the position yaegi put in it
// (interface conversions carry one), as posPrefix submatches, or nil.
func panicMessage(msg string) (string, []string) {
	var at []string
	if m := posPrefix.FindStringSubmatch(msg); m != nil && strings.HasSuffix(m[1], ".go") {
		msg, at = m[4], m
	}
	for _, p := range runtimePanics {
		if strings.HasPrefix(msg, p.prefix) {
			return p.msg, at
		}
	}
	return msg, at
}

// panicPosition is the position of the top-level statement that was running, or else the
// innermost frame of the cell's own file in yaegi's panic trace (which is approximate: yaegi
// reports a node near the start of the function).
func (c *cell) panicPosition(src ast.Node) fault.Position {
	if at := c.e.snapshot().at; at >= 0 && at < len(c.marks) {
		return c.u.Position(c.marks[at])
	}
	if src == nil {
		return fault.Position{}
	}
	file := filepath.Base(c.u.Fset.Position(src.Pos()).Filename)
	for _, line := range strings.Split(c.e.stderr.String(), "\n") {
		if m := posPrefix.FindStringSubmatch(line); m != nil && filepath.Base(m[1]) == file {
			return c.position(m[1], m[2], m[3], src)
		}
	}
	return fault.Position{}
}

// position maps a line and column of the file src was parsed from back to the cell as written.
func (c *cell) position(file, line, col string, src ast.Node) fault.Position {
	l, _ := strconv.Atoi(line)
	k, _ := strconv.Atoi(col)
	if src == nil {
		return fault.Position{Filename: file, Line: l, Column: k}
	}
	tf := c.u.Fset.File(src.Pos())
	if tf == nil || l < 1 || l > tf.LineCount() {
		return fault.Position{Filename: file, Line: l, Column: k}
	}
	off := tf.Offset(tf.LineStart(l)) + k - 1
	off = max(0, min(off, tf.Size()))
	return c.u.Position(tf.Pos(off))
}

// capture is a writer that keeps the first limit characters written to it and counts the rest.
type capture struct {
	mu    sync.Mutex
	limit int
	b     strings.Builder
	n     int // characters written in total
}

func newCapture(limit int) *capture { return &capture{limit: limit} }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.limit - c.n; room > 0 {
		keep := p
		if utf8.RuneCount(p) > room {
			i := 0
			for r := 0; r < room; r++ {
				_, size := utf8.DecodeRune(p[i:])
				i += size
			}
			keep = p[:i]
		}
		c.b.Write(keep)
	}
	c.n += utf8.RuneCount(p)
	return len(p), nil
}

func (c *capture) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Reset()
	c.n = 0
}

func (c *capture) truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n > c.limit
}

// String returns the kept output, with a marker stating the true length when it was capped.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= c.limit {
		return c.b.String()
	}
	return engine.Truncated(c.b.String(), c.n, c.limit)
}
