package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlm-sandbox/rlm/audit"
	"github.com/rlm-sandbox/rlm/evalset"
	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/trace"
)

// fakeKey is the API key the scripts use; tests check it never reaches a record.
const fakeKey = "sk-proj-FAKEtestKEY0123456789abcdefghijklmnopqrstuv"

var (
	fakeMu      sync.Mutex
	fakeServers = map[*testscript.TestScript]map[string]*llmtest.Server{} // by -as NAME; "" is the default one
)

// fakeLLM starts a fake model server over real HTTP for the rest of the script. The default
// one (no -as) points RLM_BASE_URL, RLM_API_KEY and RLM_MODEL at it (and RLM_PROVIDER, with
// -anthropic); a named one only sets NAME_URL, for a [backends.NAME] table (see envsubst).
//
//	fakellm [-anthropic] [-as NAME] SCRIPT.json   replies from a script file (llmtest's format)
//	fakellm eval LANG     root calls answered with evalset.Solution for the task asked about
//	fakellm requests [NAME]  prints one line per request received: model, agent role, last user message
//	fakellm system [NAME]    prints the system prompt of the first request
//	fakellm wait N        waits until the server has received N requests
//	fakellm keys [NAME]   prints "requests=N with_key=K": how many requests the server received,
//	                      and how many carried the script's key (fakeKey) in Authorization
func fakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fakellm [-anthropic] [-as NAME] SCRIPT | fakellm eval LANG | fakellm requests|system|keys [NAME] | fakellm wait N")
	}
	if args[0] == "requests" {
		name := ""
		if len(args) > 1 {
			name = args[1]
		}
		printRequests(ts, name)
		return
	}
	if args[0] == "keys" {
		printKeys(ts, args[1:])
		return
	}
	if args[0] == "system" {
		name := ""
		if len(args) > 1 {
			name = args[1]
		}
		printSystem(ts, name)
		return
	}
	if args[0] == "wait" && len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		deadline := time.Now().Add(30 * time.Second)
		for !cellRunning(ts, n) {
			if time.Now().After(deadline) {
				ts.Fatalf("fakellm wait: fewer than %d requests after 30 s", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return
	}
	anthropic, name := false, ""
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-anthropic":
			anthropic, args = true, args[1:]
		case args[0] == "-as" && len(args) > 2:
			name, args = args[1], args[2:]
		default:
			ts.Fatalf("fakellm: unknown option %q", args[0])
		}
	}
	srv := llmtest.New()
	if anthropic {
		srv = llmtest.NewAnthropic()
	}
	switch {
	case args[0] == "eval" && len(args) == 2:
		srv.SetHandler(evalHandler(args[1]))
	default:
		sc, err := llmtest.Load(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Check(srv.Push(sc...))
	}
	fakeMu.Lock()
	if fakeServers[ts] == nil {
		fakeServers[ts] = map[string]*llmtest.Server{}
	}
	if old := fakeServers[ts][name]; old != nil {
		old.Close()
	}
	fakeServers[ts][name] = srv
	fakeMu.Unlock()
	ts.Defer(func() {
		srv.Close()
		fakeMu.Lock()
		if fakeServers[ts][name] == srv {
			delete(fakeServers[ts], name)
		}
		if len(fakeServers[ts]) == 0 {
			delete(fakeServers, ts)
		}
		fakeMu.Unlock()
	})
	if name != "" {
		ts.Setenv(name+"_URL", srv.URL())
		return
	}
	ts.Setenv("RLM_BASE_URL", srv.URL())
	ts.Setenv("RLM_API_KEY", fakeKey)
	if anthropic {
		ts.Setenv("RLM_PROVIDER", "anthropic")
	}
	if ts.Getenv("RLM_MODEL") == "" {
		ts.Setenv("RLM_MODEL", "fake-root")
	}
}

// fakeServer is the script's server of that name ("" = the default one), or nil.
func fakeServer(ts *testscript.TestScript, name string) *llmtest.Server {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	return fakeServers[ts][name]
}

func printRequests(ts *testscript.TestScript, name string) {
	srv := fakeServer(ts, name)
	if srv == nil {
		ts.Fatalf("fakellm requests: no server %q started", name)
	}
	for _, r := range srv.Requests() {
		last := strings.ReplaceAll(r.LastUser(), "\n", " ")
		if len(last) > 400 {
			last = last[:400]
		}
		var sampling []string
		for _, f := range []string{"temperature", "top_p", "seed", "reasoning_effort", "max_tokens", "max_completion_tokens", "top_k"} {
			if v, ok := r.Fields[f]; ok {
				sampling = append(sampling, f+"="+string(v))
			}
		}
		fmt.Fprintf(ts.Stdout(), "%d %s messages=%d logprobs=%v last=%q sampling=%s\n", r.N, r.Model, len(r.Messages), r.Logprobs, last, strings.Join(sampling, ","))
	}
}

// printKeys prints how many requests the server received and how many carried fakeKey.
func printKeys(ts *testscript.TestScript, args []string) {
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	srv := fakeServer(ts, name)
	if srv == nil {
		ts.Fatalf("fakellm keys: no server %q started", name)
	}
	reqs, withKey := srv.Requests(), 0
	for _, r := range reqs {
		if r.Authorization == fakeKey {
			withKey++
		}
	}
	fmt.Fprintf(ts.Stdout(), "requests=%d with_key=%d\n", len(reqs), withKey)
}

// printSystem prints the system prompt of the first request the server received: its system
// message, or Anthropic's top-level system field.
func printSystem(ts *testscript.TestScript, name string) {
	srv := fakeServer(ts, name)
	if srv == nil || len(srv.Requests()) == 0 {
		ts.Fatalf("fakellm system: server %q received no request", name)
	}
	r := srv.Requests()[0]
	sys := r.System
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		sys = r.Messages[0].Content
	}
	fmt.Fprintln(ts.Stdout(), sys)
}

// envsubst IN OUT writes IN to OUT with $VAR and ${VAR} replaced by the script's variables, so
// a configuration file can name the URL of a server the script started.
func envsubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envsubst IN OUT")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o600))
}

var questionRE = regexp.MustCompile(`Question: (.*)`)

// evalHandler answers a root call with the solution of the evaluation task it asks about, and
// any other call (a sub-call) with "OK.".
func evalHandler(lang string) func(llmtest.RecordedRequest) llmtest.Reply {
	tasks := map[string]evalset.Task{}
	var mu sync.Mutex
	for _, spec := range evalset.Suite([]int64{10_000, 100_000, 1_000_000}) {
		t, err := evalset.Generate(discard{}, spec)
		if err == nil {
			tasks[t.Question] = t
		}
	}
	return func(r llmtest.RecordedRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range r.Messages {
			if q := questionRE.FindStringSubmatch(m.Content); q != nil {
				if t, ok := tasks[q[1]]; ok {
					return llmtest.Reply{Text: "```repl\n" + evalset.Solution(t, lang) + "\n```"}
				}
			}
		}
		return llmtest.Reply{Text: "OK."}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// auditCmd prints the newest task of $RLM_HOME/audit.db and its records, one line each, for
// the script's stdout checks:
//
//	audit task | calls | steps | tools
func auditCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: audit task|tasks|calls|models|steps|tools")
	}
	db, err := audit.Open(filepath.Join(ts.Getenv("RLM_HOME"), "audit.db"), audit.Options{})
	ts.Check(err)
	defer db.Close()
	ctx := context.Background()
	tasks, err := db.Tasks(ctx, 100)
	ts.Check(err)
	if len(tasks) == 0 {
		ts.Fatalf("audit: no task recorded")
	}
	t := tasks[0]
	w := ts.Stdout()
	switch args[0] {
	case "tasks":
		for _, t := range tasks {
			fmt.Fprintf(w, "task status=%s calls=%d question=%q\n", t.Status, t.Calls, t.Question)
		}
	case "models":
		// calls, tokens and cost per model and backend, from the api_calls table
		cs, err := db.Calls(ctx, t.ID)
		ts.Check(err)
		type sum struct {
			calls, tokens, unknown int
			usd                    float64
		}
		per := map[string]*sum{}
		var keys []string
		for _, c := range cs {
			k := c.Model + "@" + c.Backend
			if per[k] == nil {
				per[k] = &sum{}
				keys = append(keys, k)
			}
			p := per[k]
			p.calls++
			p.tokens += c.PromptTokens + c.CompletionTokens
			if c.CostUSD == nil {
				p.unknown++
			} else {
				p.usd += *c.CostUSD
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := per[k]
			fmt.Fprintf(w, "model %s calls=%d tokens=%d cost_usd=%.6f cost_unknown=%d\n", k, p.calls, p.tokens, p.usd, p.unknown)
		}
	case "task":
		fmt.Fprintf(w, "id=%s status=%s kind=%s calls=%d tokens=%d answer=%q cost_usd=%.6f cost_unknown=%d\nerror=%q\n",
			t.ID, t.Status, t.ErrorKind, t.Calls, t.Tokens, t.Answer, t.CostUSD, t.CostUnknown, t.ErrorMessage)
	case "calls":
		cs, err := db.Calls(ctx, t.ID)
		ts.Check(err)
		for _, c := range cs {
			cost := "unknown"
			if c.CostUSD != nil {
				cost = fmt.Sprintf("%.6f", *c.CostUSD)
			}
			fmt.Fprintf(w, "call agent=%s model=%s status=%s tokens=%d err=%q backend=%s cost=%s\n", c.Agent, c.Model, c.Status, c.PromptTokens+c.CompletionTokens, c.Error, c.Backend, cost)
		}
	case "steps":
		ss, err := db.Steps(ctx, t.ID)
		ts.Check(err)
		for _, s := range ss {
			fmt.Fprintf(w, "step %d.%d decision=%s kind=%s\n", s.Step, s.Attempt, s.Decision, s.ErrorKind)
		}
	case "tools":
		tc, err := db.ToolCalls(ctx, t.ID)
		ts.Check(err)
		for _, c := range tc {
			fmt.Fprintf(w, "tool %s step=%d err=%q\n", c.Name, c.Step, c.Error)
		}
	default:
		ts.Fatalf("audit: unknown record %q", args[0])
	}
}

// traceFile copies the trace of the newest task in the audit trail (or the newest whose question
// contains QUESTION) to OUT, so a script can run `rlm trace summary` on it.
//
//	tracefile OUT [QUESTION]
func traceFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: tracefile OUT [QUESTION]")
	}
	db, err := audit.Open(filepath.Join(ts.Getenv("RLM_HOME"), "audit.db"), audit.Options{})
	ts.Check(err)
	all, err := db.Tasks(context.Background(), 0)
	db.Close()
	ts.Check(err)
	var tasks []audit.Task
	for _, t := range all {
		if len(args) == 1 || strings.Contains(t.Question, args[1]) {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		ts.Fatalf("tracefile: no such task recorded")
	}
	m, _ := filepath.Glob(filepath.Join(ts.Getenv("RLM_HOME"), "traces", "*"+tasks[0].ID+".jsonl"))
	if len(m) != 1 {
		ts.Fatalf("tracefile: %d traces for task %s", len(m), tasks[0].ID)
	}
	b, err := os.ReadFile(m[0])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o600))
	// The outcome kept beside the trace goes along, where the run wrote one.
	if b, err := os.ReadFile(trace.OutcomePath(m[0])); err == nil {
		ts.Check(os.WriteFile(trace.OutcomePath(ts.MkAbs(args[0])), b, 0o600))
	}
}

// livePID writes the PID of a live process (the test's own) into a PID file, as a run in
// progress would.
func livePID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: livepid FILE")
	}
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o700))
	ts.Check(os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600))
}

// waitFile GLOB waits up to 30 s for a file matching GLOB (a run's PID file, say) and sets
// $WAITED to the first.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile GLOB")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, _ := filepath.Glob(ts.MkAbs(args[0])); len(m) > 0 {
			ts.Setenv("WAITED", m[0])
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: no file matches %s after 30 s", args[0])
		}
	}
}

// sigRun starts rlm with ARGS, waits until its worker exists and a cell is running, stops it
// (SIGINT, SIGTERM, `rlm abort --task-id ID` or `rlm abort ID` of its task), and checks it exits
// with CODE within 5 s and leaves no process of its tree behind. The run's stderr is the
// command's.
//
//	sigrun INT|TERM|abort|abort-id CODE [-after N] ARGS...
//
// -after N waits for the N-th model request (the N-th iteration's cell) instead of the first.
func sigRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: sigrun INT|TERM|abort|abort-id CODE [-after N] ARGS...")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	rest, after := args[2:], 1
	if rest[0] == "-after" && len(rest) > 2 {
		after, err = strconv.Atoi(rest[1])
		ts.Check(err)
		rest = rest[2:]
	}
	cmd := rlmCommand(ts, rest...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	tree := waitForTree(ts, cmd.Process.Pid, &stderr, after)
	start := time.Now()
	switch args[0] {
	case "INT":
		ts.Check(cmd.Process.Signal(syscall.SIGINT))
	case "TERM":
		ts.Check(cmd.Process.Signal(syscall.SIGTERM))
	case "abort", "abort-id":
		stop := []string{"abort", "--task-id", runningTaskID(ts)}
		if args[0] == "abort-id" {
			stop = []string{"abort", stop[2]}
		}
		out, err := rlmCommand(ts, stop...).CombinedOutput()
		ts.Logf("rlm %s: %s", strings.Join(stop, " "), out)
		ts.Check(err)
	default:
		ts.Fatalf("sigrun: unknown stop %q", args[0])
	}
	err = cmd.Wait()
	took := time.Since(start)
	fmt.Fprint(ts.Stderr(), stderr.String()) // for the script's stderr checks
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if code != want {
		ts.Fatalf("exit status %d, want %d", code, want)
	}
	if took > 5*time.Second {
		ts.Fatalf("took %s to exit after the stop; want at most 5 s", took)
	}
	for _, pid := range tree {
		if guard.Alive(pid) {
			ts.Fatalf("process %d of the run's tree outlived it", pid)
		}
	}
	ts.Logf("exited %d after %s; %d descendant processes, none left", code, took.Round(time.Millisecond), len(tree))
}

func rlmCommand(ts *testscript.TestScript, args ...string) *exec.Cmd {
	path, err := exec.LookPath("rlm")
	if p := ts.Getenv("PATH"); p != "" {
		for _, dir := range filepath.SplitList(p) {
			if _, e := os.Stat(filepath.Join(dir, "rlm")); e == nil {
				path, err = filepath.Join(dir, "rlm"), nil
				break
			}
		}
	}
	ts.Check(err)
	cmd := exec.Command(path, args...)
	cmd.Dir = ts.Getenv("WORK")
	for _, kv := range []string{"PATH", "HOME", "RLM_HOME", "RLM_BASE_URL", "RLM_API_KEY", "RLM_MODEL", "TMPDIR"} {
		cmd.Env = append(cmd.Env, kv+"="+ts.Getenv(kv))
	}
	return cmd
}

// waitForTree waits until the run has a descendant (its worker) and has printed its first
// iteration's start, then returns the PIDs of its descendants.
func waitForTree(ts *testscript.TestScript, pid int, stderr *lockedBuffer, requests int) []int {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if tree := descendants(pid); len(tree) > 0 && strings.Contains(stderr.String(), "starting") && cellRunning(ts, requests) {
			time.Sleep(300 * time.Millisecond)
			return descendants(pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("the run did not start a cell within 20 s; stderr:\n%s", stderr.String())
	return nil
}

// cellRunning reports whether the fake model has answered n root calls, so the n-th cell runs.
func cellRunning(ts *testscript.TestScript, n int) bool {
	srv := fakeServer(ts, "")
	return srv != nil && len(srv.Requests()) >= n
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 2 {
			pp, _ := strconv.Atoi(f[1])
			parent[pp] = append(parent[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parent[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func runningTaskID(ts *testscript.TestScript) string {
	m, _ := filepath.Glob(filepath.Join(ts.Getenv("RLM_HOME"), "run", "*.pid"))
	if len(m) != 1 {
		ts.Fatalf("want one PID file under $RLM_HOME/run, found %d", len(m))
	}
	return strings.TrimSuffix(filepath.Base(m[0]), ".pid")
}

// lockedBuffer is a bytes.Buffer that the command's output copier and the test read safely.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
