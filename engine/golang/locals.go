package golang

import (
	"reflect"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/engine"
)

// Locals describes the session's variables, in the order of Vars, at most engine.MaxLocals of
// them: the type from the type checker as the cells declared it, a short rendering read from
// the interpreter's values by reflection (never a method call, so no model code runs), and the
// length (of a string, its characters, as the prompt, the API and the JavaScript engine count
// them, not len's bytes). A cancelled cell still inside a native call may be changing the values: then they are
// left out, and only names and types are given.
func (e *Engine) Locals() (out []engine.Var) {
	e.mu.Lock()
	defer e.mu.Unlock()
	names := e.varNames()
	if len(names) > engine.MaxLocals {
		names = names[:engine.MaxLocals]
	}
	defer func() {
		if recover() != nil { // a bug here must not take the session down: names only
			out = make([]engine.Var, len(names))
			for i, n := range names {
				out[i] = engine.Var{Name: n, Len: -1}.Bound()
			}
		}
	}()
	readable := !e.closed && (!e.busy || e.waitIdle(0))
	var values map[string]reflect.Value
	if readable {
		values = e.it.Globals()
	}
	out = make([]engine.Var, len(names))
	for i, n := range names {
		v := engine.Var{Name: n, Type: e.types.VarType(n), Len: -1}
		if rv, ok := values[n]; ok {
			if v.Type == "" && rv.IsValid() {
				v.Type = rv.Type().String()
			}
			v.Len = length(rv)
			v.Repr = repr(rv, v.Len)
		}
		out[i] = v.Bound()
	}
	return out
}

// length is the characters (code points) of a string, len(v) for the other kinds that have
// one, else -1.
func length(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return utf8.RuneCountInString(v.String())
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
		return v.Len()
	case reflect.Interface:
		if !v.IsNil() {
			return length(v.Elem())
		}
	}
	return -1
}

// repr renders v in fmt's %v form, with strings quoted, cut to engine.MaxReprChars characters:
// a long string by a prefix and its characters (n, as length counts them), a slice or map by its
// first elements and the count of the rest. Its work is bounded by the output, whatever v holds.
func repr(v reflect.Value, n int) string {
	w := reprWriter{engine.NewReprWriter(engine.MaxReprChars)}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.String {
		if s := v.String(); w.str(s, engine.MaxReprChars-30) {
			w.Write(" (" + engine.Thousands(int64(n)) + " characters)")
		}
		return w.String()
	}
	w.value(v, 0)
	return w.String()
}

// reprWriter renders reflected values into an engine.ReprWriter.
type reprWriter struct{ *engine.ReprWriter }

// maxReprDepth bounds nesting: deeper values are written as "…".
const maxReprDepth = 4

func (w *reprWriter) value(v reflect.Value, depth int) {
	if w.Cut() {
		return
	}
	if !v.IsValid() {
		w.Write("nil")
		return
	}
	if depth > maxReprDepth {
		w.Write("…")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		w.Write(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.Write(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.Write(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		w.Write(strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		w.Write("(" + strconv.FormatFloat(real(c), 'g', -1, 64) + "+" + strconv.FormatFloat(imag(c), 'g', -1, 64) + "i)")
	case reflect.String:
		w.str(v.String(), min(w.Room(), elemChars))
	case reflect.Slice, reflect.Array:
		w.list(v, depth)
	case reflect.Map:
		w.mapValue(v, depth)
	case reflect.Struct:
		w.structValue(v, depth)
	case reflect.Pointer:
		if v.IsNil() {
			w.Write("nil")
			return
		}
		w.Write("&")
		w.value(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			w.Write("nil")
			return
		}
		w.value(v.Elem(), depth)
	case reflect.Func:
		w.Write("func")
	case reflect.Chan:
		w.Write("chan")
	default:
		w.Write(v.Kind().String())
	}
}

// elemChars is the most of a string shown inside a slice, map or struct.
const elemChars = 40

// str writes s quoted, or a prefix of at most limit characters of it: no more of s is read than
// can be shown. It reports whether s was cut.
func (w *reprWriter) str(s string, limit int) bool {
	end := 0
	for n := 0; end < len(s) && n < limit; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	q := strconv.Quote(s[:end])
	if end < len(s) {
		q = q[:len(q)-1] + "…\""
	}
	w.Write(q)
	return end < len(s)
}

func (w *reprWriter) list(v reflect.Value, depth int) {
	n := v.Len()
	w.Write("[")
	for i := 0; i < n && w.Element(i, n, " ", func() { w.value(v.Index(i), depth+1) }); i++ {
	}
	w.Write("]")
}

// mapValue writes a small map's entries sorted by key, as fmt does, and a large map's first
// entries in iteration order.
func (w *reprWriter) mapValue(v reflect.Value, depth int) {
	n := v.Len()
	w.Write("map[")
	if n <= 64 {
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
		for i, k := range keys {
			if !w.entry(i, n, k, v.MapIndex(k), depth) {
				break
			}
		}
	} else {
		it := v.MapRange()
		for i := 0; it.Next(); i++ {
			if !w.entry(i, n, it.Key(), it.Value(), depth) {
				break
			}
		}
	}
	w.Write("]")
}

// entry writes the i-th of n map entries; it reports whether to go on.
func (w *reprWriter) entry(i, n int, k, val reflect.Value, depth int) bool {
	return w.Element(i, n, " ", func() {
		w.value(k, depth+1)
		w.Write(":")
		w.value(val, depth+1)
	})
}

// lessKey orders map keys of the basic kinds as fmt does; other keys keep their order.
func lessKey(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() < b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() < b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	case reflect.Bool:
		return !a.Bool() && b.Bool()
	}
	return false
}

var timeType = reflect.TypeOf(time.Time{})

func (w *reprWriter) structValue(v reflect.Value, depth int) {
	if v.Type() == timeType && v.CanInterface() {
		w.Write(v.Interface().(time.Time).Format(time.RFC3339Nano)) // the standard library's method: no model code
		return
	}
	w.Write("{")
	for i := 0; i < v.NumField(); i++ {
		if i > 0 {
			w.Write(" ")
		}
		w.value(v.Field(i), depth+1)
	}
	w.Write("}")
}
