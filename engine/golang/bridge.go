package golang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// bridgePath is the import path of the host bridge. Model code cannot import it while the
// validator is on (it is not in the allow-list), and with the validator off calling it directly
// is harmless: the host enforces every cap and check itself.
const bridgePath = "rlmhost"

// Context is a handle to one input document, named as the host names them ("ctx0", ...).
type Context struct{ Name string }

// Match is one search or grep hit: character offsets, the 1-based line of Start, the matched
// text and the text of its line (each cut at engine.Limits.MatchChars characters), and its
// reference ("ctx0[12:17]"). For search, Index is the match's number among all the matches in
// the context (0-based) and Total how many there are; for grep, Path is the file the hit is in.
type Match struct {
	Start, End, Line int
	Text             string
	LineText         string
	Ref              string
	Path             string
	Index, Total     int
}

// Slice describes a chunk of a context; its text is read with peek.
type Slice struct{ Index, Start, End int }

// Tally is one distinct match of tally: its text (or its first group's), how many times it
// occurs, and how many distinct matches the whole context has.
type Tally struct {
	Text     string
	Count    int
	Distinct int
}

// FileInfo describes a file inside the allowed roots.
type FileInfo struct {
	Name    string
	Size    int64
	IsDir   bool
	ModTime string
}

// Opts are the options of llm_query and llm_query_batched: Model names the configured model
// that answers (the run's sub-call model when empty).
type Opts struct{ Model string }

// HostError is the panic value with which a failed host call unwinds model code. Its message
// is the host's; recover() in model code sees it as an error.
type HostError struct{ Err error }

func (e *HostError) Error() string { return e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }

// hostFail unwinds model code with a host error of kind k.
func hostFail(k fault.Kind, format string, args ...any) {
	panic(&HostError{fault.New(k, format, args...)})
}

// bridgeSymbols returns the bridge package for one engine. Call is the one entry point of the
// model API; the other functions are language shims used by the prelude and the desugaring.
func (e *Engine) bridgeSymbols() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Call":      reflect.ValueOf(e.call),
		"Box":       reflect.ValueOf(box),
		"ErrorsAs":  reflect.ValueOf(errorsAs),
		"ErrorsIs":  reflect.ValueOf(errorsIs),
		"Clear":     reflect.ValueOf(clearValue),
		"RunePred":  reflect.ValueOf(e.runePred),
		"SortBy":    reflect.ValueOf(e.sortBy),
		"At":        reflect.ValueOf(e.at),
		"Defer":     reflect.ValueOf(func(f func()) { e.withState(func(st *cellState) { st.defers = append(st.defers, f) }) }),
		"RunDefers": reflect.ValueOf(e.runDefers),
		"Context":   reflect.ValueOf((*Context)(nil)),
		"Match":     reflect.ValueOf((*Match)(nil)),
		"Slice":     reflect.ValueOf((*Slice)(nil)),
		"Tally":     reflect.ValueOf((*Tally)(nil)),
		"FileInfo":  reflect.ValueOf((*FileInfo)(nil)),
		"Opts":      reflect.ValueOf((*Opts)(nil)),
	}
}

// call is the bridge: it checks the arguments against the API registry, turns them into plain
// data, and either handles the function itself (the registry places FINAL, FINAL_VAR and print
// in the engine) or asks the host. The
// result is converted to the prelude's type; every value is a fresh copy.
func (e *Engine) call(name string, args ...any) any {
	f, ok := e.api.Lookup(name)
	if !ok {
		hostFail(fault.Code, "unknown function %q", name)
	}
	variadic := f.Variadic()
	if variadic && len(f.Params) > 1 && len(args) == len(f.Params) {
		args = spread(args) // search(ctx, regex, from...) passes from as one slice
	}
	if !variadic && len(args) != len(f.Params) {
		hostFail(fault.Code, "%s takes %d arguments, got %d", name, len(f.Params), len(args))
	}
	if variadic && len(f.Params) > 1 && len(args) > len(f.Params) {
		last := f.Params[len(f.Params)-1]
		hostFail(fault.Code, "%s takes at most one %s (%s), got %d", name, strings.TrimPrefix(last.GoType, "..."), last.Name, len(args)-len(f.Params)+1)
	}
	if f.Place == engine.InEngine {
		e.builtin(name, args)
		return nil
	}
	plain := make([]any, len(args))
	for i, a := range args {
		v, err := toPlain(a, 0)
		if err != nil {
			hostFail(fault.Code, "%s: argument %d: %v", name, i+1, err)
		}
		plain[i] = v
	}
	var ctx context.Context
	e.withState(func(st *cellState) { ctx = st.ctx })
	res, err := e.host.Call(ctx, name, plain)
	if err != nil {
		panic(&HostError{err})
	}
	v, err := fromPlain(f.Result, res)
	if err != nil {
		hostFail(fault.Code, "%s: host returned %T: %v", name, res, err)
	}
	return v
}

// builtin runs a function the registry places in the engine itself (engine.InEngine).
func (e *Engine) builtin(name string, args []any) {
	switch name {
	case "FINAL":
		e.recordFinal(args[0])
	case "FINAL_VAR":
		s, ok := args[0].(string)
		if !ok {
			hostFail(fault.Code, "FINAL_VAR takes the variable's name as a string")
		}
		e.withState(func(st *cellState) { st.finalVar = s })
	case "print":
		fmt.Fprintln(e.out, printable(args)...)
	default:
		hostFail(fault.Logic, "%s: the Go engine has no implementation of it", name)
	}
}

// at records which top-level statement of cell gen is about to run. A cell that was cancelled
// but whose goroutine is still alive (it was inside a native call) is stopped here, before its
// next top-level statement, rather than run alongside a later cell.
func (e *Engine) at(gen uint64, i int) {
	if gen != e.gen.Load() {
		hostFail(fault.Timeout, "the cell was interrupted")
	}
	e.withState(func(st *cellState) { st.at = i })
}

// runDefers runs the calls a snippet deferred at top level, last first.
func (e *Engine) runDefers() {
	for {
		var f func()
		e.withState(func(st *cellState) {
			if n := len(st.defers); n > 0 {
				f, st.defers = st.defers[n-1], st.defers[:n-1]
			}
		})
		if f == nil {
			return
		}
		f()
	}
}

// recordFinal serialises v host-side: a string as it is, anything else as JSON.
func (e *Engine) recordFinal(v any) {
	s, err := serialise(v)
	if err != nil {
		hostFail(fault.Code, "FINAL: %v", err)
	}
	e.withState(func(st *cellState) { st.final = &engine.Final{Value: s} })
}

func serialise(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	if v != nil {
		rv := reflect.ValueOf(v)
		if vt := jsonType(rv.Type(), 0); vt != rv.Type() {
			v = jsonValue(rv, vt).Interface()
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot serialise a %T as JSON: %v", v, err)
	}
	return string(b), nil
}

// spread replaces a trailing slice argument with its elements.
func spread(args []any) []any {
	last := reflect.ValueOf(args[len(args)-1])
	if last.Kind() != reflect.Slice {
		return args
	}
	out := append([]any(nil), args[:len(args)-1]...)
	for i := range last.Len() {
		out = append(out, last.Index(i).Interface())
	}
	return out
}

const maxPlainDepth = 32

// toPlain copies an argument into the plain data the Host boundary allows: nil, bool, int64,
// float64, string, []any and map[string]any. A Context becomes its name.
func toPlain(v any, depth int) (any, error) {
	if depth > maxPlainDepth {
		return nil, errors.New("value nested too deeply")
	}
	switch x := v.(type) {
	case nil, bool, string, int64, float64:
		return x, nil
	case Context:
		return x.Name, nil
	case Opts:
		opts := map[string]any{}
		if x.Model != "" {
			opts[engine.OptModel] = x.Model
		}
		return opts, nil
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			p, err := toPlain(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() > math.MaxInt64 {
			return nil, errors.New("integer out of range")
		}
		return int64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	}
	return nil, fmt.Errorf("unsupported argument type %T", v)
}

// fromPlain converts a host result into the prelude's Go type named by the API registry.
func fromPlain(goType string, v any) (any, error) {
	switch goType {
	case "":
		return nil, nil
	case "int":
		return plainInt(v)
	case "float64":
		return plainFloat(v)
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "any": // a tool's plain data, its numbers float64 as encoding/json decodes them
		return plainAny(v, 0)
	case "string":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "[]string":
		return plainList(v, func(x any) (string, error) {
			if s, ok := x.(string); ok {
				return s, nil
			}
			return "", fmt.Errorf("element %T is not a string", x)
		})
	case "[]Match":
		return plainMatches(v)
	case "[]Slice":
		return plainList(v, plainSlice)
	case "[]Tally":
		return plainList(v, plainTally)
	case "FileInfo":
		return plainFileInfo(v)
	}
	return nil, fmt.Errorf("not a %s", goType)
}

// plainAny copies a tool's "any" result: nil, bool, string, float64 (every number), []any and
// map[string]any.
func plainAny(v any, depth int) (any, error) {
	if depth > maxPlainDepth {
		return nil, errors.New("value nested too deeply")
	}
	switch x := v.(type) {
	case nil, bool, string, float64:
		return x, nil
	case int, int64, json.Number:
		return plainFloat(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			p, err := plainAny(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			p, err := plainAny(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = p
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T is not plain data", v)
}

func plainFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case json.Number:
		return x.Float64()
	}
	return 0, fmt.Errorf("%T is not a number", v)
}

func plainInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), nil
		}
	case json.Number:
		n, err := x.Int64()
		return int(n), err
	}
	return 0, fmt.Errorf("%T is not an integer", v)
}

// plainList converts a []any (or an already typed []T) element by element.
func plainList[T any](v any, conv func(any) (T, error)) ([]T, error) {
	if typed, ok := v.([]T); ok {
		return append([]T(nil), typed...), nil
	}
	list, ok := v.([]any)
	if !ok && v != nil {
		return nil, fmt.Errorf("%T is not a list", v)
	}
	out := make([]T, 0, len(list))
	for _, x := range list {
		t, err := conv(x)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// record reads the fields of a plain map, trying each spelling of a key.
type record map[string]any

func (r record) int(keys ...string) (int, error) {
	for _, k := range keys {
		if v, ok := r[k]; ok {
			return plainInt(v)
		}
	}
	return 0, fmt.Errorf("missing field %q", keys[0])
}

func (r record) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := r[k].(string); ok {
			return s
		}
	}
	return ""
}

func asRecord(v any) (record, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("element %T is not an object", v)
	}
	return record(m), nil
}

func plainMatch(v any) (Match, error) {
	if m, ok := v.(Match); ok {
		return m, nil
	}
	r, err := asRecord(v)
	if err != nil {
		return Match{}, err
	}
	var m Match
	var errs [3]error
	m.Start, errs[0] = r.int("start", "Start")
	m.End, errs[1] = r.int("end", "End")
	m.Line, errs[2] = r.int("line", "Line")
	m.Text = r.str("text", "Text")
	m.LineText = r.str("line_text", "LineText")
	m.Ref = r.str("ref", "Ref")
	m.Path = r.str("path", "Path")
	m.Index, _ = r.int("index", "Index")
	m.Total, _ = r.int("total", "Total")
	return m, errors.Join(errs[:]...)
}

// plainMatches converts a search page, {matches, total, from}, or a plain list (grep, and hosts
// that return every match): a match without a total is numbered within the list.
func plainMatches(v any) ([]Match, error) {
	if r, ok := v.(map[string]any); ok {
		v = r["matches"]
	}
	ms, err := plainList(v, plainMatch)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].Total == 0 {
			ms[i].Index, ms[i].Total = i, len(ms)
		}
	}
	return ms, nil
}

// printable is print's arguments with a search page that does not hold every match replaced by
// its printed form and a note: "(200 of 1,513 matches shown ...)".
func printable(args []any) []any {
	out := args
	for i, a := range args {
		ms, ok := a.([]Match)
		if !ok || len(ms) == 0 || ms[0].Total == 0 {
			continue
		}
		first, last := ms[0], ms[len(ms)-1]
		if first.Index == 0 && last.Index+1 >= last.Total {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = fmt.Sprintf("%v (%s of %s matches shown, numbers %d to %d; search(ctx, regex, %d) reads the next page)",
			ms, engine.Thousands(int64(len(ms))), engine.Thousands(int64(last.Total)), first.Index, last.Index, last.Index+1)
	}
	return out
}

func plainSlice(v any) (Slice, error) {
	if s, ok := v.(Slice); ok {
		return s, nil
	}
	r, err := asRecord(v)
	if err != nil {
		return Slice{}, err
	}
	var s Slice
	var errs [3]error
	s.Index, errs[0] = r.int("index", "Index")
	s.Start, errs[1] = r.int("start", "Start")
	s.End, errs[2] = r.int("end", "End")
	return s, errors.Join(errs[:]...)
}

func plainTally(v any) (Tally, error) {
	if x, ok := v.(Tally); ok {
		return x, nil
	}
	r, err := asRecord(v)
	if err != nil {
		return Tally{}, err
	}
	x := Tally{Text: r.str("text", "Text")}
	var errs [2]error
	x.Count, errs[0] = r.int("count", "Count")
	x.Distinct, errs[1] = r.int("distinct", "Distinct")
	return x, errors.Join(errs[:]...)
}

func plainFileInfo(v any) (FileInfo, error) {
	if fi, ok := v.(FileInfo); ok {
		return fi, nil
	}
	r, err := asRecord(v)
	if err != nil {
		return FileInfo{}, err
	}
	size, err := r.int("size", "Size")
	isDir, _ := r["is_dir"].(bool)
	return FileInfo{Name: r.str("name", "Name"), Size: int64(size), IsDir: isDir, ModTime: r.str("mod_time", "ModTime")}, err
}
