package rlm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// Tool is a function of your own that model code may call, in both languages, as it calls
// read_file: a trusted host function the parent process runs (never the confined worker). Its
// entry goes into the session's registry, from which the Go prelude declares it as a typed
// function, the JS engine as a global, and the system prompt as one line, so what the model is
// told is what the session serves.
//
// Each call is checked against the declaration (the arguments' types, path parameters resolved
// inside the allowed roots), runs under Timeout, has its result checked against Result and cut
// at MaxOutput characters, and counts against MaxCalls. Calls are journaled: a worker that dies
// is replayed with the recorded results, without calling Func again. They go to the audit trail
// and the trace as every host call does. Errors reach the code as errors of a kind (limit,
// timeout, code, denied) whose message says how to fix the call.
type Tool struct {
	// Name is what code calls: a letter, then letters, digits or _ (such as lookup_order). It
	// must not clash with the API (peek, read_file, llm_query, …), a keyword, built-in or
	// prelude name of Go or JavaScript, or another tool.
	Name        string
	Description string      // one line for the system prompt: what the tool returns
	Params      []ToolParam // in the order code passes them
	Result      ToolType    // the Go type of the result; JS gets the same data as plain values
	// Func runs a call. args holds one value per parameter, of its type (string, int, float64,
	// bool, []string); a path parameter holds the real path it resolved to, inside the roots.
	// ctx ends at the tool's Timeout, the cell's deadline or the run's end. A string result
	// longer than MaxOutput characters is cut (with a note); other data longer than that, as
	// JSON, is refused. An error of a fault kind keeps it; any other is a "code" error.
	Func func(ctx context.Context, args ToolArgs) (any, error)

	Timeout   time.Duration // one call (default limits.ToolTimeout, 30 s)
	MaxOutput int           // characters of one result (default limits.ToolOutputChars, 50,000)
	MaxCalls  int           // calls per run, or per Session (default limits.ToolCalls, 50)
}

// ToolParam is one parameter of a Tool.
type ToolParam struct {
	Name string
	Type ToolType // ToolString, ToolInt, ToolFloat, ToolBool or ToolStrings
	// Path marks a string parameter that names a file or directory: it is resolved as read_file
	// resolves its path (relative to the workspace, symlinks followed inside the roots only),
	// and a path outside the roots (Files' directories, Roots, Workspace), or into Home, is
	// refused before Func runs.
	Path bool
}

// ToolType is a parameter's or result's type, as the Go prelude declares it.
type ToolType string

// Tool types. JS passes a number for ToolInt (an integer) and ToolFloat, a boolean, a string, an
// array of strings; ToolAny (results only) is plain data: map[string]any, []any, string, float64
// (every number), bool, nil.
const (
	ToolString  ToolType = "string"
	ToolInt     ToolType = "int"
	ToolFloat   ToolType = "float64"
	ToolBool    ToolType = "bool"
	ToolStrings ToolType = "[]string"
	ToolAny     ToolType = "any"
)

// ToolArgs are a call's arguments by parameter name, each of its declared type.
type ToolArgs map[string]any

// String is the argument name as a string ("" if it is not one).
func (a ToolArgs) String(name string) string { s, _ := a[name].(string); return s }

// Int is the argument name as an int.
func (a ToolArgs) Int(name string) int { n, _ := a[name].(int); return n }

// Float is the argument name as a float64.
func (a ToolArgs) Float(name string) float64 { f, _ := a[name].(float64); return f }

// Bool is the argument name as a bool.
func (a ToolArgs) Bool(name string) bool { b, _ := a[name].(bool); return b }

// Strings is the argument name as a []string.
func (a ToolArgs) Strings(name string) []string { s, _ := a[name].([]string); return s }

// toolSet is the checked tools of a run or a session: the registry the engines, the prompt and
// the dispatch share, and the tools by name.
type toolSet struct {
	api    engine.Registry
	byName map[string]Tool
}

// checkTools checks the declarations and builds the session's registry. Its error says which
// tool and how to fix it.
func checkTools(ts []Tool) (toolSet, error) {
	if len(ts) == 0 {
		return toolSet{}, nil
	}
	funcs := make([]engine.Func, 0, len(ts))
	byName := map[string]Tool{}
	for _, t := range ts {
		t = t.withDefaults()
		f, err := t.entry()
		if err != nil {
			return toolSet{}, err
		}
		funcs = append(funcs, f)
		byName[t.Name] = t
	}
	api, err := engine.WithTools(funcs)
	if err != nil {
		return toolSet{}, fault.Wrap(fault.Schema, err, "")
	}
	return toolSet{api: api, byName: byName}, nil
}

// APILines are the functions a session's code may call, as the system prompt lists them in lang
// ("go" or "js") with the caps of l: the API's, then each tool's, from the registry the engines
// are built from. Its error is a declaration's, as Options would report it.
func APILines(lang string, l Limits, tools []Tool) ([]string, error) {
	set, err := checkTools(tools)
	if err != nil {
		return nil, err
	}
	return controller.RegistryLines(set.api, lang, l), nil
}

func (t Tool) withDefaults() Tool {
	t.Timeout = limits.Or(t.Timeout, limits.ToolTimeout)
	t.MaxOutput = limits.Or(t.MaxOutput, limits.ToolOutputChars)
	t.MaxCalls = limits.Or(t.MaxCalls, limits.ToolCalls)
	return t
}

// entry is the tool's registry entry: its doc line is the description and its caps.
func (t Tool) entry() (engine.Func, error) {
	switch {
	case t.Func == nil:
		return engine.Func{}, fault.New(fault.Schema, "tool %q has no Func; set the Go function that serves its calls", t.Name)
	case utf8.RuneCountInString(t.Description) > limits.ToolDocChars || t.Description == "" || strings.ContainsAny(t.Description, "\r\n"):
		return engine.Func{}, fault.New(fault.Schema, "tool %q: Description is one line of at most %d characters: what the tool returns", t.Name, limits.ToolDocChars)
	}
	f := engine.Func{Name: t.Name, Result: string(t.Result), Place: engine.InParent, Budget: engine.ToolBudget, Replay: engine.Journaled}
	var paths []string
	for _, p := range t.Params {
		if p.Path && p.Type != ToolString {
			return engine.Func{}, fault.New(fault.Schema, "tool %q: parameter %s is a path, so its Type is ToolString", t.Name, p.Name)
		}
		if p.Path {
			paths = append(paths, p.Name)
		}
		f.Params = append(f.Params, engine.Param{Name: p.Name, GoType: string(p.Type), Arity: engine.One})
	}
	doc := strings.TrimRight(t.Description, ". ") + "; "
	if len(paths) > 0 {
		doc += engine.Series(paths) + " inside the allowed roots; "
	}
	f.Doc = doc + fmt.Sprintf("at most %s calls per run, %s characters per result, %s per call", limits.Thousands(int64(t.MaxCalls)), limits.Thousands(int64(t.MaxOutput)), t.Timeout)
	return f, nil
}

// toolHost serves a session's tools (an engine.Host): the parent's side of every call, under
// each tool's caps. The controller passes it the calls of the tools (engine.ToolBudget).
type toolHost struct {
	set   toolSet
	roots []string // the directories path parameters resolve in, for messages
	files *tools.Files
	ferr  error // why path parameters cannot be resolved

	mu    sync.Mutex
	calls map[string]int
}

// newToolHost opens the roots path parameters resolve in: the context files' directories, roots
// and the workspace, Home hidden, as the worker's file tools see them. Close releases them.
func newToolHost(set toolSet, contexts, roots []string, workspace, home string) *toolHost {
	h := &toolHost{set: set, calls: map[string]int{}}
	var dirs []string
	for _, c := range contexts {
		dirs = append(dirs, filepath.Dir(c))
	}
	dirs = append(dirs, roots...)
	h.roots = append(append([]string(nil), dirs...), workspace)
	if len(dirs) == 0 && workspace == "" {
		h.ferr = errors.New("this run has no allowed roots")
		return h
	}
	h.files, h.ferr = tools.NewFiles(dirs, workspace, tools.FileLimits{}, home)
	return h
}

func (h *toolHost) Close() {
	if h != nil && h.files != nil {
		h.files.Close()
	}
}

// Call implements engine.Host for the session's tools.
func (h *toolHost) Call(ctx context.Context, name string, args []any) (any, error) {
	t, ok := h.set.byName[name]
	if !ok {
		return nil, fault.New(fault.Denied, "%s is not available in this session", name)
	}
	f, _ := h.set.api.Lookup(name)
	sig := f.Signature("go")
	in, err := h.args(t, sig, args)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.calls[name] >= t.MaxCalls {
		h.mu.Unlock()
		return nil, fault.New(fault.Limit, "%s: cap reached: %d calls per run; work from the results you have (keep them in variables) instead of calling it again", name, t.MaxCalls)
	}
	h.calls[name]++
	h.mu.Unlock()
	v, err := h.run(ctx, t, in)
	if err != nil {
		return nil, err
	}
	return t.result(v)
}

// args checks and converts a call's plain arguments to the declared types, resolving paths.
func (h *toolHost) args(t Tool, sig string, args []any) (ToolArgs, error) {
	if len(args) != len(t.Params) {
		return nil, fault.New(fault.Code, "%s takes %d argument(s), got %d; call it as %s", t.Name, len(t.Params), len(args), sig)
	}
	out := ToolArgs{}
	for i, p := range t.Params {
		v, ok := plainArg(p.Type, args[i])
		if !ok {
			return nil, fault.New(fault.Code, "%s: %s must be %s, got %T; call it as %s", t.Name, p.Name, p.Type, args[i], sig)
		}
		if p.Path {
			real, err := h.resolve(t.Name, v.(string))
			if err != nil {
				return nil, err
			}
			v = real
		}
		out[p.Name] = v
	}
	return out, nil
}

// resolve resolves a path parameter as read_file does: inside the roots, or refused.
func (h *toolHost) resolve(tool, p string) (string, error) {
	if h.files == nil {
		return "", fault.New(fault.Denied, "%s: %v, so its path %q cannot be used; start the run with Roots or Files", tool, h.ferr, p)
	}
	real, err := h.files.Resolve(tool, p)
	switch {
	case err == nil:
		return real, nil
	case errors.Is(err, tools.ErrOutside), errors.Is(err, tools.ErrDenied):
		return "", fault.New(fault.Denied, "%s: %q is outside the allowed roots (%s); pass a path inside them", tool, p, strings.Join(h.roots, ", "))
	}
	return "", fault.Wrap(fault.Code, err, "")
}

// plainArg converts one argument as the wire carries it to the declared type.
func plainArg(typ ToolType, v any) (any, bool) {
	switch typ {
	case ToolString:
		s, ok := v.(string)
		return s, ok
	case ToolBool:
		b, ok := v.(bool)
		return b, ok
	case ToolInt, ToolFloat:
		var f float64
		switch x := v.(type) {
		case int64:
			if typ == ToolInt {
				return int(x), true
			}
			f = float64(x)
		case int:
			if typ == ToolInt {
				return x, true
			}
			f = float64(x)
		case float64:
			f = x
		case json.Number:
			var err error
			if f, err = x.Float64(); err != nil {
				return nil, false
			}
		default:
			return nil, false
		}
		if typ == ToolInt {
			if f != float64(int64(f)) {
				return nil, false
			}
			return int(f), true
		}
		return f, true
	case ToolStrings:
		switch x := v.(type) {
		case []string:
			return append([]string(nil), x...), true
		case []any:
			out := make([]string, len(x))
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				out[i] = s
			}
			return out, true
		}
	}
	return nil, false
}

// run calls Func under the tool's timeout. A Func that ignores its context is left behind when
// the timeout passes: the call fails then, whatever the function goes on to do.
func (h *toolHost) run(ctx context.Context, t Tool, args ToolArgs) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	type answer struct {
		v   any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{nil, fault.New(fault.Code, "%s failed in the host: %v (a bug of the tool, not of the call)", t.Name, r)}
			}
		}()
		v, err := t.Func(ctx, args)
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		if a.err == nil {
			return a.v, nil
		}
		var fe *fault.Error
		if errors.As(a.err, &fe) {
			return nil, a.err
		}
		if ctx.Err() != nil && errors.Is(a.err, ctx.Err()) {
			return nil, h.timeout(t)
		}
		return nil, fault.New(fault.Code, "%s: %v", t.Name, a.err)
	case <-ctx.Done():
		return nil, h.timeout(t)
	}
}

func (h *toolHost) timeout(t Tool) error {
	return fault.New(fault.Timeout, "%s did not answer within %s; ask it for less (narrower arguments), or call it fewer times in one cell", t.Name, t.Timeout)
}

// result checks a result against the declared type, as plain data, and its size.
func (t Tool) result(v any) (any, error) {
	bad := func() error {
		return fault.New(fault.Code, "%s returned %T, but it is declared to return %s (a bug of the tool, not of the call)", t.Name, v, t.Result)
	}
	switch t.Result {
	case ToolString:
		s, ok := v.(string)
		if !ok {
			return nil, bad()
		}
		if n := utf8.RuneCountInString(s); n > t.MaxOutput {
			cut := []rune(s)[:t.MaxOutput]
			return string(cut) + fmt.Sprintf("\n[%s: result cut at %s of %s characters; ask for less]", t.Name, limits.Thousands(int64(t.MaxOutput)), limits.Thousands(int64(n))), nil
		}
		return s, nil
	case ToolInt:
		rv := reflect.ValueOf(v)
		if !rv.IsValid() || !rv.CanInt() {
			return nil, bad()
		}
		return rv.Int(), nil
	case ToolFloat:
		rv := reflect.ValueOf(v)
		switch {
		case rv.IsValid() && rv.CanFloat():
			return rv.Float(), nil
		case rv.IsValid() && rv.CanInt():
			return float64(rv.Int()), nil
		}
		return nil, bad()
	case ToolBool:
		if _, ok := v.(bool); !ok {
			return nil, bad()
		}
		return v, nil
	case ToolStrings:
		s, ok := v.([]string)
		if !ok {
			return nil, bad()
		}
		v = append([]string(nil), s...)
	}
	// []string and any: plain data through JSON, within the output cap.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fault.New(fault.Code, "%s returned data that is not plain (JSON) data: %v (a bug of the tool)", t.Name, err)
	}
	if n := utf8.RuneCount(b); n > t.MaxOutput {
		return nil, fault.New(fault.Limit, "%s returned %s characters (as JSON), more than its cap of %s; ask for less (narrower arguments)", t.Name, limits.Thousands(int64(n)), limits.Thousands(int64(t.MaxOutput)))
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return nil, fault.Wrap(fault.Code, err, t.Name)
	}
	return plain, nil
}
