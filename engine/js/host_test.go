package js

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// TestArgumentsConvertedOnce: a path whose toString changes its answer between calls reaches
// the host as one stable string, read once.
func TestArgumentsConvertedOnce(t *testing.T) {
	e, h := newEngine(t, Config{})
	h.override = func(name string, args []any) (any, error, bool) {
		switch name {
		case "read_file":
			return "contents of " + args[0].(string), nil, true
		case "llm_query_batched":
			return []any{"r1", "r2"}, nil, true
		}
		return nil, nil, false
	}
	r := mustRun(t, e, `
let calls = 0;
const path = new String("unused");
Object.defineProperty(path, "toString", {value: () => { calls++; return calls % 2 === 1 ? "notes.txt" : "../../etc/passwd"; }});
print(read_file(path), calls);
const b = new String("unused");
Object.defineProperty(b, "toString", {value: () => { calls++; return "b" + calls; }});
const prompts = ["a", b];
llm_query_batched(prompts);
print(calls);
`)
	if r.Stdout != "contents of notes.txt 1\n2\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	calls := h.Calls()
	if len(calls) != 2 || !reflect.DeepEqual(calls[0].Args, []any{"notes.txt"}) {
		t.Fatalf("host calls %v, want read_file(notes.txt) once", calls)
	}
	if got := calls[1].Args[0]; !reflect.DeepEqual(got, []string{"a", "b2"}) {
		t.Errorf("llm_query_batched got %#v", got)
	}
}

func TestArgumentChecks(t *testing.T) {
	e, h := newEngine(t, Config{})
	for _, src := range []string{
		`peek(context, 0)`,                                  // too few
		`search(context, "x", "i")`,                         // a string for from
		`search(context, "x", 0, 1)`,                        // too many
		`peek(42, 0, 10)`,                                   // not a handle or a name
		`peek({}, 0, 10)`,                                   // not the handle
		`peek(context, "10", 5)`,                            // string for int
		`peek(context, 1.5, 5)`,                             // not an integer
		`peek(context, NaN, 5)`,                             // not an integer
		`count(context, undefined)`,                         // missing string
		`count(context, Symbol("x"))`,                       // symbol
		`llm_query_batched("one prompt")`,                   // not an array
		`llm_query_batched([1, undefined])`,                 // element not a string
		`llm_query("q", "cheap")`,                           // a model name instead of options
		`llm_query("q", {modle: "cheap"})`,                  // an unknown option
		`llm_query("q", {model: 7})`,                        // a model that is not a string
		`llm_query("q", {}, {})`,                            // two option objects
		`llm_query("q", ["cheap"])`,                         // an array
		`llm_query({prompt: "q"})`,                          // an object, whose text would be [object Object]
		`llm_query(["q"])`,                                  // an array, whose text would be its elements joined
		`llm_query_batched([{role: "user", content: "q"}])`, // objects as prompts
		`write_file("out.json", {a: 1})`,                    // an object as the content
		`read_file({toString() { return "notes.txt" }})`,    // an object with its own text
	} {
		r := run(t, e, src)
		if r.Err == nil || !strings.Contains(r.Err.Error(), "TypeError") {
			t.Errorf("%s: %v, want a TypeError", src, r.Err)
		}
	}
	if n := len(h.Calls()); n != 0 {
		t.Errorf("bad arguments reached the host %d times: %v", n, h.Calls())
	}
	for src, want := range map[string]string{
		`llm_query_batched([42, null])`:   "prompts must be an array of strings, but prompts[1] is null",
		`llm_query({prompt: "q"})`:        "prompt must be a string (JSON.stringify(value) gives an object's text), got an object",
		`llm_query_batched(["a", ["b"]])`: "prompts must be an array of strings, but prompts[1] is an array",
		`llm_query(context)`:              "prompt must be a string (text(ctx) or peek(ctx, offset, length) gives a context's text), got an object",
		`llm_query(print)`:                "prompt must be a string, got a function",
	} {
		if r := run(t, e, src); r.Err == nil || !strings.Contains(r.Err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, r.Err, want)
		}
	}
	h.override = func(name string, args []any) (any, error, bool) { return "ok", nil, name == "llm_query" }
	mustRun(t, e, `llm_query(new Number(7)); llm_query(new Boolean(true)); llm_query(new Date(0))`)
	if got := h.Calls(); len(got) != 3 || got[0].Args[0] != "7" || got[1].Args[0] != "true" || !strings.HasPrefix(got[2].Args[0].(string), "Thu Jan 01 1970") {
		t.Errorf("boxed values and a date reached the host as %v", got)
	}
	mustRun(t, e, `search(context, /error/i)`)
	if got := h.Calls()[3].Args[1]; got != "(?i)error" {
		t.Errorf("a RegExp argument became %q, want (?i)error", got)
	}
}

// TestQueryOptions: llm_query(prompt, {model}) reaches the host as {"model": name}; no options,
// undefined and null reach it as none.
func TestQueryOptions(t *testing.T) {
	e, h := newEngine(t, Config{})
	h.override = func(name string, args []any) (any, error, bool) {
		if name == "llm_query_batched" {
			return []any{"r"}, nil, true
		}
		return "ok", nil, true
	}
	mustRun(t, e, `llm_query("a", {model: "cheap"}); llm_query("b"); llm_query("c", undefined); llm_query_batched(["d"], {model: "big"})`)
	want := [][]any{{"a", map[string]any{"model": "cheap"}}, {"b"}, {"c", nil}, {[]string{"d"}, map[string]any{"model": "big"}}}
	calls := h.Calls()
	if len(calls) != len(want) {
		t.Fatalf("host calls %v", calls)
	}
	for i, c := range calls {
		if !reflect.DeepEqual(c.Args, want[i]) {
			t.Errorf("call %d: args %#v, want %#v", i, c.Args, want[i])
		}
	}
	r := run(t, e, `llm_query("q", {modle: "cheap"})`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), `opts has no option "modle"; the options are model, e.g. llm_query(prompt, {model: "name"})`) {
		t.Errorf("unknown option: %v", r.Err)
	}
}

func TestHostPanicBecomesException(t *testing.T) {
	e, h := newEngine(t, Config{})
	h.override = func(name string, args []any) (any, error, bool) {
		if name == "llm_query" {
			panic("host bug")
		}
		return nil, nil, false
	}
	r := mustRun(t, e, `try { llm_query("hi"); } catch (e) { print("caught", e.message); }`)
	if !strings.Contains(r.Stdout, "caught internal error in llm_query: host bug") {
		t.Errorf("stdout %q", r.Stdout)
	}
	r = run(t, e, `llm_query("hi")`)
	if r.Err == nil {
		t.Fatal("an uncaught host panic did not fail the cell")
	}
	mustRun(t, e, `print(length(context))`)
}

func TestHostErrors(t *testing.T) {
	e, h := newEngine(t, Config{})
	h.override = func(name string, args []any) (any, error, bool) {
		switch name {
		case "read_file":
			return nil, fault.New(fault.Denied, "read_file: %s is outside the allowed roots", args[0]), true
		case "list_dir":
			return struct{ Secret string }{"x"}, nil, true
		case "file_info":
			return map[string]any{"name": "a", "size": int64(3), "tags": []any{"x", map[string]any{"k": true}}}, nil, true
		}
		return nil, nil, false
	}
	r := mustRun(t, e, `try { read_file("/etc/shadow"); } catch (e) { print(e.message, e.kind, e instanceof Error); }`)
	if want := "read_file: /etc/shadow is outside the allowed roots denied true\n"; r.Stdout != want {
		t.Errorf("got %q, want %q", r.Stdout, want)
	}
	r = run(t, e, `read_file("/etc/shadow")`)
	if !errors.Is(r.Err, fault.Denied) || !strings.Contains(r.Err.Error(), "outside the allowed roots") {
		t.Errorf("uncaught host error: %v (kind %q), want kind denied", r.Err, fault.KindOf(r.Err))
	}
	r = run(t, e, `list_dir(".")`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "unsupported") {
		t.Errorf("a Go struct from the host: %v, want an unsupported-type error", r.Err)
	}
	r = mustRun(t, e, `const fi = file_info("a"); fi.tags[1].k = "changed"; print(fi, Object.getPrototypeOf(fi) === Object.prototype)`)
	if want := `{"name":"a","size":3,"tags":["x",{"k":"changed"}]} true` + "\n"; r.Stdout != want {
		t.Errorf("got %q, want %q", r.Stdout, want)
	}
}

func TestFinal(t *testing.T) {
	e, _ := newEngine(t, Config{Limits: engine.Limits{FinalChars: 1000}})
	cases := []struct{ src, want string }{
		{`FINAL("plain text")`, `plain text`},
		{`FINAL(42)`, `42`},
		{`FINAL(0.1 + 0.2)`, `0.30000000000000004`},
		{`FINAL([1, "a", null, undefined, () => 1, NaN, -0])`, `[1,"a",null,null,null,null,0]`},
		{`FINAL({ b: 1, a: [true, false], u: undefined, f() {} })`, `{"b":1,"a":[true,false]}`},
		{`FINAL({ toJSON() { return "forged"; }, real: 1 })`, `{"real":1}`},
		{`FINAL({ __proto__: { toJSON() { return "forged"; } }, real: 1 })`, `{"real":1}`},
		{`const a = ["real"]; Object.setPrototypeOf(a, { toJSON() { return "forged"; } }); FINAL(a)`, `["real"]`},
		{`FINAL({ d: new Date(Date.UTC(2026, 10, 1)), n: 10n ** 20n })`, `{"d":"2026-11-01T00:00:00.000Z","n":100000000000000000000}`},
		{`FINAL(new Map([["x", 1], ["y", [2]]]))`, `{"x":1,"y":[2]}`},
		{`FINAL(new Map([[1, "one"]]))`, `[[1,"one"]]`},
		{`FINAL(new Set(["a", "b"]))`, `["a","b"]`},
		{`FINAL({ e: new RangeError("r") })`, `{"e":"RangeError: r"}`},
		{`FINAL("s\"q\n\u2028<>&")`, "s\"q\n\u2028<>&"},
		{`FINAL({ k: "s\"q\n<>&\u0001" })`, `{"k":"s\"q\n<>&\u0001"}`},
		{`let n = 0; FINAL({ get a() { return ++n; } }); print(n)`, `{"a":1}`},
		{`FINAL(1); FINAL(2)`, `2`},
		{`const answer = { x: 1 }; FINAL_VAR("answer")`, `{"x":1}`},
		{`FINAL(new Uint8Array([1, 2]))`, `[1,2]`},
	}
	for _, c := range cases {
		r := run(t, e, c.src)
		if r.Err != nil || r.Final == nil || r.Final.Value != c.want {
			t.Errorf("%s: final %v err %v, want %s", c.src, r.Final, r.Err, c.want)
		}
	}
	// A string answer is recorded whole: its size is the caller's one check (CheckFinal).
	if r := run(t, e, `FINAL("x".repeat(2000))`); r.Err != nil || r.Final == nil || len(r.Final.Value) != 2000 {
		t.Errorf("a long string answer: final %v, err %v", r.Final, r.Err)
	}
	r := run(t, e, `FINAL({ rows: [..."x".repeat(2000)] })`)
	if want := "the answer (FINAL or FINAL_VAR) is more than 1,000 characters, over the cap of 1,000"; r.Err == nil || !strings.Contains(r.Err.Error(), want) || !errors.Is(r.Err, fault.Limit) {
		t.Errorf("an answer serialised past the cap: %v, want a limit error containing %q", r.Err, want)
	}
	for _, src := range []string{
		`const o = {}; o.self = o; FINAL(o)`,
		`FINAL([..."x".repeat(2000)])`, // 8,001 characters of JSON: the serialisation stops early
		`FINAL(new Array(1e6))`,
		`FINAL(undefined)`,
		`FINAL(() => 1)`,
		`FINAL({ get a() { throw new Error("getter"); } })`,
		`FINAL_VAR("nope")`,
		`FINAL_VAR("print")`,
		`FINAL()`,
	} {
		r := run(t, e, src)
		if r.Err == nil || r.Final != nil {
			t.Errorf("%s: final %v err %v, want an error and no answer", src, r.Final, r.Err)
		}
	}
}

func TestPrintFormat(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := mustRun(t, e, `
print("s", 1, 1.5, -0, 1e21, NaN, 10n, true, null, undefined, Symbol("y"));
console.log([1, "a", [null]], { a: { b: 2 } }, () => 0, function named() {}, class K {});
console.error(new TypeError("t"), new Date(0), new Map([["k", 1]]), new Set([1]));
const cyc = [1]; cyc.push(cyc); print(cyc);
print(context);
print();
`)
	want := `s 1 1.5 0 1e+21 NaN 10 true null undefined Symbol(y)
[1,"a",[null]] {"a":{"b":2}} [Function (anonymous)] [Function: named] [Function: K]
TypeError: t 1970-01-01T00:00:00.000Z Map(1) {"k" => 1} Set(1) {1}
[1,"[Circular]"]
` + handleHint + "\n\n"
	if r.Stdout != want {
		t.Errorf("got\n%s\nwant\n%s", r.Stdout, want)
	}
}

func TestOutputCap(t *testing.T) {
	e, _ := newEngine(t, Config{Limits: engine.Limits{OutputChars: 10}})
	r := mustRun(t, e, `print("é".repeat(25)); print("more")`)
	if !r.Truncated || !strings.HasPrefix(r.Stdout, strings.Repeat("é", 10)+"\n[output truncated: 31 characters in total, the first 10 shown]") {
		t.Errorf("got %q truncated=%v", r.Stdout, r.Truncated)
	}
	r = mustRun(t, e, `print("x".repeat(5e6), [1, 2])`)
	if !strings.HasSuffix(r.Stdout, "[output truncated: 5000007 characters in total, the first 10 shown]\n") {
		t.Errorf("a long string: %q", r.Stdout)
	}
	r = mustRun(t, e, `print("short")`)
	if r.Truncated || r.Stdout != "short\n" {
		t.Errorf("got %q truncated=%v", r.Stdout, r.Truncated)
	}
}

func TestStatePersistsAcrossCells(t *testing.T) {
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `let a = 1; const b = { n: 2 }; var c = 3; function f() { return a + b.n + c; } class K { v() { return 4; } }`)
	r := mustRun(t, e, `print(f(), new K().v())`)
	if r.Stdout != "6 4\n" {
		t.Errorf("cell 2 printed %q", r.Stdout)
	}
	// A cell that fails after declaring can be run again; a later cell may redeclare.
	src := `const hits = search(context, "ERROR"); let total = hits.length; oops();`
	for i := 0; i < 2; i++ {
		if r := run(t, e, src); r.Err == nil || !strings.Contains(r.Err.Error(), "oops is not defined") {
			t.Fatalf("run %d: %v", i, r.Err)
		}
	}
	r = mustRun(t, e, `const hits = 5; let total; print(hits, total)`)
	if r.Stdout != "5 undefined\n" {
		t.Errorf("redeclaration printed %q", r.Stdout)
	}
	if got, want := e.Vars(), []string{"K", "a", "b", "c", "f", "hits", "total"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Vars() = %v, want %v", got, want)
	}
	// Block-scoped declarations stay block-scoped.
	r = mustRun(t, e, `{ let inner = 1; } for (let i = 0; i < 1; i++) {} print(typeof inner, typeof i)`)
	if r.Stdout != "undefined undefined\n" {
		t.Errorf("block scope: %q", r.Stdout)
	}
}

func TestErrorPositions(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := run(t, e, "const x = 1;\nnull.y;")
	var ce *fault.Error
	if !errors.As(r.Err, &ce) || ce.Pos.Filename != "cell.js" || ce.Pos.Line != 2 || !strings.Contains(ce.Msg, "TypeError") {
		t.Errorf("got %#v", r.Err)
	}
	r = run(t, e, "throw { custom: 1 }")
	if r.Err == nil || !strings.Contains(r.Err.Error(), `Uncaught {"custom":1}`) {
		t.Errorf("got %v", r.Err)
	}
	r = run(t, e, `async function f() { throw new Error("later"); } f();`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "Uncaught (in promise) Error: later") {
		t.Errorf("unhandled rejection: %v", r.Err)
	}
	r = run(t, e, `const p = Promise.reject(new Error("x")); p.catch(() => print("handled"));`)
	if r.Err != nil || r.Stdout != "handled\n" {
		t.Errorf("handled rejection: %v %q", r.Err, r.Stdout)
	}
}
