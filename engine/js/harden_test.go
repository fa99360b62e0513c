package js

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/validator"
)

// Every cell here runs with the validator off (ParseOnly): the runtime alone must hold.

func TestHardeningBlocksEscapes(t *testing.T) {
	e, _ := newEngine(t, Config{})
	cases := []struct{ name, src string }{
		{"arrow constructor", `(() => 0).constructor("return 1")()`},
		{"async function constructor", `Object.getPrototypeOf(async function () {}).constructor`},
		{"generator function constructor", `Object.getPrototypeOf(function* () {}).constructor`},
		{"async arrow constructor", `(async () => 0).constructor`},
		{"array constructor chain", `[].constructor.constructor`},
		{"computed key", `const k = "constr" + "uctor"; [][k][k]("return 1")`},
		{"destructuring", `const { constructor: F } = () => 0; F("return 1")`},
		{"super.constructor", `class H { static m() { return super.constructor; } } H.m()("return 1")`},
		{"descriptor walk to Function", `Object.getOwnPropertyDescriptor(Object.getPrototypeOf(() => 0), "constructor").value("return 1")`},
		{"descriptor getter", `Object.getOwnPropertyDescriptor(Object.getPrototypeOf(() => 0), "constructor").get.call(() => 0)`},
		{"__proto__ accessor walk", `Object.getOwnPropertyDescriptor(Object.prototype, "__proto__").get.call(() => 0)`},
		{"__lookupGetter__", `({}).__lookupGetter__("__proto__")`},
		{"eval", `eval("1")`},
		{"Function", `Function("return 1")`},
		{"Reflect", `Reflect.get(() => 0, "constructor")`},
		{"Proxy", `new Proxy({}, {})`},
		{"globalThis", `globalThis.JSON`},
		{"global object via this", `this["ev" + "al"]("1")`},
		{"with", `with (() => 0) { constructor("return 1"); }`},
		{"Object.prototype write", `Object.prototype.x = 1`},
		{"Object.prototype toJSON", `Object.prototype.toJSON = () => "forged"`},
		{"defineProperty on Object.prototype", `Object.defineProperty(Object.prototype, "toJSON", { value: () => "forged" })`},
		{"Array.prototype.join", `Array.prototype.join = () => "forged"`},
		{"delete a built-in method", `delete Array.prototype.map`},
		{"re-parent Array.prototype", `Object.setPrototypeOf(Array.prototype, {})`},
		{"replace JSON", `JSON = { stringify: () => "forged" }`},
		{"replace JSON.stringify", `JSON.stringify = () => "forged"`},
		{"replace print", `print = () => 0`},
		{"replace the context handle", `context = "x"`},
		{"extend the context handle", `context.extra = 1`},
		{"Error.prototype.name", `Error.prototype.name = "forged"`},
		{"iterator prototype", `Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())).next = () => 0`},
		{"caller", `function f() { return f.caller; } f()`},
		{"arguments.callee", `(function () { return arguments.callee; })()`},
	}
	for _, c := range cases {
		r := run(t, e, c.src)
		if r.Err == nil {
			t.Errorf("%s: ran without error: %s", c.name, c.src)
			continue
		}
		if k := fault.KindOf(r.Err); k != fault.Code {
			t.Errorf("%s: error kind %q, want code: %v", c.name, k, r.Err)
		}
	}
	// None of it leaked into later cells.
	r := mustRun(t, e, `print(({}).x, ({}).toJSON, [1, 2].join("-"), JSON.stringify({ a: 1 }), Error.prototype.name, typeof context.extra)`)
	if want := "undefined undefined 1-2 {\"a\":1} Error undefined\n"; r.Stdout != want {
		t.Errorf("after the attempts: %q, want %q", r.Stdout, want)
	}
}

func TestIntrinsicsFrozen(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := mustRun(t, e, `
const roots = { Object, Array, String, Number, Boolean, Symbol, Error, TypeError, RangeError,
  SyntaxError, ReferenceError, EvalError, URIError, AggregateError, Map, Set, WeakMap, WeakSet,
  Promise, RegExp, Date, Math, JSON, ArrayBuffer, DataView, BigInt, Int8Array, Uint8Array,
  Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array,
  Float64Array, BigInt64Array, BigUint64Array, print, console, context, peek };
const iter = Object.getPrototypeOf([][Symbol.iterator]());
const hidden = { iter, IteratorPrototype: Object.getPrototypeOf(iter),
  TypedArray: Object.getPrototypeOf(Int8Array), TypedArrayPrototype: Object.getPrototypeOf(Int8Array).prototype,
  Generator: Object.getPrototypeOf(function* () {}), GeneratorPrototype: Object.getPrototypeOf(Object.getPrototypeOf((function* () {})())),
  AsyncFunction: Object.getPrototypeOf(async function () {}),
  MapIterator: Object.getPrototypeOf(new Map().keys()), SetIterator: Object.getPrototypeOf(new Set().keys()),
  StringIterator: Object.getPrototypeOf(""[Symbol.iterator]()),
  RegExpStringIterator: Object.getPrototypeOf(/a/g[Symbol.matchAll]("a")) };
const thawed = [];
for (const [name, v] of Object.entries({ ...roots, ...hidden })) {
  if (!Object.isFrozen(v)) thawed.push(name);
  if (v.prototype !== undefined && !Object.isFrozen(v.prototype)) thawed.push(name + ".prototype");
}
print(thawed.join(",") || "all frozen");
`)
	if r.Stdout != "all frozen\n" {
		t.Errorf("not frozen: %s", r.Stdout)
	}
}

// TestOverrideTaming: freezing prototypes must not break assignments ordinary code makes on its
// own objects (the "override mistake").
func TestOverrideTaming(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := mustRun(t, e, `
class ValidationError extends Error {
  constructor(m) { super(m); this.name = "ValidationError"; }
}
const err = new ValidationError("bad");
const o = {};
o.toString = () => "custom";
function Legacy() {}
Legacy.prototype = { hello() { return "hi"; } };
Legacy.prototype.constructor = Legacy;
const f = () => 0;
f.toString = () => "fn";
print(String(err), err instanceof Error, String(o), new Legacy().constructor === Legacy, String(f), Error.prototype.name);
`)
	if want := "ValidationError: bad true custom true fn Error\n"; r.Stdout != want {
		t.Errorf("got %q, want %q", r.Stdout, want)
	}
}

func TestGlobalNamesReadOnly(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, src := range []string{`const print = 1`, `class JSON {}`, `let context = 1`, `var FINAL = 1`, `function llm_query() {}`, `let console = 1`} {
		r := run(t, e, src)
		if r.Err == nil || !strings.Contains(r.Err.Error(), "cannot declare") {
			t.Errorf("%s: %v, want a cannot-declare error", src, r.Err)
		}
	}
	// Locals may use the names freely.
	mustRun(t, e, `function f() { let count = 1; const print = 2; return count + print; } f()`)
}

// TestContextToolNamesShadow: a top-level variable may take a context tool's name, as models
// write (let count = 0, const text = ...); it hides the function for the session, and calling
// the function afterwards says why it fails.
func TestContextToolNamesShadow(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, c := range []struct{ src, want string }{
		{"let count = 0\nfor (const w of [\"a\", \"b\"]) count++\nprint(count)", "2\n"},
		{"const text = peek(context, 0, 5)\nprint(text.length)", "5\n"},
		{"var { length } = \"abc\"\nprint(length)", "3\n"},
		{"function chunk(xs, n) { return [xs.slice(0, n)] }\nprint(chunk([1, 2, 3], 2))", "[[1,2]]\n"},
		{"print(count + 1, text)", "3 2026-\n"}, // the variables persist
	} {
		if r := mustRun(t, e, c.src); r.Stdout != c.want {
			t.Errorf("%s: got %q, want %q", c.src, r.Stdout, c.want)
		}
	}
	if vars := strings.Join(e.Vars(), ","); vars != "chunk,count,length,text" {
		t.Errorf("Vars = %s, want the shadowing variables", vars)
	}
	r := run(t, e, `print(count(context, "ERROR"))`)
	if want := "TypeError"; r.Err == nil || !strings.Contains(r.Err.Error(), want) ||
		!strings.Contains(r.Err.Error(), "your top-level variable count hides the API function count()") {
		t.Errorf("calling a shadowed function: %v, want %q and the reason", r.Err, want)
	}
	// The others are untouched.
	if r := mustRun(t, e, `print(typeof peek, typeof search)`); r.Stdout != "function function\n" {
		t.Errorf("got %q", r.Stdout)
	}
}

// TestFreezeWalkComplete walks the hardened runtime the long way, in JS, through every own
// property descriptor (values, getters, setters; string and symbol keys) and prototype from the
// global object and the hidden intrinsics: everything it reaches must be frozen, and every
// function's length and name (which the Go walk skips) must be data properties holding
// primitives.
func TestFreezeWalkComplete(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := mustRun(t, e, `(function (G) {
const bad = [];
const seen = new Set();
const P = Object.getPrototypeOf;
// fresh instances of the hidden intrinsics: their prototypes are what the prelude froze
const stack = [[][Symbol.iterator](), new Map().entries(), new Set().values(), ""[Symbol.iterator](),
  /a/g[Symbol.matchAll]("a"), P((function* () {})()), function* () {}, async function () {}, async () => {},
  Promise.resolve()].map(P);
stack.push(P(Int8Array));
const shadowable = new Set(["length", "peek", "text", "search", "count", "tally", "chunk"]);
for (const k of Object.getOwnPropertyNames(G)) {
  const d = Object.getOwnPropertyDescriptor(G, k);
  if ((d.configurable || d.writable) && !shadowable.has(k)) bad.push("global " + k + " is not read-only");
  stack.push(d.value, d.get, d.set);
}
let n = 0;
while (stack.length > 0) {
  const o = stack.pop();
  if ((typeof o !== "object" || o === null) && typeof o !== "function") continue;
  if (seen.has(o)) continue;
  seen.add(o);
  n++;
  if (!Object.isFrozen(o)) bad.push("not frozen: " + String(o.name || Object.prototype.toString.call(o)));
  stack.push(P(o));
  const ds = Object.getOwnPropertyDescriptors(o);
  for (const k of [...Object.getOwnPropertyNames(ds), ...Object.getOwnPropertySymbols(ds)]) {
    const d = ds[k];
    if (typeof o === "function" && (k === "length" || k === "name") &&
        (!("value" in d) || (typeof d.value === "object" && d.value !== null) || typeof d.value === "function")) {
      bad.push("function " + String(o.name) + " has a " + k + " that reaches an object");
    }
    if ("value" in d) stack.push(d.value); else stack.push(d.get, d.set);
  }
}
print(n > 400 ? "walked" : "walked only " + n, bad.slice(0, 10).join("; ") || "all frozen");
})(this);
`)
	if r.Stdout != "walked all frozen\n" {
		t.Errorf("got %s", r.Stdout)
	}
}

// TestDeniedNamesAreNotGlobals: no name the validator denies is a global of the hardened
// runtime. The validator lets a cell shadow self, module, ... with a declaration of its own;
// a top-level declaration compiles to a global property (see compile), which must then be a
// new one, never a host object's.
func TestDeniedNamesAreNotGlobals(t *testing.T) {
	e, _ := newEngine(t, Config{})
	g := e.vm.GlobalObject()
	for name := range (validator.Policy{}).Effective().JS.DeniedGlobals {
		if g.Get(name) != nil {
			t.Errorf("%s is a global of the hardened runtime", name)
		}
	}
	mustRun(t, e, "const frames = new Map([[1, 2]]);\nconst module = { exports: 3 };\nfunction process(x) { return x + 1 }")
	r := mustRun(t, e, "print(frames.get(1), module.exports, process(1))")
	if r.Stdout != "2 3 2\n" {
		t.Errorf("got %q", r.Stdout)
	}
}
