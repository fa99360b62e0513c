package controller

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// budgeted is a model that states its budgets and models, as *llm.Client does.
type budgeted struct {
	b         llm.Budget
	subs, all []string // SubModels, Configured
	maxCost   float64
}

func (budgeted) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, nil
}
func (m budgeted) Budget() llm.Budget   { return m.b }
func (m budgeted) SubModels() []string  { return m.subs }
func (m budgeted) Configured() []string { return m.all }
func (m budgeted) MaxCost() float64     { return m.maxCost }

var defaultBudget = llm.Budget{Calls: 80, Tokens: 200_000, BreakerErrors: 5, BreakerWindow: time.Minute}

// TestSystemPromptGolden: the whole system prompt of a default run, per language. Read the
// golden files as a model would: every sentence must be true of the run, and complete.
func TestSystemPromptGolden(t *testing.T) {
	for _, lang := range []string{"go", "js"} {
		t.Run(lang, func(t *testing.T) {
			cfg := Config{Model: budgeted{b: defaultBudget, subs: []string{"cheap"}, all: []string{"big", "cheap", "reasoner"}}, Timeout: 90 * time.Minute, Session: repl.Options{Lang: lang}}
			got := SystemPrompt(cfg)
			path := filepath.Join("testdata", "system_prompt_"+lang+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./controller -run SystemPromptGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("the system prompt changed; if that is intended, run go test ./controller -run SystemPromptGolden -update\ngot:\n%s", got)
			}
		})
	}
}

// TestSystemPromptStatesTheRunsLimits: every limit comes from the run's configuration, never
// from a literal. A run with unusual values states those values, and none of the defaults.
func TestSystemPromptStatesTheRunsLimits(t *testing.T) {
	cfg := Config{
		Model:         budgeted{b: llm.Budget{Calls: 17, Tokens: 4321, BreakerErrors: 9, BreakerWindow: 7 * time.Second}, maxCost: 2.5},
		MaxIterations: 7, MaxSubCalls: 5, MaxBatches: 2, BatchWidth: 3, FeedbackChars: 6_000, MaxBlocks: 3,
		Timeout: 17 * time.Minute,
		Session: repl.Options{Lang: "go", CellTimeout: 45 * time.Second, Limits: engine.Limits{OutputChars: 50_000, PeekChars: 8_000, TextChars: 9_000_000}, MaxRestarts: 2, RestartWindow: 11 * time.Minute,
			WorkerMemory: 300 << 20},
	}
	p := SystemPrompt(cfg)
	for _, want := range []string{
		"llm_query(prompt string, opts ...Opts) string — one sub-model call; at most 5 per run",
		"Sub-calls: 5 per run", "in at most 2 llm_query_batched calls, 3 run at a time",
		"run 3 at a time, at most 2 batches per run",
		"at most 6,000 characters per reply", "A block keeps only the first 50,000 characters",
		"print(values ...any) — output shown to you; at most 6,000 characters per cell",
		"a block is stopped after 45 s", "The whole run ends after 17 min",
		"Replies: 7.", "the first 3 code blocks of a reply run", "17 API calls and 4,321 tokens, and $2.50 for the whole run", "keep your data well under 300 MiB", "9 API errors within 7 s end the run",
		"the 3rd crash within 11 min ends the run",
		"no block works in 3 replies in a row",
		"at most 9,000,000 characters; read a larger one in pieces of at most 8,000 characters, with peek over chunk(context, 8000, 0)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	for _, stale := range []string{"32 per run", "Sub-calls: 32", "20,000", "100,000", "2 min", "90 min", "Replies: 25", "80 API calls", "200,000 tokens", "at most 8 ", "4 run at a time", "first 8 code blocks", "16,000", "16000", "32,000,000", "512 MiB"} {
		if strings.Contains(p, stale) {
			t.Errorf("the prompt states the default %q, not this run's value", stale)
		}
	}
}

// TestSystemPromptNamesSubModels: the prompt names the model that answers llm_query and the
// others the code may pick, with the option written in the session's language.
func TestSystemPromptNamesSubModels(t *testing.T) {
	m := budgeted{b: defaultBudget, subs: []string{"local-8b", "local-32b"}, all: []string{"local-32b", "local-8b", "sonnet"}}
	tests := []struct {
		lang  string
		model Model
		want  string
	}{
		{"go", m, `Sub-call models: llm_query and llm_query_batched are answered by local-8b unless opts picks another configured model: local-32b, local-8b, sonnet. For example llm_query(prompt, Opts{Model: "local-32b"}).`},
		{"js", m, `For example llm_query(prompt, {model: "local-32b"})`},
		{"go", budgeted{b: defaultBudget, subs: []string{"only"}, all: []string{"only"}}, "llm_query is answered by only, the only model configured; leave opts out."},
		{"go", nil, "no other can be picked, so leave opts out"},
	}
	for _, tt := range tests {
		p := SystemPrompt(Config{Model: tt.model, Session: repl.Options{Lang: tt.lang}})
		if !strings.Contains(p, tt.want) {
			t.Errorf("%s: the prompt lacks %q", tt.lang, tt.want)
		}
	}
}

// TestSystemPromptNamesEveryCap: each cap of the API registry is stated with its effective value,
// and nothing is left as a placeholder.
func TestSystemPromptNamesEveryCap(t *testing.T) {
	for _, lang := range []string{"go", "js"} {
		p := SystemPrompt(Config{Session: repl.Options{Lang: lang}})
		if m := regexp.MustCompile(`\{[A-Z][A-Za-z]*\}`).FindString(p); m != "" {
			t.Errorf("%s: placeholder %s left in the prompt", lang, m)
		}
		lim := apiLimits(Config{}.withDefaults())
		for _, f := range engine.API {
			if !strings.Contains(p, f.Describe(lim)) {
				t.Errorf("%s: the prompt lacks %s's doc line %q", lang, f.Name, f.Describe(lim))
			}
		}
		for _, want := range []string{"File tools: 50 calls", "Memory:", "Failures:", "Time:", "Crashes:", "Model budget:", "Blocks: the first 8 code blocks"} {
			if !strings.Contains(p, want) {
				t.Errorf("%s: the prompt lacks the limit %q", lang, want)
			}
		}
	}
}

// TestSystemPromptLanguageFacts: what trips models up in each language is said.
func TestSystemPromptLanguageFacts(t *testing.T) {
	tests := []struct {
		lang string
		want []string
	}{
		{"go", []string{"imported for you", "imports persist", "Go strings are bytes", "formats exactly as fmt.Println does", "strings, time, unicode",
			"search(ctx Context, regex string, from ...int) []Match", "Match{Start int;", "ctx0 (also named context), ctx1", "hides that function", "raw strings"}},
		{"js", []string{"UTF-16 units", "console.log, .error, .warn and .info are print", "the API is synchronous",
			"search(ctx, regex, from?) —", "print(...values) —", "ctx0 (also named context), ctx1", "hides that function", "RegExp literal", "Object.groupBy"}},
	}
	for _, tc := range tests {
		p := SystemPrompt(Config{Session: repl.Options{Lang: tc.lang}})
		for _, w := range append(tc.want, "count characters (Unicode code points)", "Use code for everything exact: counting, sums", "Use llm_query only for what needs reading",
			"RE2 (Go's regexp)", "unless (?m)", "text(context) returns all of it as one string when it has at most 32,000,000 characters", "chunk(context, 16000, 0)") {
			if !strings.Contains(p, w) {
				t.Errorf("%s: the prompt lacks %q", tc.lang, w)
			}
		}
	}
}

// TestFirstMessageGolden: the first message of a run over two context files, a long one that
// ends with a newline and a short one that does not. Read it as a model would: each file's
// variable, its size in lines as a person counts them, and how much of it the previews show.
func TestFirstMessageGolden(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&long, "2026-11-22T10:%02d:%02d level=INFO user=u%d msg=\"ok\"\n", i/60%60, i%60, i%7)
	}
	a, b := filepath.Join(dir, "server.log"), filepath.Join(dir, "notes.txt")
	writeFile(t, a, long.String())
	writeFile(t, b, "first line\nsecond line, no newline at the end")
	m, err := describe(nil, []string{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	got := m.firstMessage(`Which user logged the most "ok" messages?`)
	path := filepath.Join("testdata", "first_message.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./controller -run FirstMessageGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("the first message changed; if that is intended, run go test ./controller -run FirstMessageGolden -update\ngot:\n%s", got)
	}
	if m.docs[0].Lines != 2001 || !strings.Contains(got, "2,000 lines") || !strings.Contains(got, "2 lines") {
		t.Errorf("lines: the document counts %d (newlines plus one); the message must say 2,000 and 2:\n%s", m.docs[0].Lines, got)
	}
}

// TestFirstMessageNamesCRLF: a file with Windows line endings is said to have them, with what
// to do; one without gets no such note.
func TestFirstMessageNamesCRLF(t *testing.T) {
	dir := t.TempDir()
	win, unix := filepath.Join(dir, "win.csv"), filepath.Join(dir, "unix.csv")
	writeFile(t, win, strings.Repeat("id,notes\r\n1,ok\r\n", 40))
	writeFile(t, unix, strings.Repeat("id,notes\n1,ok\n", 40))
	m, err := describe(nil, []string{win, unix}, false)
	if err != nil {
		t.Fatal(err)
	}
	msg := m.firstMessage("q")
	want := `Lines end with "\r\n" (Windows): trim the "\r" after splitting on "\n".`
	if got := strings.Count(msg, want); got != 1 || !strings.Contains(msg, "win.csv, 640 characters, 80 lines, 640 bytes. In code: ctx0 (also named context). "+want) {
		t.Errorf("first message:\n%s\nwant the CRLF note once, on win.csv", msg)
	}
}

// TestPromptListsTheSessionTools: a session's own tools are listed in the API section from the
// registry entries the engines declare and the parent serves, with their types in each
// language, after engine.API's functions; without tools the prompt is engine.API's alone.
func TestPromptListsTheSessionTools(t *testing.T) {
	reg, err := engine.WithTools([]engine.Func{{Name: "order_total", Params: []engine.Param{{Name: "id", GoType: "string"}, {Name: "times", GoType: "int"}},
		Result: "any", Doc: "the total of an order; at most 50 calls per run", Place: engine.InParent, Budget: engine.ToolBudget, Replay: engine.Journaled}})
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{
		"go": "- order_total(id string, times int) any — the total of an order; at most 50 calls per run\n",
		"js": "- order_total(id, times) — the total of an order; at most 50 calls per run\n",
	} {
		p := SystemPrompt(Config{Session: repl.Options{Lang: lang, API: reg}})
		if !strings.Contains(p, want) {
			t.Errorf("%s: the prompt does not list %q", lang, want)
		}
		if i, j := strings.Index(p, "- print("), strings.Index(p, "- order_total("); i < 0 || j < i {
			t.Errorf("%s: the tool is not listed after the API", lang)
		}
		if strings.Contains(SystemPrompt(Config{Session: repl.Options{Lang: lang}}), "order_total") {
			t.Errorf("%s: a session without tools lists one", lang)
		}
	}
}
