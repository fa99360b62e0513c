package trace

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/redact"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var t0 = time.Date(2026, 11, 22, 6, 15, 0, 0, time.UTC)

// tick is a clock that advances one second per reading.
func tick() func() time.Time {
	var mu sync.Mutex
	n := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return t0.Add(time.Duration(n) * time.Second)
	}
}

func ptr(s string) *string { return &s }

func usd(f float64) *float64 { return &f }

// writeRun writes a small but complete run: two iterations (sub-calls, an error, variables,
// FINAL) and the outcome, and returns the file's path.
func writeRun(t *testing.T, dir string, r *redact.Redactor) string {
	t.Helper()
	path := filepath.Join(dir, FileName(t0, "20261122-061500-a1b2c3"))
	w, err := create(path, Metadata{RootModel: "root-model", MaxDepth: 1, MaxIterations: 1,
		Backend: "openai", BackendKwargs: map[string]any{"model_name": "root-model", "base_url": "http://127.0.0.1:8080/v1"},
		EnvironmentKwargs: map[string]any{"cell_timeout_s": 120}, TaskID: "20261122-061500-a1b2c3",
		Question: "How many ERROR lines?", Lang: "js"}, r, tick())
	if err != nil {
		t.Fatal(err)
	}
	prompt := []Message{{Role: "system", Content: "You are in a sandboxed JS REPL."},
		{Role: "user", Content: "Question: How many ERROR lines?"}}
	first := Iteration{Prompt: prompt, Response: "Let me count.\n```js\nprint(count(context, /ERROR/))\n```",
		Time: 1500 * time.Millisecond, Usage: Usage{PromptTokens: 900, CompletionTokens: 40, Cost: usd(0.0027)},
		CodeBlocks: []CodeBlock{
			{Code: "print(count(context, /ERROR/))", Stdout: "17\n", Time: 20 * time.Millisecond,
				Locals: []Var{{Name: "n", Type: "number", Repr: "17"}, {Name: "errs"}}},
			{Code: "llm_query_batched(['a', 'b'])", Time: 300 * time.Millisecond,
				ErrKind: fault.Code, ErrMsg: "TypeError: x is undefined",
				SubCalls: []SubCall{
					{Model: "sub-model", Backend: "local", Prompt: "a", Response: "A", Usage: Usage{PromptTokens: 10, CompletionTokens: 2, Cost: usd(0.00001)}, Time: 200 * time.Millisecond},
					{Model: "sub-model", Prompt: "b", Error: "HTTP 500", Time: 100 * time.Millisecond},
				}},
		}}
	second := Iteration{Prompt: append(prompt, Message{Role: "assistant", Content: first.Response}),
		Response: "```js\nFINAL(17)\n```", Time: time.Second, Usage: Usage{PromptTokens: 1000, CompletionTokens: 10},
		FinalAnswer: ptr("17"), Forced: true,
		CodeBlocks: []CodeBlock{{Code: "FINAL(17)", Final: ptr("17"), Time: time.Millisecond}}}
	for _, it := range []Iteration{first, second} {
		if err := w.Iteration(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(Outcome{Status: "ANSWERED", Answer: "17", Usage: Usage{PromptTokens: 1910, CompletionTokens: 52},
		Tokens: 2500, Calls: 5, WallTime: 3 * time.Second, Cost: &Cost{USD: 0.0031, Unknown: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./trace -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (rerun with -update if the change is intended)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestGolden(t *testing.T) {
	path := writeRun(t, t.TempDir(), nil)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "run.jsonl", got)
	outcome, err := os.ReadFile(OutcomePath(path))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "run.outcome.json", outcome)
	s, err := SummarizeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := s.Format(&out); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.summary.txt", out.Bytes())
}

// TestCost: a cost is written only where it is known; a task whose every call is of unknown
// cost says so (usd null), and reads back as unknown, never as $0.
func TestCost(t *testing.T) {
	for _, tt := range []struct {
		cost *Cost
		rec  string // the outcome file's "cost"
		text string // rlm trace summary's line
	}{
		{&Cost{USD: 0.0123}, `{"usd":0.0123,"unknown_calls":0}`, "$0.0123"},
		{&Cost{USD: 12.5}, `{"usd":12.5,"unknown_calls":0}`, "$12.5"},
		{&Cost{}, `{"usd":0,"unknown_calls":0}`, "$0"},
		{&Cost{USD: 0.25, Unknown: 1}, `{"usd":0.25,"unknown_calls":1}`, "≥ $0.25 (1 call of unknown cost)"},
		{&Cost{Unknown: 3}, `{"usd":null,"unknown_calls":3}`, "unknown (3 calls)"},
		{&Cost{USD: 0.5, Unknown: 2}, `{"usd":0.5,"unknown_calls":2}`, "≥ $0.5 (2 calls of unknown cost)"},
		{nil, "", ""},
	} {
		path := filepath.Join(t.TempDir(), FileName(t0, "t"))
		w, err := Create(path, Metadata{TaskID: "t"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(Outcome{Status: "ANSWERED", Cost: tt.cost}); err != nil {
			t.Fatal(err)
		}
		w.Close()
		raw, err := os.ReadFile(OutcomePath(path))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Cost json.RawMessage `json:"cost"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if len(rec.Cost) > 0 {
			_ = json.Compact(&compact, rec.Cost)
		}
		if compact.String() != tt.rec {
			t.Errorf("%v: cost written as %s, want %s", tt.cost, compact.String(), tt.rec)
		}
		s, err := SummarizeFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if s.Cost != nil {
			got = s.Cost.String()
		}
		if got != tt.text {
			t.Errorf("%v: summary cost %q, want %q", tt.cost, got, tt.text)
		}
	}
}

func TestFileName(t *testing.T) {
	if got, want := FileName(t0, "id1"), "rlm_2026-11-22_06-15-00_id1.jsonl"; got != want {
		t.Errorf("FileName: got %q, want %q", got, want)
	}
}

// TestVisualizerShape checks every line against what the reference visualizer dereferences
// (visualizer/src/lib/types.ts and the components that read it).
func TestVisualizerShape(t *testing.T) {
	data, err := os.ReadFile(writeRun(t, t.TempDir(), nil))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want metadata and 2 iterations", len(lines))
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if m["type"] == "metadata" {
			need(t, m, "line", "root_model:string", "max_depth:number", "max_iterations:number",
				"backend:string", "backend_kwargs:object", "environment_type:string",
				"environment_kwargs:object", "timestamp:string")
			continue
		}
		need(t, m, "iteration", "iteration:number", "timestamp:string", "prompt:array",
			"response:string", "code_blocks:array")
		for _, msg := range m["prompt"].([]any) {
			need(t, msg.(map[string]any), "message", "role:string", "content:string")
		}
		for _, b := range m["code_blocks"].([]any) {
			block := b.(map[string]any)
			need(t, block, "code block", "code:string", "result:object")
			res := block["result"].(map[string]any)
			need(t, res, "result", "stdout:string", "stderr:string", "locals:object",
				"execution_time:number", "rlm_calls:array")
			for _, c := range res["rlm_calls"].([]any) {
				need(t, c.(map[string]any), "sub-call", "prompt:string", "response:string",
					"prompt_tokens:number", "completion_tokens:number", "execution_time:number",
					"root_model:string", "usage_summary:object")
			}
		}
	}
}

// need fails unless m has each "key:type" with that JSON type.
func need(t *testing.T, m map[string]any, what string, specs ...string) {
	t.Helper()
	for _, spec := range specs {
		key, typ, _ := strings.Cut(spec, ":")
		v, ok := m[key]
		var got string
		switch v.(type) {
		case string:
			got = "string"
		case float64:
			got = "number"
		case []any:
			got = "array"
		case map[string]any:
			got = "object"
		}
		if !ok || got != typ {
			t.Errorf("%s: %q is %T (%v), want a %s", what, key, v, v, typ)
		}
	}
}

func TestSummarizeTruncated(t *testing.T) {
	data, err := os.ReadFile(writeRun(t, t.TempDir(), nil))
	if err != nil {
		t.Fatal(err)
	}
	// A crash while writing the second iteration: its line is cut in the middle.
	lines := strings.SplitAfter(string(data), "\n")
	cut := lines[0] + lines[1] + lines[2][:len(lines[2])/2]
	s, err := Summarize(strings.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if s.Iterations != 1 || s.CodeBlocks != 2 || s.TruncatedBytes != len(lines[2])/2 || s.HasFinal || s.Status != "" {
		t.Errorf("summary of a cut trace: %+v", s)
	}
	if s.PromptTokens != 910 || s.CompletionTokens != 42 || s.SubCalls != 2 || s.SubCallErrors != 1 {
		t.Errorf("tokens or sub-calls from the records: %+v", s)
	}
	var out bytes.Buffer
	_ = s.Format(&out)
	for _, want := range []string{"unfinished", "warning:", fmt.Sprintf("%d bytes ignored", len(lines[2])/2), "code 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Format output lacks %q:\n%s", want, out.String())
		}
	}
	// A broken line that is not the last one is corruption, not a crash.
	if _, err := Summarize(strings.NewReader(lines[0] + "{oops\n" + lines[1])); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("corrupt middle line: got %v, want an error naming line 2", err)
	}
}

// TestSummarizeReference reads a trace in the reference's own shape (no rlm extensions).
func TestSummarizeReference(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "reference.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Summarize(f)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{RootModel: "gpt-5-mini", Iterations: 2, CodeBlocks: 2, Errors: map[string]int{"stderr": 1},
		SubCalls: 1, PromptTokens: 120, CompletionTokens: 30, WallTime: 4500 * time.Millisecond,
		FinalAnswer: "15", HasFinal: true}
	if fmt.Sprintf("%+v", s) != fmt.Sprintf("%+v", want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

func fakeKey(t *testing.T) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("sk-proj-")
	for range 40 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, alnum[n.Int64()])
	}
	return string(b)
}

func TestRedaction(t *testing.T) {
	key := fakeKey(t)
	s := "key " + key + " end"
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "t.jsonl"), Metadata{RootModel: s, Backend: s,
		BackendKwargs: map[string]any{"api_key": key, s: []any{s}}, EnvironmentType: s,
		EnvironmentKwargs: map[string]any{"x": s}, OtherBackends: []string{s}, TaskID: s, Question: s, Lang: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(
		w.Iteration(Iteration{Prompt: []Message{{Role: s, Content: s}}, Response: s, FinalAnswer: ptr(s),
			CodeBlocks: []CodeBlock{{Code: s, Stdout: s, Stderr: s, Locals: []Var{{Name: s, Type: s, Repr: s}}, Final: ptr(s),
				ErrKind: fault.Code, ErrMsg: s, SubCalls: []SubCall{{Model: s, Prompt: s, Response: s, Error: s}}}}}),
		w.Finish(Outcome{Status: s, Answer: s, ErrKind: fault.Limit, ErrMsg: s}),
		w.Close())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := NewPromptStore(dir, "task1", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := ps.Save(SubCall{Model: s, Prompt: s, Response: s, Error: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(dir, "t.jsonl"), OutcomePath(filepath.Join(dir, "t.jsonl")), stored} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), key[8:]) {
			t.Errorf("%s holds the key in clear:\n%s", f, data)
		}
		if !strings.Contains(string(data), "[REDACTED:openai]") {
			t.Errorf("%s has no redaction marker", f)
		}
	}
}

func TestWriterLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "t.jsonl")
	w, err := Create(path, Metadata{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Iteration(Iteration{Response: "r"}); err != nil {
		t.Fatal(err)
	}
	// Synced line by line: the file is complete before Close.
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 2 || !strings.HasSuffix(string(data), "\n") {
		t.Errorf("before Close the file holds %d complete lines, want 2:\n%s", n, data)
	}
	if _, err := Create(path, Metadata{}, nil); err == nil {
		t.Error("Create over an existing trace succeeded; it must not overwrite a run")
	}
	if err := w.Finish(Outcome{Status: "FAILED"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Iteration(Iteration{}); !errors.Is(err, ErrFinished) {
		t.Errorf("Iteration after Finish: got %v, want ErrFinished", err)
	}
	if err := w.Finish(Outcome{}); !errors.Is(err, ErrFinished) {
		t.Errorf("second Finish: got %v, want ErrFinished", err)
	}
	if err := errors.Join(w.Close(), w.Close()); err != nil {
		t.Errorf("Close twice: %v", err)
	}
}

func TestPromptStoreConcurrent(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewPromptStore(dir, "../escape", nil); err == nil {
		t.Error("a task id with a path separator was accepted")
	}
	ps, err := NewPromptStore(dir, "task1", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A file left by an earlier store is skipped, not overwritten.
	first := filepath.Join(dir, "task1", "subcalls", "0001.json")
	if err := os.WriteFile(first, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := ps.Save(SubCall{Model: "m", Prompt: fmt.Sprintf("p%d", i), Response: "r"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	prompts := map[string]bool{}
	for i := 2; i <= n+1; i++ {
		data, err := os.ReadFile(filepath.Join(dir, "task1", "subcalls", fmt.Sprintf("%04d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Index  int    `json:"index"`
			Task   string `json:"task"`
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal(data, &rec); err != nil || rec.Index != i || rec.Task != "task1" {
			t.Errorf("file %d: %v %+v", i, err, rec)
		}
		prompts[rec.Prompt] = true
	}
	if len(prompts) != n {
		t.Errorf("got %d distinct prompts, want %d", len(prompts), n)
	}
	if old, _ := os.ReadFile(first); string(old) != "old\n" {
		t.Errorf("existing 0001.json was overwritten: %q", old)
	}
}

func TestLocalsCaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := Create(path, Metadata{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var vars []Var
	for i := range MaxLocals + 7 {
		vars = append(vars, Var{Name: fmt.Sprintf("v%03d", i), Type: strings.Repeat("T", 500), Repr: strings.Repeat("é", 5000)})
	}
	vars[0].Name = strings.Repeat("n", 300)
	vars[1] = Var{Name: "only_name"}
	if err := errors.Join(w.Iteration(Iteration{CodeBlocks: []CodeBlock{{Code: "x", Locals: vars}}}), w.Close()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var rec struct {
		CodeBlocks []struct {
			Result struct {
				Locals        map[string]any    `json:"locals"`
				LocalTypes    map[string]string `json:"local_types"`
				LocalsOmitted int               `json:"locals_omitted"`
			} `json:"result"`
		} `json:"code_blocks"`
	}
	if err := json.Unmarshal([]byte(strings.Split(string(data), "\n")[1]), &rec); err != nil {
		t.Fatal(err)
	}
	res := rec.CodeBlocks[0].Result
	if got, want := len(res.Locals), MaxLocals; got != want {
		t.Errorf("locals written: got %d, want %d", got, want)
	}
	if res.LocalsOmitted != 7 {
		t.Errorf("locals_omitted: got %d, want 7", res.LocalsOmitted)
	}
	for name, v := range res.Locals {
		repr, _ := v.(string)
		if n := len([]rune(name)); n > MaxNameChars+1 {
			t.Errorf("name of %d characters kept", n)
		}
		if n := len([]rune(repr)); n > MaxReprChars+1 {
			t.Errorf("%s: repr of %d characters kept", name, n)
		}
		if typ := res.LocalTypes[name]; len([]rune(typ)) > MaxTypeChars+1 {
			t.Errorf("%s: type of %d characters kept", name, len([]rune(typ)))
		}
	}
	if v, ok := res.Locals["only_name"]; !ok || v != "" {
		t.Errorf("a variable known by name only: got %v %v, want an empty value", v, ok)
	}
	if _, ok := res.LocalTypes["only_name"]; ok {
		t.Error("a variable without a type got one in local_types")
	}
}

// TestLegacyOutcome reads a trace written before the outcome moved beside it: the outcome is
// then on a second metadata line.
func TestLegacyOutcome(t *testing.T) {
	s, err := SummarizeFile(filepath.Join("testdata", "legacy_outcome.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != "ANSWERED" || s.FinalAnswer != "17" || s.PromptTokens != 1910 || s.WallTime != 3*time.Second {
		t.Errorf("legacy outcome not read: %+v", s)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{FileName(t0, "task-a"), FileName(t0, "task-b"), FileName(t0.Add(time.Hour), "task-b")} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(dir, "task-a")
	if err != nil || got != filepath.Join(dir, FileName(t0, "task-a")) {
		t.Errorf("Find(task-a) = %q, %v", got, err)
	}
	for _, tc := range []struct{ id, want string }{
		{"task-c", "no trace of task task-c"},
		{"task-b", "2 traces of task task-b"},
		{"../x", "is not a task id"},
		{"*", "is not a task id"},
		{"", "is not a task id"},
	} {
		if _, err := Find(dir, tc.id); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Find(%q): got %v, want an error with %q", tc.id, err, tc.want)
		}
	}
}
