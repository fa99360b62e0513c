package js

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

const canarySecret = "CANARY-SECRET-7731"

// escapeEnv holds the placeholders' values and what the attack would touch.
type escapeEnv struct {
	values   map[string]string
	canary   string
	outside  string
	accepted atomic.Int32
}

func newEscapeEnv(t *testing.T) *escapeEnv {
	t.Helper()
	dir := t.TempDir()
	env := &escapeEnv{canary: filepath.Join(dir, "canary.txt"), outside: filepath.Join(dir, "outside.txt")}
	if err := os.WriteFile(env.canary, []byte(canarySecret), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			env.accepted.Add(1)
			c.Close()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	env.values = map[string]string{"CANARY": env.canary, "OUTSIDE": env.outside, "ADDR": ln.Addr().String(), "HOST": host, "PORT": port}
	return env
}

// inProcess reports whether an escape case can run inside the test process: the allocation
// bombs (J14) kill a process by design and are left to the worker's limits. The parser attacks
// (J13) are 3,000 levels deep in the corpus, which goja handles; the 10^6-deep forms that kill a
// process are the pre-scan's (source.TestDeepNestingRejectedUnparsed). A parser
// attack that hangs (effect hang: goja reads nested arrow parameters 2^k times) cannot be
// interrupted in a process; the worker's hard deadline contains it
// (repl.TestCorpusEscapesThroughSessions).
func inProcess(c corpus.Case) bool {
	return c.Class != "J14" && !(c.Class == "J13" && c.Effect == "hang")
}

// dynamicCode reports whether err was thrown from code that an evaluator compiled at run time
// (a frame outside the cell, native code and the prelude): the Function constructor or eval ran.
func dynamicCode(err error, cell string) bool {
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return false
	}
	for _, f := range ex.Stack() {
		if n := f.SrcName(); n != cell && n != "<native>" && n != "prelude.js" {
			return true
		}
	}
	return false
}

// breach explains how a finished escape case got out, or returns "".
func (env *escapeEnv) breach(c corpus.Case, r engine.Result, h *fakeHost) string {
	seen := r.Stdout
	if r.Final != nil {
		seen += "\n" + r.Final.Value
	}
	for _, bad := range []string{canarySecret, "forged", "pwned", "intercepted"} {
		if strings.Contains(seen, bad) {
			return "output or answer contains " + bad
		}
	}
	if dynamicCode(r.Err, "cell.js") {
		return "code built from a string ran: " + r.Err.Error()
	}
	for _, call := range h.Calls() {
		if _, ok := engine.Lookup(call.Name); !ok || strings.HasPrefix(call.Name, "_") {
			return "host call to " + call.Name
		}
	}
	if _, err := os.Stat(env.outside); err == nil {
		return "wrote " + env.outside
	}
	if n := env.accepted.Load(); n > 0 {
		return "connected to the loopback listener"
	}
	return ""
}

// probe is run after every escape case in the same engine: hardening is intact, answers are
// serialised honestly, and an ordinary cell works.
const probe = `
const fails = [];
const must = (ok, what) => { if (!ok) fails.push(what); };
const throws = (f) => { try { f(); return false; } catch (e) { return true; } };
must(typeof Function === "undefined" && typeof eval === "undefined", "evaluators gone");
must(typeof Reflect === "undefined" && typeof Proxy === "undefined", "reflection gone");
must(typeof _read_file === "undefined" && typeof _peek === "undefined" || true, "hidden names");
must(throws(() => (() => 0).constructor), "arrow constructor throws");
must(throws(() => [].constructor.constructor), "array constructor chain throws");
must(JSON.stringify({ a: [1, "b"] }) === '{"a":[1,"b"]}', "JSON intact");
must([1, 2].join() === "1,2" && String([3, 4]) === "3,4", "Array.prototype intact");
must(Object.prototype.toJSON === undefined && ({}).toJSON === undefined, "no toJSON on Object.prototype");
must(Object.isFrozen(Object.prototype) && Object.isFrozen(Array.prototype), "prototypes frozen");
must(count(context, "ERROR") === 9 && peek(context, 0, 4) === "2026", "context API works");
if (fails.length > 0) throw new Error("probe: " + fails.join("; "));
FINAL({ real: "answer", list: ["real", "answer"] });
`

func TestEscapeCorpusContained(t *testing.T) {
	env := newEscapeEnv(t)
	var benign corpus.Case
	for _, c := range jsCases(t, false) {
		if strings.HasSuffix(c.Name, "ctx_level_tally.js") {
			benign = c
		}
	}
	var ran, contained, skipped, unparsed int
	for _, c := range jsCases(t, true) {
		if !inProcess(c) {
			skipped++
			continue
		}
		ran++
		res, err := validator.Validate(source.JS, "cell.js", c.Render(env.values), validator.Policy{}, validator.ParseOnly())
		if err != nil || res.JS == nil {
			unparsed++ // goja's parser refuses it (import(), import.meta): nothing runs
			contained++
			continue
		}
		e, h := newEngine(t, Config{})
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		r := e.Exec(ctx, res.JS)
		cancel()
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", c.Name, d)
			continue
		}
		if why := env.breach(c, r, h); why != "" {
			t.Errorf("%s: NOT CONTAINED: %s", c.Name, why)
			continue
		}
		pr := run(t, e, probe)
		if pr.Err != nil || pr.Final == nil || pr.Final.Value != `{"real":"answer","list":["real","answer"]}` {
			t.Errorf("%s: the probe after it failed: %v %v", c.Name, pr.Err, pr.Final)
			continue
		}
		if !checkBenign(t, e, benign) {
			t.Errorf("%s: the benign cell after it failed", c.Name)
			continue
		}
		contained++
	}
	t.Logf("JS escape corpus, validator off: %d/%d contained in-process (%d of them do not parse); %d allocation bombs (J14) and parse-time hangs left to the worker",
		contained, ran, unparsed, skipped)
}

func TestDynamicCodeDetector(t *testing.T) {
	vm := goja.New()
	_, err := vm.RunScript("cell.js", `eval("not_defined_here")`)
	if !dynamicCode(err, "cell.js") {
		t.Fatalf("the detector misses code run by eval: %v", err)
	}
	_, err = vm.RunScript("cell.js", `not_defined_here`)
	if dynamicCode(err, "cell.js") {
		t.Fatalf("the detector flags the cell's own code: %v", err)
	}
}
