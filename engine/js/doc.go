// Package js is rlm's JavaScript engine: a goja runtime, hardened so that it holds with the
// validator switched off, running one validated cell at a time with its state kept between
// cells. It runs in-process; in production it lives inside the confined worker process, whose
// rlimits and hard kill are the backstop for everything listed under "Limits" as uncovered.
//
// # Cells
//
// Exec compiles the AST of the unit package source parsed and the validator passed
// (goja.CompileAST, strict mode); model source is never parsed again. Top-level let, const and
// class declarations are compiled as var declarations (REPL semantics): a later cell, or the same cell run again after it failed, may declare the same
// name, and no binding is left in its temporal dead zone. The costs: a top-level const can be
// reassigned, and a top-level binding read before its declaration is undefined. Blocks and
// functions keep their normal scoping. A top-level declaration of a built-in's name, or of
// context, ctxN, console, print, FINAL, llm_query or a file tool, is refused before the cell runs,
// with a message naming the clash. The context tools' names (length, peek, text, search, count,
// tally, chunk) are what models call their own data (let count = 0): a top-level declaration of one
// hides the function for the session, and a later call of it fails with a message that says so.
// Promise jobs run before Exec returns; a rejection nobody handled by then fails the cell.
// Four rewrites of the cell's AST, each keeping what the code computes, take goja off its slow
// paths: an innermost for…of loop runs over a plain array as an indexed loop (about 2.5 times
// faster than goja's iterator protocol) and over anything else as for…of (forof.go); an array
// pattern in a block or function (const [, , p] = row.split(","), ([k, v]) => …, a for…of
// head) reads a plain array by index and anything else through the protocol (destructure.go,
// about 15 times faster for eight fields); and text appended with += or x = x + … grows a buffer
// by doubling, where goja copies the whole string at every piece (concat.go: a context read in
// 16,000-character peeks was quadratic); and X.split(/\s+/) cuts a string held in UTF-8 in Go
// (splitws.go, about twice as fast). The globals __rlm_plainArray, __rlm_take, __rlm_rest,
// __rlm_cat, __rlm_splitWS and __rlm_splitWSOf they call are frozen like every other; a cell that
// names one runs as written.
// JSON.parse reads the common case (no reviver, text held in UTF-8) in Go, about three times
// faster than goja's token stream, and hands everything else, every error included, to goja's
// own (jsonparse.go).
//
// # Hardening prelude
//
// It runs once per runtime, before any model code (harden.go):
//   - eval, Function, Reflect, Proxy, globalThis (and WeakRef, FinalizationRegistry,
//     SharedArrayBuffer, Atomics, WebAssembly, goja's GoError where present) are deleted from the
//     global object. Top-level `this` still is the global object: it holds nothing more than the
//     globals themselves.
//   - The constructor property of Function.prototype and of the AsyncFunction and
//     GeneratorFunction prototypes is an accessor whose getter throws, so (() => 0).constructor,
//     [].constructor.constructor, computed keys, destructuring, with, super.constructor and
//     descriptor walks all end in a TypeError. goja has no async generators.
//   - Object.prototype.__proto__ and __defineGetter__/__defineSetter__/__lookupGetter__/
//     __lookupSetter__ are deleted (the __proto__ getter reaches Function.prototype from strings).
//   - Every intrinsic reachable from the global object and from the hidden intrinsics (iterator,
//     generator, async function, typed array prototypes) is frozen, through properties,
//     accessors and prototypes; the API functions, console and the context handle too. This
//     walk, and the next step, run in Go (freezeIntrinsics) on goja's own Object functions.
//   - Every global binding is made read-only: no cell can replace JSON, print or Map. The
//     context tools' bindings stay writable (see Cells); their function objects are frozen.
//   - Override taming: a few data properties that ordinary code assigns on its own objects
//     (Error name/message/toString/constructor, Object.prototype's constructor/toString/valueOf/
//     ..., Function and Array toString) become accessors whose setter defines an own property
//     on the receiver, so `this.name = "MyError"` works although Error.prototype is frozen.
//
// # Host boundary
//
// The globals are generated from the session's registry (Config.API: engine.API and the
// session's own tools, rlm.Tool). Host functions are Go closures: each argument is
// converted to Go exactly once before anything checks it (a toString that changes its answer
// gets one call), strictly by the parameter's type (a context handle by identity, or a context's
// name as a string, "ctx1"; integers
// from numbers only, strings by one ToString, a RegExp passed as a regex as its source with
// (?ims) flags); results are copied into fresh JS objects from plain data only (nil, bool,
// numbers, string, []any, []string, map[string]any); a Go panic becomes a JS exception; a host
// error becomes an Error with the host's message and a `kind` property, and fails the cell with
// the host's kind when uncaught. The `context` handle (and ctx0, the same object) passes to the
// host as ContextArg, ctx1, ctx2, … (Config.Contexts of them) as their names. search returns an
// array of its page's matches that also has total, truncated and next; print adds a note to one
// that does not hold every match ("200 of 1,513 matches shown ...").
//
// An answer's size is checked by the caller (engine.CheckFinal, in the REPL's runner),
// once for both languages; the JS serialisation of a non-string answer stops past four bytes a
// character of Limits.FinalChars, so that its memory stays bounded, with the same message.
//
// FINAL and print never call JSON.stringify, toJSON or toString: the value is walked in Go
// (format.go). FINAL keeps a string as it is and writes anything else as JSON, with the
// differences listed on printer; the last FINAL or FINAL_VAR of a cell wins. print joins its
// arguments with one space: strings as they are, numbers as JS writes them, Errors as
// "Name: message", Dates in ISO form, functions as [Function: name], Map and Set as
// Map(n) {k => v} and Set(n) {v}, other objects and arrays as JSON ("[Circular]" for cycles).
// Output is capped in characters, with a marker stating the true length.
//
// # Limits
//
//   - Call depth: SetMaxCallStackSize (default 10,000); overflow fails the cell with a
//     RangeError-like code error. Runaway recursion through native built-ins ([n].map(f),
//     sort callbacks) is slow to unwind at that depth (seconds).
//   - Cancellation: the cell's context interrupts the runtime (try/finally cannot swallow it,
//     promise jobs included); the interrupt is cleared before the next cell.
//   - Backtracking regexps: goja falls back to regexp2 for lookarounds, backreferences and
//     sticky matches from a nonzero lastIndex, and regexp2 ignores Interrupt. Its process-wide
//     regexp2.DefaultMatchTimeout is set by the first New (default 1 s per match); a timed-out
//     match reads as no match, which goja gives no way to tell apart.
//   - Heap: a watchdog samples the live Go heap every 5 ms and interrupts the cell with a limit
//     error above Config.HeapLimit (default 256 MB; the process's heap, confirmed by a forced
//     collection when only the total is high).
//   - Not interruptible: one native call that allocates or loops a lot (new Array(3e7).fill(1),
//     "x".repeat(2**44), JSON.parse of a string nested 1e6 deep, JSON.stringify of an array
//     nested 1e5 deep: about 20 s, its cycle check is quadratic) runs to completion or kills the
//     process; the validator rejects the constant forms, and the worker's memory rlimit and hard
//     deadline cover the rest.
package js
