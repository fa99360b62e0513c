package js

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
)

// printer renders JS values in Go, for print (the printed form) and for FINAL (JSON). It walks
// the value itself instead of calling JSON.stringify or any toJSON/toString method, so a
// polluted or re-parented prototype cannot change what the host records.
//
// The JSON form is JSON.stringify's, except: toJSON is never called; a Date is its ISO string
// (null when invalid); an Error is the string "Name: message"; a BigInt is written as a number;
// a Map is an object (string keys) or an array of [key, value] pairs, a Set an array; a typed
// array an array of numbers. Cycles, more than maxDepth levels of nesting, and output over the
// budget are errors in FINAL; the printed form shows "[Circular]", "[...]" and a cut instead,
// and renders Map and Set as Map(n) {k => v, ...} and Set(n) {v, ...}.
//
// Reading properties runs model getters: only ever inside a running cell, where the cell's
// interrupts and exceptions apply.
type printer struct {
	vm     *goja.Runtime
	handle *goja.Object // the context handle, printed as a hint
	b      strings.Builder
	budget int  // bytes; writing stops past it
	final  bool // the FINAL form: errors instead of markers
	depth  int
	path   map[*goja.Object]bool
	cut    bool   // the budget ran out
	err    string // FINAL: why the value cannot be serialised
}

const (
	maxDepthFinal = 1000
	maxDepthPrint = 100
)

func (p *printer) String() string {
	if p.cut && !p.final {
		return p.b.String() + "…"
	}
	return p.b.String()
}

func (p *printer) write(s string) {
	if p.cut || p.err != "" {
		return
	}
	if room := p.budget - p.b.Len(); len(s) > room {
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		p.b.WriteString(s[:max(room, 0)])
		p.cut = true
		return
	}
	p.b.WriteString(s)
}

func (p *printer) stopped() bool { return p.cut || p.err != "" }

// top renders a value as print shows one argument: strings as they are, numbers as JS writes
// them, functions, symbols and undefined by name, anything else in the JSON form.
func (p *printer) top(v goja.Value) {
	switch {
	case v == nil || goja.IsUndefined(v):
		p.write("undefined")
		return
	case goja.IsString(v), goja.IsNumber(v), goja.IsBigInt(v):
		p.write(v.String())
		return
	}
	if sym, ok := v.(*goja.Symbol); ok {
		p.write("Symbol(" + sym.String() + ")")
		return
	}
	if obj, ok := v.(*goja.Object); ok {
		if obj == p.handle {
			p.write(handleHint)
			return
		}
		if isError(obj) {
			p.write(errorString(obj))
			return
		}
		if _, isFn := goja.AssertFunction(obj); isFn {
			p.write(functionName(obj))
			return
		}
		if d, ok := dateString(obj); ok {
			if d == "" {
				d = "Invalid Date"
			}
			p.write(d)
			return
		}
		if note := pageNote(obj); note != "" {
			p.value(v)
			p.write(note)
			return
		}
	}
	p.value(v)
}

// pageNote is the note print adds to a search page that does not hold every match:
// " (200 of 1,513 matches shown, numbers 0 to 199; search(ctx, regex, 200) reads the next page)".
func pageNote(obj *goja.Object) string {
	if obj.ClassName() != "Array" {
		return ""
	}
	total, next := obj.Get("total"), obj.Get("next")
	if total == nil || next == nil || !goja.IsNumber(total) || !goja.IsNumber(next) {
		return ""
	}
	n, t, nx := obj.Get("length").ToInteger(), total.ToInteger(), next.ToInteger()
	from := nx - n
	if n == 0 || from == 0 && nx >= t {
		return ""
	}
	return fmt.Sprintf(" (%s of %s matches shown, numbers %d to %d; search(ctx, regex, %d) reads the next page)",
		engine.Thousands(n), engine.Thousands(t), from, nx-1, nx)
}

// value writes v in the JSON form; it writes nothing for values JSON omits (undefined,
// functions, symbols), which callers check with omitted first.
func (p *printer) value(v goja.Value) {
	if p.stopped() {
		return
	}
	switch {
	case v == nil || goja.IsUndefined(v) || goja.IsNull(v):
		p.write("null")
	case goja.IsString(v):
		p.write(quote(v.String()))
	case goja.IsBigInt(v):
		p.write(v.String())
	case goja.IsNumber(v):
		p.number(v.ToFloat(), v)
	default:
		obj, ok := v.(*goja.Object)
		if !ok {
			p.primitive(v)
			return
		}
		p.object(obj)
	}
}

func (p *printer) number(f float64, v goja.Value) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		p.write("null")
		return
	}
	if f == 0 {
		p.write("0")
		return
	}
	p.write(v.String())
}

// primitive handles booleans and symbols (anything not a string, number, bigint or object).
func (p *printer) primitive(v goja.Value) {
	if b, ok := v.Export().(bool); ok {
		p.write(strconv.FormatBool(b))
		return
	}
	p.write("null")
}

// omitted reports whether JSON leaves v out of an object (and writes null for it in an array).
func omitted(v goja.Value) bool {
	if v == nil || goja.IsUndefined(v) {
		return true
	}
	if _, ok := v.(*goja.Symbol); ok {
		return true
	}
	if obj, ok := v.(*goja.Object); ok {
		_, isFn := goja.AssertFunction(obj)
		return isFn
	}
	return false
}

func (p *printer) object(obj *goja.Object) {
	if p.path[obj] {
		p.fail("it contains a cycle", `"[Circular]"`)
		return
	}
	if d, ok := dateString(obj); ok {
		if d == "" {
			p.write("null")
		} else {
			p.write(quote(d))
		}
		return
	}
	if isError(obj) {
		p.write(quote(errorString(obj)))
		return
	}
	limit := maxDepthPrint
	if p.final {
		limit = maxDepthFinal
	}
	if p.depth >= limit {
		p.fail(fmt.Sprintf("it is nested more than %d levels deep", limit), `"[...]"`)
		return
	}
	if p.path == nil {
		p.path = map[*goja.Object]bool{}
	}
	p.path[obj] = true
	p.depth++
	defer func() {
		delete(p.path, obj)
		p.depth--
	}()
	p.container(obj)
}

// container writes arrays, typed arrays, maps, sets, boxed primitives and plain objects.
func (p *printer) container(obj *goja.Object) {
	if obj.ClassName() == "Array" {
		p.array(obj)
		return
	}
	switch obj.ClassName() {
	case "String", "Number", "Boolean":
		p.value(boxed(obj))
		return
	}
	// Maps, Sets and typed arrays are told apart by the Go type goja exports them as.
	switch t := obj.ExportType(); {
	case t == mapExport:
		p.mapObject(obj)
	case t == setExport:
		p.setObject(obj)
	case t != nil && t.Kind() == reflect.Slice:
		p.typedArray(obj)
	default:
		p.plain(obj)
	}
}

var (
	mapExport = reflect.TypeOf([][2]any{})
	setExport = reflect.TypeOf([]any{})
)

func (p *printer) array(obj *goja.Object) {
	n := obj.Get("length").ToInteger()
	p.write("[")
	for i := int64(0); i < n && !p.stopped(); i++ {
		if i > 0 {
			p.write(",")
		}
		p.element(obj.Get(strconv.FormatInt(i, 10)))
	}
	p.write("]")
}

func (p *printer) plain(obj *goja.Object) {
	p.write("{")
	first := true
	for _, k := range obj.Keys() {
		if p.stopped() {
			break
		}
		v := obj.Get(k)
		if omitted(v) {
			continue
		}
		if !first {
			p.write(",")
		}
		first = false
		p.write(quote(k))
		p.write(":")
		p.value(v)
	}
	p.write("}")
}

func (p *printer) typedArray(obj *goja.Object) {
	rv := reflect.ValueOf(obj.Export())
	p.write("[")
	for i := 0; rv.Kind() == reflect.Slice && i < rv.Len() && !p.stopped(); i++ {
		if i > 0 {
			p.write(",")
		}
		switch x := rv.Index(i); x.Kind() {
		case reflect.Float32, reflect.Float64:
			p.number(x.Float(), p.vm.ToValue(x.Float()))
		default:
			p.write(fmt.Sprint(x.Interface()))
		}
	}
	p.write("]")
}

// fail records a FINAL error, or writes the printed form's marker.
func (p *printer) fail(why, marker string) {
	if p.final {
		if p.err == "" {
			p.err = why
		}
		return
	}
	p.write(marker)
}

func boxed(obj *goja.Object) goja.Value {
	switch x := obj.Export().(type) {
	case string:
		return obj.ToString()
	case bool, int64, float64:
		_ = x
		return obj.ToNumber()
	}
	return goja.Null()
}

// dateString returns a Date's ISO form ("" when invalid); ok is false for anything else.
func dateString(obj *goja.Object) (string, bool) {
	if obj.ClassName() != "Date" {
		return "", false
	}
	t, ok := obj.Export().(time.Time)
	if !ok {
		return "", true
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return fmt.Sprintf("%+07d", y) + t.Format("-01-02T15:04:05.000Z"), true
	}
	return t.Format("2006-01-02T15:04:05.000Z"), true
}

func isError(obj *goja.Object) bool { return obj.ClassName() == "Error" }

// errorString is "Name: message", or the name alone when the message is empty.
func errorString(obj *goja.Object) string {
	name, msg := "Error", ""
	if v := obj.Get("name"); v != nil && !goja.IsUndefined(v) {
		name = v.String()
	}
	if v := obj.Get("message"); v != nil && !goja.IsUndefined(v) {
		msg = v.String()
	}
	if msg == "" {
		return name
	}
	if name == "" {
		return msg
	}
	return name + ": " + msg
}

func functionName(obj *goja.Object) string {
	name := ""
	if v := obj.Get("name"); v != nil && goja.IsString(v) {
		name = v.String()
	}
	if name == "" {
		return "[Function (anonymous)]"
	}
	return "[Function: " + name + "]"
}

// quote writes s as a JSON string the way JSON.stringify does (no HTML escaping).
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// entries collects a Map's [key, value] pairs or a Set's values (as [value, value]), stopping
// once more could never fit the budget.
func (p *printer) entries(obj *goja.Object, pairs bool) (keys, vals []goja.Value) {
	p.vm.ForOf(obj, func(v goja.Value) bool {
		if pairs {
			e, ok := v.(*goja.Object)
			if !ok {
				return false
			}
			keys, vals = append(keys, e.Get("0")), append(vals, e.Get("1"))
		} else {
			keys, vals = append(keys, v), append(vals, v)
		}
		return len(keys)*2 <= p.budget
	})
	return keys, vals
}

func (p *printer) mapObject(obj *goja.Object) {
	keys, vals := p.entries(obj, true)
	if !p.final {
		p.write(fmt.Sprintf("Map(%d) {", len(keys)))
		for i := range keys {
			if i > 0 {
				p.write(", ")
			}
			p.element(keys[i])
			p.write(" => ")
			p.element(vals[i])
		}
		p.write("}")
		return
	}
	allStrings := true
	for _, k := range keys {
		allStrings = allStrings && goja.IsString(k)
	}
	if allStrings {
		p.write("{")
		first := true
		for i, k := range keys {
			if omitted(vals[i]) {
				continue
			}
			if !first {
				p.write(",")
			}
			first = false
			p.write(quote(k.String()) + ":")
			p.value(vals[i])
		}
		p.write("}")
		return
	}
	p.write("[")
	for i := range keys {
		if i > 0 {
			p.write(",")
		}
		p.write("[")
		p.element(keys[i])
		p.write(",")
		p.element(vals[i])
		p.write("]")
	}
	p.write("]")
}

func (p *printer) setObject(obj *goja.Object) {
	vals, _ := p.entries(obj, false)
	if p.final {
		p.write("[")
	} else {
		p.write(fmt.Sprintf("Set(%d) {", len(vals)))
	}
	for i, v := range vals {
		if i > 0 {
			p.write(map[bool]string{true: ",", false: ", "}[p.final])
		}
		p.element(v)
	}
	p.write(map[bool]string{true: "]", false: "}"}[p.final])
}

// element writes an array-like slot: null for what JSON omits.
func (p *printer) element(v goja.Value) {
	if omitted(v) {
		p.write("null")
		return
	}
	p.value(v)
}
