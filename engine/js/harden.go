package js

import (
	"fmt"
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
const defineProperty = O.defineProperty, getDesc = O.getOwnPropertyDescriptor,
	getNames = O.getOwnPropertyNames, getDescs = O.getOwnPropertyDescriptors, getSymbols = O.getOwnPropertySymbols,
	getProto = O.getPrototypeOf, freeze = O.freeze;
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

// 5. Freeze every intrinsic reachable from the global object and from the hidden intrinsics
// (iterator, generator and async prototypes), through properties, accessors and prototypes.
const seen = new Set([G]);
function harden(root) {
	const stack = [root];
	while (stack.length > 0) {
		const o = stack.pop();
		if ((typeof o !== "object" || o === null) && typeof o !== "function") continue;
		if (seen.has(o)) continue;
		seen.add(o);
		freeze(o);
		stack.push(getProto(o));
		const ds = getDescs(o);
		const keys = getNames(ds), syms = getSymbols(ds);
		for (let i = 0; i < keys.length; i++) push(stack, ds[keys[i]]);
		for (let i = 0; i < syms.length; i++) push(stack, ds[syms[i]]);
	}
}
function push(stack, d) {
	if ("value" in d) {
		stack.push(d.value);
	} else {
		stack.push(d.get, d.set);
	}
}
const hidden = [
	[][Symbol.iterator](), new Map().entries(), new Set().values(), ""[Symbol.iterator](),
	/a/g[Symbol.matchAll]("a"), (function* () {})(), function* () {}, async function () {}, async () => {},
	getProto(Int8Array), Promise.resolve(),
];
for (let i = 0; i < hidden.length; i++) harden(hidden[i]);
const globals = getNames(G);
for (let i = 0; i < globals.length; i++) {
	const d = getDesc(G, globals[i]);
	harden("value" in d ? d.value : d.get);
	harden(d.set);
}

// 6. Global bindings are read-only: no cell can replace JSON, print or Map for the next one.
for (const k of getNames(G)) {
	const d = getDesc(G, k);
	defineProperty(G, k, "value" in d ? { writable: false, configurable: false } : { configurable: false });
}
})(this);
`

var (
	preludeOnce sync.Once
	preludePrg  *goja.Program
	preludeErr  error
)

// harden runs the prelude in vm.
func harden(vm *goja.Runtime) error {
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
	if _, err := vm.RunProgram(preludePrg); err != nil {
		return fmt.Errorf("%w", err)
	}
	return nil
}
