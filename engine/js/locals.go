package js

import (
	"errors"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
)

// Locals describes the session's variables between cells, in the order of Vars, at most
// engine.MaxLocals of them: the type as typeof would say it, or the constructor's name for an
// object ("Array", "Map", "Date", a class's name); a short rendering; and the length (the
// characters of a string, as Go's engine and the prompt count them; .length of an Array, .size
// of a Map or Set).
//
// No model code runs: there is no cell to bound it (no deadline, no heap watchdog). Properties
// are read by their descriptors (a getter shows as [Getter], never called), a Map's or Set's
// entries through the built-in iterators, a string's prefix by Substring, and nothing is
// converted whole, so the work is bounded by the output whatever the values hold.
func (e *Engine) Locals() (out []engine.Var) {
	if e.closed.Load() || e.cell != nil {
		return nil
	}
	names := e.Vars()
	defer func() {
		if recover() != nil { // a bug here must not take the session down: names only
			out = namesOnly(names)
		}
	}()
	if len(names) > engine.MaxLocals {
		names = names[:engine.MaxLocals]
	}
	out = make([]engine.Var, len(names))
	g := e.vm.GlobalObject()
	for i, n := range names {
		v := engine.Var{Name: n, Len: -1}
		if val, ok := e.own(g, n); ok {
			v.Type, v.Len = e.typeOf(val), e.lengthOf(val)
			v.Repr = e.repr(val, v.Len)
		}
		out[i] = v.Bound()
	}
	return out
}

func namesOnly(names []string) []engine.Var {
	out := make([]engine.Var, len(names))
	for i, n := range names {
		out[i] = engine.Var{Name: n, Len: -1}.Bound()
	}
	return out
}

// natives are built-in functions Locals calls: native code of frozen intrinsics, taken when the
// engine is built, so a cell can neither replace them nor reach model code through them.
type natives struct {
	ownDesc            goja.Callable // Object.getOwnPropertyDescriptor
	mapSize, setSize   goja.Callable // the size getters of Map.prototype and Set.prototype
	mapEntries, setVal goja.Callable // Map.prototype.entries, Set.prototype.values
	reSource, reFlags  goja.Callable // the getters of RegExp.prototype
	firstKeys          goja.Callable // the engine's own: an object's first enumerable keys (see keys)
}

// firstKeysSrc lists the first n+1 enumerable string keys of o with for-in, which reads keys
// lazily and calls no getter: Object.keys and goja's Keys build the whole list, which takes a
// quarter of a second for an object of 100,000 keys (a model's word counts).
const firstKeysSrc = `(function (o, n) { const ks = []; for (const k in o) { if (ks.length > n) break; ks.push(k) } return ks })`

// takeNatives reads the built-ins Locals needs, before any model code has run.
func (e *Engine) takeNatives() error {
	g := e.vm.GlobalObject()
	proto := func(ctor string) *goja.Object {
		c, _ := g.Get(ctor).(*goja.Object)
		if c == nil {
			return nil
		}
		p, _ := c.Get("prototype").(*goja.Object)
		return p
	}
	fn := func(v goja.Value) goja.Callable {
		f, _ := goja.AssertFunction(v)
		return f
	}
	obj, _ := g.Get("Object").(*goja.Object)
	if obj == nil {
		return errors.New("no Object global")
	}
	n := natives{ownDesc: fn(obj.Get("getOwnPropertyDescriptor"))}
	getter := func(p *goja.Object, name string) goja.Callable {
		if p == nil || n.ownDesc == nil {
			return nil
		}
		d, err := n.ownDesc(goja.Undefined(), p, e.vm.ToValue(name))
		if o, ok := d.(*goja.Object); ok && err == nil {
			return fn(o.Get("get"))
		}
		return nil
	}
	mp, sp, rp := proto("Map"), proto("Set"), proto("RegExp")
	n.mapSize, n.setSize, n.reSource, n.reFlags = getter(mp, "size"), getter(sp, "size"), getter(rp, "source"), getter(rp, "flags")
	if mp != nil && sp != nil {
		n.mapEntries, n.setVal = fn(mp.Get("entries")), fn(sp.Get("values"))
	}
	if n.ownDesc == nil || n.mapSize == nil || n.setSize == nil || n.mapEntries == nil || n.setVal == nil || n.reSource == nil || n.reFlags == nil {
		return errors.New("a built-in the variables view needs is missing")
	}
	first, err := e.vm.RunString(firstKeysSrc)
	if err != nil {
		return err
	}
	n.firstKeys = fn(first)
	e.natives = n
	return nil
}

// own reads obj's own data property name; ok is false when there is none, or it is an accessor
// (whose getter is not called: see getter).
func (e *Engine) own(obj *goja.Object, name string) (goja.Value, bool) {
	v, _, ok := e.ownProp(obj, name)
	return v, ok
}

// ownProp is own, and whether the property is an accessor.
func (e *Engine) ownProp(obj *goja.Object, name string) (v goja.Value, accessor, ok bool) {
	d, err := e.natives.ownDesc(goja.Undefined(), obj, e.vm.ToValue(name))
	desc, isObj := d.(*goja.Object)
	if err != nil || !isObj {
		return nil, false, false
	}
	if g := desc.Get("get"); g != nil && !goja.IsUndefined(g) {
		return nil, true, false
	}
	if s := desc.Get("set"); s != nil && !goja.IsUndefined(s) {
		return nil, true, false
	}
	return desc.Get("value"), false, true
}

// call calls a native built-in; a failure reads as undefined.
func call(f goja.Callable, this goja.Value) goja.Value {
	v, err := f(this)
	if err != nil || v == nil {
		return goja.Undefined()
	}
	return v
}

// kind tells apart the objects Locals renders in their own way.
func (e *Engine) kind(obj *goja.Object) string {
	switch obj.ClassName() {
	case "Array", "Date", "Error", "RegExp", "Function":
		return obj.ClassName()
	}
	switch t := obj.ExportType(); {
	case t == mapExport:
		return "Map"
	case t == setExport:
		return "Set"
	case t != nil && t.Kind() == reflect.Slice:
		return "TypedArray"
	}
	if _, isFn := goja.AssertFunction(obj); isFn {
		return "Function"
	}
	return "Object"
}

// typeOf is typeof's answer for a primitive, "function" for a function, and the name of an
// object's constructor otherwise ("Array", "Map", "Date", "Object", a class's name), or
// "Context" for a context handle.
func (e *Engine) typeOf(v goja.Value) string {
	obj, ok := v.(*goja.Object)
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	case goja.IsString(v):
		return "string"
	case goja.IsNumber(v):
		return "number"
	case goja.IsBigInt(v):
		return "bigint"
	case !ok:
		if _, isSym := v.(*goja.Symbol); isSym {
			return "symbol"
		}
		return "boolean"
	}
	if _, isHandle := e.handles[obj]; isHandle {
		return "Context"
	}
	switch e.kind(obj) {
	case "Function":
		return "function"
	case "Error":
		return e.errorName(obj)
	}
	if name := e.constructorName(obj); name != "" {
		return name
	}
	return "Object"
}

// constructorName is the name of the constructor of obj's prototype, read as data only.
func (e *Engine) constructorName(obj *goja.Object) string {
	p := obj.Prototype()
	if p == nil {
		return ""
	}
	c, ok := e.own(p, "constructor")
	ctor, isObj := c.(*goja.Object)
	if !ok || !isObj {
		return ""
	}
	name, ok := e.own(ctor, "name")
	if !ok || !goja.IsString(name) {
		return ""
	}
	s := name.(goja.String)
	return s.Substring(0, min(s.Length(), engine.MaxTypeChars)).String()
}

// lengthOf is the characters of a string (chars), .length of an Array or typed array, .size of
// a Map or Set, else -1.
func (e *Engine) lengthOf(v goja.Value) int {
	if s, ok := v.(goja.String); ok {
		return chars(s)
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return -1
	}
	switch e.kind(obj) {
	case "Array":
		if n, ok := e.own(obj, "length"); ok {
			return int(n.ToInteger())
		}
	case "Map":
		return int(call(e.natives.mapSize, obj).ToInteger())
	case "Set":
		return int(call(e.natives.setSize, obj).ToInteger())
	case "TypedArray":
		if rv := reflect.ValueOf(obj.Export()); rv.Kind() == reflect.Slice {
			return rv.Len()
		}
	}
	return -1
}

// chars is the number of characters (Unicode code points) of s, as the API, the prompt and Go's
// engine count them: its UTF-16 units (.length) less its surrogate pairs. It is one pass over s
// at most: goja keeps an ASCII string as Go bytes (a unit is a character: nothing to count) and
// a string a host function returned as the Go string it was (counted as Go counts it).
func chars(s goja.String) int {
	switch reflect.ValueOf(s).Kind() {
	case reflect.String: // ASCII
		return s.Length()
	case reflect.Slice: // UTF-16 units
		return charsUpTo(s, s.Length())
	}
	return utf8.RuneCountInString(s.String()) // a Go string goja has not converted (or a kind it has added)
}

// charsUpTo counts the characters of s's first n UTF-16 units: a surrogate pair is one.
func charsUpTo(s goja.String, n int) int {
	count := 0
	for i := 0; i < n; i++ {
		if i+1 < n && isHighSurrogate(s.CharAt(i)) && isLowSurrogate(s.CharAt(i+1)) {
			i++
		}
		count++
	}
	return count
}

// unitsOf is how many UTF-16 units s's first k characters take (all of s when it has fewer).
func unitsOf(s goja.String, k int) int {
	n, i := s.Length(), 0
	for ; i < n && k > 0; k-- {
		if i+1 < n && isHighSurrogate(s.CharAt(i)) && isLowSurrogate(s.CharAt(i+1)) {
			i++
		}
		i++
	}
	return i
}

func isHighSurrogate(u uint16) bool { return u >= 0xD800 && u <= 0xDBFF }
func isLowSurrogate(u uint16) bool  { return u >= 0xDC00 && u <= 0xDFFF }

// repr renders v as JavaScript would show it in a console: strings quoted, arrays as [a, b],
// Map(2) {k => v}, objects as {k: v}; a long string by its prefix and its characters (n, as
// lengthOf counts them), a long list by its first elements and the count of the rest.
func (e *Engine) repr(v goja.Value, n int) string {
	w := jsRepr{ReprWriter: engine.NewReprWriter(engine.MaxReprChars), e: e, seen: map[*goja.Object]bool{}}
	if s, ok := v.(goja.String); ok {
		if w.str(s, engine.MaxReprChars-30) {
			w.Write(" (" + engine.Thousands(int64(n)) + " characters)")
		}
		return w.String()
	}
	w.value(v, 0)
	return w.String()
}

// jsRepr renders JS values into an engine.ReprWriter.
type jsRepr struct {
	*engine.ReprWriter
	e    *Engine
	seen map[*goja.Object]bool
}

// elemChars is the most characters of a string shown inside an array, Map, Set or object.
const elemChars = 40

// maxReprDepth bounds nesting: deeper objects are written as "…".
const maxReprDepth = 3

// str writes a quoted prefix of s of at most limit characters (a surrogate pair is never split);
// it reports whether s was cut.
func (w *jsRepr) str(s goja.String, limit int) bool {
	limit = max(limit, 0) // inside a list, room may have run out
	end := unitsOf(s, limit)
	if end >= s.Length() {
		w.Write(quote(s.String()))
		return false
	}
	q := quote(s.Substring(0, end).String())
	w.Write(q[:len(q)-1] + "…\"")
	return true
}

func (w *jsRepr) value(v goja.Value, depth int) {
	if w.Cut() {
		return
	}
	obj, ok := v.(*goja.Object)
	switch {
	case v == nil || goja.IsUndefined(v):
		w.Write("undefined")
	case goja.IsString(v):
		w.str(v.(goja.String), min(w.Room(), elemChars))
	case goja.IsBigInt(v):
		w.Write(v.String() + "n")
	case !ok:
		w.Write(v.String()) // numbers, booleans, null, symbols: no model code
	default:
		w.object(obj, depth)
	}
}

func (w *jsRepr) object(obj *goja.Object, depth int) {
	if name, ok := w.e.handles[obj]; ok {
		w.Write(name)
		return
	}
	if w.seen[obj] {
		w.Write("[Circular]")
		return
	}
	if depth > maxReprDepth {
		w.Write("…")
		return
	}
	w.seen[obj] = true
	defer delete(w.seen, obj)
	switch k := w.e.kind(obj); k {
	case "Function":
		name := "(anonymous)"
		if n, ok := w.e.own(obj, "name"); ok && goja.IsString(n) && n.String() != "" {
			name = n.String()
		}
		w.Write("[Function: " + name + "]")
	case "Date":
		d, _ := dateString(obj)
		if d == "" {
			d = "Invalid Date"
		}
		w.Write(d)
	case "Error":
		w.errorValue(obj)
	case "RegExp":
		w.Write("/" + call(w.e.natives.reSource, obj).String() + "/" + call(w.e.natives.reFlags, obj).String())
	case "Array":
		w.array(obj, depth)
	case "Map", "Set":
		w.collection(obj, k, depth)
	case "TypedArray":
		w.typedArray(obj)
	default:
		w.plain(obj, depth)
	}
}

func (w *jsRepr) array(obj *goja.Object, depth int) {
	n := w.e.lengthOf(obj)
	w.Write("[")
	for i := 0; i < n && w.Element(i, n, ", ", func() { w.slot(obj, strconv.Itoa(i), depth) }); i++ {
	}
	w.Write("]")
}

// slot writes an own property's value: [Getter] for an accessor, empty for a hole.
func (w *jsRepr) slot(obj *goja.Object, key string, depth int) {
	switch v, accessor, ok := w.e.ownProp(obj, key); {
	case accessor:
		w.Write("[Getter]")
	case ok:
		w.value(v, depth+1)
	default:
		w.Write("<empty>")
	}
}

// collection writes Map(n) {k => v, …} or Set(n) {v, …}, stepping the built-in iterator only as
// far as the output goes.
func (w *jsRepr) collection(obj *goja.Object, kind string, depth int) {
	n := w.e.lengthOf(obj)
	iterFn := w.e.natives.setVal
	if kind == "Map" {
		iterFn = w.e.natives.mapEntries
	}
	w.Write(kind + "(" + strconv.Itoa(n) + ") {")
	it, _ := call(iterFn, obj).(*goja.Object)
	var next goja.Callable
	if it != nil {
		next, _ = goja.AssertFunction(it.Get("next")) // the frozen built-in iterator prototype's next
	}
	for i := 0; i < n && next != nil; i++ {
		r, _ := call(next, it).(*goja.Object)
		if r == nil || r.Get("done").ToBoolean() {
			break
		}
		entry := r.Get("value")
		if !w.Element(i, n, ", ", func() { w.entry(entry, kind, depth) }) {
			break
		}
	}
	w.Write("}")
}

func (w *jsRepr) entry(v goja.Value, kind string, depth int) {
	pair, ok := v.(*goja.Object)
	if kind == "Set" || !ok {
		w.value(v, depth+1)
		return
	}
	w.value(pair.Get("0"), depth+1) // a fresh [key, value] array the built-in iterator made
	w.Write(" => ")
	w.value(pair.Get("1"), depth+1)
}

func (w *jsRepr) typedArray(obj *goja.Object) {
	rv := reflect.ValueOf(obj.Export())
	if rv.Kind() != reflect.Slice {
		w.Write("[]")
		return
	}
	n := rv.Len()
	w.Write("[")
	for i := 0; i < n && w.Element(i, n, ", ", func() { w.Write(reflectNumber(rv.Index(i))) }); i++ {
	}
	w.Write("]")
}

func reflectNumber(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return strconv.FormatInt(v.Int(), 10)
}

// plain writes an object's enumerable properties as {k: v, …}. How many there are is not
// known without listing them all, so the rest is "…" without a count.
func (w *jsRepr) plain(obj *goja.Object, depth int) {
	if name := w.e.constructorName(obj); name != "" && name != "Object" {
		w.Write(name + " ")
	}
	keys, more := w.e.keys(obj, maxKeys)
	w.Write("{")
	n := len(keys)
	if more {
		n = -1 // how many more is not known
	}
	for i := 0; i < len(keys); i++ {
		k := keys[i]
		if !w.Element(i, n, ", ", func() {
			w.Write(propertyKey(k) + ": ")
			w.slot(obj, k, depth)
		}) {
			break
		}
		if more && i == len(keys)-1 {
			w.Write(", …")
		}
	}
	w.Write("}")
}

// maxKeys is the most keys of an object read for its rendering.
const maxKeys = 64

// keys returns obj's first n enumerable string keys, and whether it has more.
func (e *Engine) keys(obj *goja.Object, n int) ([]string, bool) {
	v, err := e.natives.firstKeys(goja.Undefined(), obj, e.vm.ToValue(n))
	arr, ok := v.(*goja.Object)
	if err != nil || !ok {
		return nil, false
	}
	var out []string
	for i := 0; i <= n; i++ {
		k, ok := e.own(arr, strconv.Itoa(i))
		if !ok {
			break
		}
		out = append(out, k.String())
	}
	if len(out) > n {
		return out[:n], true
	}
	return out, false
}

// propertyKey writes a key as a console does: bare when it is an identifier, else quoted.
func propertyKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return quote(k[:min(len(k), elemChars)])
		}
	}
	if k == "" {
		return `""`
	}
	return k[:min(len(k), elemChars)]
}

func (w *jsRepr) errorValue(obj *goja.Object) {
	w.Write(w.e.errorName(obj))
	if m, ok := w.e.own(obj, "message"); ok && goja.IsString(m) && m.String() != "" {
		s := m.(goja.String)
		w.Write(": ")
		if n := min(w.Room(), 2*elemChars); s.Length() > n {
			w.Write(s.Substring(0, n).String() + "…")
		} else {
			w.Write(s.String())
		}
	}
}

// errorName is an error's name as a data property of it or of its prototypes, else its
// constructor's name (hardening makes the built-in errors' name an accessor), else "Error".
func (e *Engine) errorName(obj *goja.Object) string {
	for p, i := obj, 0; p != nil && i < 8; p, i = p.Prototype(), i+1 {
		if n, ok := e.own(p, "name"); ok && goja.IsString(n) {
			s := n.(goja.String)
			return s.Substring(0, min(s.Length(), engine.MaxTypeChars)).String()
		}
	}
	if name := e.constructorName(obj); name != "" {
		return name
	}
	return "Error"
}
