package js

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// Limits of the argument conversion.
const (
	maxListArg   = 10_000  // elements of a []string argument
	maxHostDepth = 32      // nesting of a host result
	printBudget  = 4 << 20 // bytes one print argument may render to
)

// installAPI defines the model API on the global object: one Go closure per entry of the
// session's registry (Config.API: engine.API and the session's tools),
// console.log and friends as print, and the `context` handle. The prelude then freezes them
// and makes the bindings read-only.
func (e *Engine) installAPI() error {
	g := e.vm.GlobalObject()
	var print goja.Value
	e.apiFuncs = map[string]*goja.Object{}
	for _, f := range e.cfg.API.Funcs() {
		fn := e.hostFunc(f)
		if f.Place == engine.InEngine {
			if fn = e.builtin(f.Name); fn == nil {
				return fmt.Errorf("%s: the JS engine has no implementation of it", f.Name)
			}
		}
		v := e.vm.ToValue(fn)
		obj := v.(*goja.Object)
		// goja names a Go function after its Go symbol; print(peek) shows [Function: peek].
		if err := obj.DefineDataProperty("name", e.vm.ToValue(f.Name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
		e.apiFuncs[f.Name] = obj
		if f.Name == "print" {
			print = v
		}
		if err := g.DefineDataProperty(f.Name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	console := e.vm.NewObject()
	for _, name := range []string{"log", "info", "warn", "error", "debug"} {
		if err := console.Set(name, print); err != nil {
			return err
		}
	}
	e.handle = e.newHandle()
	e.handles = map[*goja.Object]string{e.handle: ContextArg}
	globals := map[string]goja.Value{"console": console, "context": e.handle}
	for i := range e.cfg.Contexts {
		name := "ctx" + strconv.Itoa(i)
		h := e.handle
		if i > 0 {
			h = e.newHandle()
			e.handles[h] = name
		}
		globals[name] = h
	}
	for name, v := range globals {
		if err := g.DefineDataProperty(name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// builtin is the global of a function the registry places in the engine itself
// (engine.InEngine), or nil if this engine has none of that name.
func (e *Engine) builtin(name string) func(goja.FunctionCall) goja.Value {
	switch name {
	case "FINAL":
		return e.final
	case "FINAL_VAR":
		return e.finalVar
	case "print":
		return e.print
	}
	return nil
}

// shadowable are the API functions whose names models use for their own data (let count = 0,
// const text = ...): their globals stay writable after hardening, so that a cell may declare a
// top-level variable of the same name, which then hides the function for the session (see
// shadowed). The others (print, FINAL, llm_query, the file tools, ...) stay read-only.
var shadowable = map[string]bool{"length": true, "peek": true, "text": true, "search": true, "count": true, "tally": true, "chunk": true}

func writableGlobals() map[string]bool { return shadowable }

// shadowed lists the API functions a top-level declaration of a cell has replaced.
func (e *Engine) shadowed() []string {
	var out []string
	g := e.vm.GlobalObject()
	for name := range shadowable {
		if v, ok := g.Get(name).(*goja.Object); !ok || v != e.apiFuncs[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

const handleHint = "[context: the input, a handle; use length(context), peek(context, offset, length), text(context), search(context, regex), count(context, regex), tally(context, regex), chunk(context, size, overlap)]"

// newHandle builds the opaque `context` object. It carries no data: host functions recognise it
// by identity.
func (e *Engine) newHandle() *goja.Object {
	h := e.vm.NewObject()
	hint := e.vm.ToValue(handleHint)
	_ = h.DefineDataProperty("toString", e.vm.ToValue(func(goja.FunctionCall) goja.Value { return hint }),
		goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return h
}

// hostFunc is the JS global for one host-served API function. Each argument is converted to Go
// exactly once, before anything checks it; the host's result is copied into fresh JS values.
func (e *Engine) hostFunc(f engine.Func) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if e.cell == nil {
			panic(e.jsError("Error", f.Name+" can only be called while a cell runs", nil))
		}
		args := e.convertArgs(f, call.Arguments)
		res, err := e.callHost(f.Name, args)
		if err != nil {
			panic(e.jsError("Error", err.Error(), err))
		}
		if f.Name == "search" {
			return e.searchPage(res)
		}
		v, err := e.toJS(res, 0)
		if err != nil {
			panic(e.jsError("Error", fmt.Sprintf("%s: %v", f.Name, err), fault.Wrap(fault.Crashed, err, f.Name)))
		}
		return v
	}
}

// callHost calls the host, turning a Go panic into an error at the boundary.
func (e *Engine) callHost(name string, args []any) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fault.New(fault.Crashed, "internal error in %s: %v", name, r)
		}
	}()
	return e.host.Call(e.cell.ctx, name, args)
}

func signature(f engine.Func) string { return f.Signature("js") }

// convertArgs turns JS arguments into plain Go values, once each, or throws a TypeError. An
// Optional last parameter (search's from) may be left out.
func (e *Engine) convertArgs(f engine.Func, in []goja.Value) []any {
	lo, hi := len(f.Params), len(f.Params)
	if f.Variadic() {
		lo--
	}
	if len(in) < lo || len(in) > hi {
		want := strconv.Itoa(hi)
		if lo < hi {
			want = fmt.Sprintf("%d or %d", lo, hi)
		}
		panic(e.jsError("TypeError", fmt.Sprintf("%s takes %s argument(s), got %d", signature(f), want, len(in)), nil))
	}
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = e.convertArg(f, f.Params[i], v)
	}
	return out
}

func (e *Engine) convertArg(f engine.Func, p engine.Param, v goja.Value) any {
	bad := func(want string) {
		panic(e.jsError("TypeError", fmt.Sprintf("%s: %s must be %s, got %s", signature(f), p.Name, want, typeName(v)), nil))
	}
	switch p.GoType {
	case "Context":
		if obj, ok := v.(*goja.Object); ok {
			if name, ok := e.handles[obj]; ok {
				return name
			}
		} else if goja.IsString(v) { // a context's name, "ctx1"; the host checks it
			return v.String()
		}
		bad("a context handle (context, ctx1, …)")
	case "int":
		if !goja.IsNumber(v) {
			bad("a number")
		}
		x := v.ToFloat()
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			bad("an integer")
		}
		return int64(x)
	case "float64":
		if !goja.IsNumber(v) {
			bad("a number")
		}
		return v.ToFloat()
	case "bool":
		b, ok := v.Export().(bool)
		if !ok {
			bad("a boolean")
		}
		return b
	case "string":
		s, ok := e.stringArg(v, p.Name == "regex")
		if !ok {
			bad("a string" + e.textHint(v))
		}
		return s
	case "[]string":
		return e.listArg(f, p, v, bad)
	case "Opts":
		return e.optsArg(f, v, bad)
	}
	panic(e.jsError("TypeError", fmt.Sprintf("%s: parameter type %s is not supported", signature(f), p.GoType), nil))
}

// stringArg converts v to a string with one ToString: a string, a number or a boolean, or such
// a value boxed (new String(s)), or a Date. A RegExp passed as a regex becomes its source with
// its i, m and s flags as an RE2 prefix. Any other object is refused: its text would be
// "[object Object]" or an array's elements joined with commas, which no call means.
func (e *Engine) stringArg(v goja.Value, regex bool) (string, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "", false
	}
	if obj, ok := v.(*goja.Object); ok {
		switch {
		case slices.Contains(textClasses, obj.ClassName()):
			return v.String(), true
		case !regex || obj.ClassName() != "RegExp":
			return "", false
		}
		src, flags := obj.Get("source").String(), obj.Get("flags").String()
		var prefix string
		for _, f := range "ims" {
			if strings.ContainsRune(flags, f) {
				prefix += string(f)
			}
		}
		if prefix != "" {
			src = "(?" + prefix + ")" + src
		}
		return src, true
	}
	return v.String(), true
}

// textClasses are the classes of objects whose text a string parameter takes: boxed primitives
// and dates.
var textClasses = []string{"String", "Number", "Boolean", "Date"}

// textHint says how to get the text a string parameter wants from v, an object it refused.
func (e *Engine) textHint(v goja.Value) string {
	obj, ok := v.(*goja.Object)
	if !ok {
		return ""
	}
	if _, handle := e.handles[obj]; handle {
		return " (text(ctx) or peek(ctx, offset, length) gives a context's text)"
	}
	if _, fn := goja.AssertFunction(v); fn {
		return ""
	}
	return " (JSON.stringify(value) gives an object's text)"
}

func (e *Engine) listArg(f engine.Func, p engine.Param, v goja.Value, bad func(string)) []string {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Array" {
		bad("an array of strings")
	}
	n := obj.Get("length").ToInteger()
	if n > maxListArg {
		panic(e.jsError("RangeError", fmt.Sprintf("%s: %s has %d elements, more than %d", signature(f), p.Name, n, maxListArg), nil))
	}
	out := make([]string, n)
	for i := range out {
		el := obj.Get(fmt.Sprint(i))
		s, ok := e.stringArg(el, false)
		if !ok {
			panic(e.jsError("TypeError", fmt.Sprintf("%s: %s must be an array of strings, but %s[%d] is %s", signature(f), p.Name, p.Name, i, typeName(el)), nil))
		}
		out[i] = s
	}
	return out
}

// optsArg converts llm_query's options, a plain object such as {model: "cheap"}, into the map
// the host reads (engine.Options are its keys); undefined and null are no options.
func (e *Engine) optsArg(f engine.Func, v goja.Value, bad func(string)) any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	obj, ok := v.(*goja.Object)
	if _, fn := goja.AssertFunction(v); !ok || fn || obj.ClassName() == "Array" {
		bad(`an object such as {model: "name"}`)
	}
	out := map[string]any{}
	for _, k := range obj.Keys() {
		if !slices.Contains(engine.Options, k) {
			panic(e.jsError("TypeError", fmt.Sprintf("%s: opts has no option %q; the options are %s, e.g. %s(prompt, {model: \"name\"})",
				signature(f), k, strings.Join(engine.Options, ", "), f.Name), nil))
		}
		x := obj.Get(k)
		if !goja.IsString(x) {
			panic(e.jsError("TypeError", fmt.Sprintf("%s: opts.%s must be a string, got %s", signature(f), k, typeName(x)), nil))
		}
		out[k] = x.String()
	}
	return out
}

func typeName(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	case goja.IsString(v):
		return "a string"
	case goja.IsNumber(v):
		return "the number " + v.String()
	case goja.IsBigInt(v):
		return "a bigint"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "a symbol"
	}
	if obj, ok := v.(*goja.Object); ok {
		if _, fn := goja.AssertFunction(obj); fn {
			return "a function"
		}
		if obj.ClassName() == "Array" {
			return "an array"
		}
		return "an object"
	}
	return "a boolean"
}

// jsError builds an exception object of the named built-in type. A host error is remembered, so
// that a cell that does not catch it fails with the host's kind.
func (e *Engine) jsError(typ, msg string, cause error) *goja.Object {
	ctor, _ := e.vm.GlobalObject().Get(typ).(*goja.Object)
	obj, err := e.vm.New(ctor, e.vm.ToValue(msg))
	if err != nil {
		obj = e.vm.NewTypeError(msg)
	}
	if cause != nil {
		if k := fault.KindOf(cause); k != "" {
			_ = obj.DefineDataProperty("kind", e.vm.ToValue(string(k)), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		if e.hostErrs != nil {
			e.hostErrs[obj] = cause
		}
	}
	return obj
}

// keyOrder puts the fields of the API's result records first, in a readable order.
var keyOrder = map[string]int{"index": 1, "start": 2, "end": 3, "line": 4, "text": 5, "line_text": 6, "ref": 7, "total": 8,
	"name": 9, "size": 10, "is_dir": 11, "mod_time": 12, "count": 13, "distinct": 14}

// searchPage builds search's result: an array of the page's matches that also carries total
// (matches in the whole context), truncated (matches follow) and next (the from of the next
// page). A host that returns a plain list gives a page that holds every match.
func (e *Engine) searchPage(res any) goja.Value {
	page, ok := res.(map[string]any)
	if !ok {
		page = map[string]any{"matches": res}
	}
	list, _ := page["matches"].([]any)
	if list == nil && page["matches"] != nil {
		if typed, ok := page["matches"].([]map[string]any); ok {
			for _, m := range typed {
				list = append(list, m)
			}
		}
	}
	from, _ := page["from"].(int64)
	total, ok := page["total"].(int64)
	if !ok {
		total = from + int64(len(list))
	}
	v, err := e.toJS(list, 0)
	if err != nil {
		panic(e.jsError("Error", "search: "+err.Error(), fault.Wrap(fault.Crashed, err, "search")))
	}
	arr := v.(*goja.Object)
	next := from + int64(len(list))
	for k, x := range map[string]any{"total": total, "truncated": next < total, "next": next} {
		if err := arr.DefineDataProperty(k, e.vm.ToValue(x), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			panic(e.jsError("Error", "search: "+err.Error(), fault.Wrap(fault.Crashed, err, "search")))
		}
	}
	return arr
}

// toJS copies a host result (nil, bool, numbers, string, []any, []string, map[string]any) into
// fresh JS values. Nothing else is accepted: no Go value is ever wrapped.
func (e *Engine) toJS(v any, depth int) (goja.Value, error) {
	if depth > maxHostDepth {
		return nil, fmt.Errorf("host result nested more than %d levels", maxHostDepth)
	}
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case bool, string, int, int64, float64:
		return e.vm.ToValue(x), nil
	case int32:
		return e.vm.ToValue(int64(x)), nil
	case json.Number:
		f, err := x.Float64()
		return e.vm.ToValue(f), err
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return e.toJS(items, depth)
	case []map[string]any:
		items := make([]any, len(x))
		for i, m := range x {
			items[i] = m
		}
		return e.toJS(items, depth)
	case []any:
		vals := make([]any, len(x))
		for i, item := range x {
			jv, err := e.toJS(item, depth+1)
			if err != nil {
				return nil, err
			}
			vals[i] = jv
		}
		return e.vm.NewArray(vals...), nil
	case map[string]any:
		return e.objectToJS(x, depth)
	}
	return nil, fmt.Errorf("host returned an unsupported %T", v)
}

func (e *Engine) objectToJS(m map[string]any, depth int) (goja.Value, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, oj := keyOrder[keys[i]], keyOrder[keys[j]]
		if oi != oj {
			return oi != 0 && (oj == 0 || oi < oj)
		}
		return keys[i] < keys[j]
	})
	obj := e.vm.NewObject()
	for _, k := range keys {
		jv, err := e.toJS(m[k], depth+1)
		if err != nil {
			return nil, err
		}
		if err := obj.Set(k, jv); err != nil {
			return nil, err
		}
	}
	return obj, nil
}
