package js

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// preludeSource is the hardening prelude. It is trusted, runs once per runtime before any model
// code, and leaves nothing behind but the changes it makes: it is a function expression called
// with the global object.
const preludeSource = `(function (G) {
"use strict";
const O = Object;
const defineProperty = O.defineProperty, getDesc = O.getOwnPropertyDescriptor, getProto = O.getPrototypeOf;
const TE = TypeError;

// 1. Evaluators, reflection and the global object's name for itself.
for (const name of ["eval", "Function", "Reflect", "Proxy", "globalThis", "WeakRef",
		"FinalizationRegistry", "SharedArrayBuffer", "Atomics", "WebAssembly", "GoError"]) {
	delete G[name];
}

// A write to a tamed property of a frozen prototype defines an own property on the receiver
// (so this.name = "MyError" still works); a write to the prototype itself fails.
function overrideSetter(proto, name) {
	return { set(v) {
		if (this === proto) {
			throw new TE("Cannot assign to read only property '" + name + "' of a built-in prototype");
		}
		defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
	} }.set;
}

// 2. The Function constructor, reachable from every function as .constructor: reading it throws.
const denied = { get() {
	throw new TE("the Function constructor is disabled in this sandbox: code cannot be built from strings");
} }.get;
const fnProtos = [getProto(function () {}), getProto(async function () {}), getProto(function* () {})];
for (const proto of fnProtos) {
	defineProperty(proto, "constructor",
		{ get: denied, set: overrideSetter(proto, "constructor"), enumerable: false, configurable: false });
}

// 3. __proto__ and the legacy accessor helpers (they reach Function.prototype from strings).
const OP = O.prototype;
for (const name of ["__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"]) {
	delete OP[name];
}

// 4. Override taming: data properties that ordinary code assigns on its own objects become
// accessors, so freezing their prototype does not break the assignment.
function tame(proto, names) {
	for (const name of names) {
		const d = getDesc(proto, name);
		if (!d || !("value" in d)) continue;
		const value = d.value;
		defineProperty(proto, name, { get: { get() { return value; } }.get, set: overrideSetter(proto, name),
			enumerable: d.enumerable, configurable: false });
	}
}
tame(OP, ["constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"]);
tame(fnProtos[0], ["toString"]);
tame(Array.prototype, ["toString"]);
for (const E of [Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, AggregateError]) {
	tame(E.prototype, ["constructor", "name", "message", "toString"]);
}

// 5 and 6 run in Go (freezeIntrinsics): the prelude hands over the hidden intrinsics (iterator,
// generator and async prototypes), which only code can reach.
return [
	[][Symbol.iterator](), new Map().entries(), new Set().values(), ""[Symbol.iterator](),
	/a/g[Symbol.matchAll]("a"), (function* () {})(), function* () {}, async function () {}, async () => {},
	getProto(Int8Array), Promise.resolve(),
];
})(this);
`

var (
	preludeOnce sync.Once
	preludePrg  *goja.Program
	preludeErr  error
)

// harden runs the prelude in vm, then freezes the intrinsics and makes the global bindings
// read-only (freezeIntrinsics), all but the writable ones.
func harden(vm *goja.Runtime, writable map[string]bool) error {
	preludeOnce.Do(func() {
		ast, err := parser.ParseFile(nil, "prelude.js", preludeSource, 0, parser.WithDisableSourceMaps)
		if err != nil {
			preludeErr = err
			return
		}
		preludePrg, preludeErr = goja.CompileAST(ast, true)
	})
	if preludeErr != nil {
		return preludeErr
	}
	hidden, err := vm.RunProgram(preludePrg)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	return freezeIntrinsics(vm, hidden, writable)
}

// freezer walks the object graph from some roots through own properties (data values, getters
// and setters, string and symbol keys) and prototypes, and freezes every object it reaches. It
// calls goja's own Object.freeze, getOwnPropertyDescriptor and getOwnPropertySymbols, from Go:
// the same walk as a JS loop would make, without interpreting one and without building every
// object's full descriptor map (most of what a runtime cost to start; see pushProperties).
type freezer struct {
	vm                       *goja.Runtime
	freeze, getDesc, getSyms goja.Callable
	seen                     map[*goja.Object]struct{}
	stack                    []*goja.Object
}

func newFreezer(vm *goja.Runtime) (*freezer, error) {
	obj := vm.Get("Object").(*goja.Object)
	f := &freezer{vm: vm, seen: make(map[*goja.Object]struct{}, 1024)}
	for name, dst := range map[string]*goja.Callable{
		"freeze": &f.freeze, "getOwnPropertyDescriptor": &f.getDesc, "getOwnPropertySymbols": &f.getSyms,
	} {
		fn, ok := goja.AssertFunction(obj.Get(name))
		if !ok {
			return nil, fmt.Errorf("Object.%s is not a function", name)
		}
		*dst = fn
	}
	return f, nil
}

// freezeIntrinsics freezes everything reachable from the hidden intrinsics (an array the prelude
// returns) and from the global object's properties, then makes every global binding read-only
// (a data binding non-writable and non-configurable, an accessor non-configurable) but the
// writable ones, whose values are frozen all the same. The global object itself stays
// extensible: cells declare their variables on it.
func freezeIntrinsics(vm *goja.Runtime, hidden goja.Value, writable map[string]bool) error {
	f, err := newFreezer(vm)
	if err != nil {
		return err
	}
	roots, ok := hidden.(*goja.Object)
	if !ok {
		return fmt.Errorf("prelude returned %v, not the hidden intrinsics", hidden)
	}
	g := vm.GlobalObject()
	f.seen[g] = struct{}{}
	for _, k := range roots.GetOwnPropertyNames() {
		if k != "length" {
			f.push(roots.Get(k))
		}
	}
	names := g.GetOwnPropertyNames()
	accessor := make([]bool, len(names))
	for i, k := range names {
		if accessor[i], err = f.pushProperty(g, vm.ToValue(k)); err != nil {
			return err
		}
	}
	if err := f.run(); err != nil {
		return err
	}
	for i, k := range names {
		if writable[k] && !accessor[i] {
			continue
		}
		w := goja.FLAG_FALSE
		if accessor[i] {
			w = goja.FLAG_NOT_SET
		}
		if err := g.DefineDataProperty(k, nil, w, goja.FLAG_FALSE, goja.FLAG_NOT_SET); err != nil {
			return err
		}
	}
	return nil
}

func (f *freezer) push(v goja.Value) {
	if o, ok := v.(*goja.Object); ok {
		if _, done := f.seen[o]; !done {
			f.stack = append(f.stack, o)
		}
	}
}

// run freezes the objects on the stack and everything they reach.
func (f *freezer) run() error {
	for len(f.stack) > 0 {
		o := f.stack[len(f.stack)-1]
		f.stack = f.stack[:len(f.stack)-1]
		if _, done := f.seen[o]; done {
			continue
		}
		f.seen[o] = struct{}{}
		if _, err := f.freeze(goja.Undefined(), o); err != nil {
			return err
		}
		if p := o.Prototype(); p != nil {
			f.push(p)
		}
		if err := f.pushProperties(o); err != nil {
			return err
		}
	}
	return nil
}

// pushProperties pushes what o's own properties hold. A function's length and name are not read:
// goja defines them as data properties holding a number and a string. A function with no other
// string-keyed property (a built-in method) is taken to have no symbol-keyed one either.
// TestFreezeWalkComplete walks every descriptor of the hardened runtime to check both.
func (f *freezer) pushProperties(o *goja.Object) error {
	fn, simple := o.ClassName() == "Function", true
	for _, k := range o.GetOwnPropertyNames() {
		if fn && (k == "length" || k == "name") {
			continue
		}
		simple = false
		if _, err := f.pushProperty(o, f.vm.ToValue(k)); err != nil {
			return err
		}
	}
	if fn && simple {
		return nil
	}
	syms, err := f.getSyms(goja.Undefined(), o)
	if err != nil {
		return err
	}
	list := syms.(*goja.Object)
	for i, n := int64(0), list.Get("length").ToInteger(); i < n; i++ {
		if _, err := f.pushProperty(o, list.Get(strconv.FormatInt(i, 10))); err != nil {
			return err
		}
	}
	return nil
}

// pushProperty pushes what o's own property key holds: its value, or its getter and setter. It
// reports whether the property is an accessor.
func (f *freezer) pushProperty(o *goja.Object, key goja.Value) (bool, error) {
	d, err := f.getDesc(goja.Undefined(), o, key)
	if err != nil {
		return false, err
	}
	desc, ok := d.(*goja.Object)
	if !ok {
		return false, nil // gone (not an own property any more)
	}
	if v := desc.Get("value"); v != nil {
		f.push(v)
		return false, nil
	}
	f.push(desc.Get("get"))
	f.push(desc.Get("set"))
	return true, nil
}
