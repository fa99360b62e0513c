package rlm_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// twoModels is a run whose root model (big, priced) is on one fake server and whose sub-call
// model (cheap, priced, with its own sampling settings) is on another, with a key of its own:
// what rlm.toml's [backends.NAME] and [models.NAME] configure, given as Options.Model.
func twoModels(t *testing.T, home string, maxCost float64) (rlm.Options, *llmtest.Server, *llmtest.Server) {
	t.Helper()
	root := llmtest.New(llmtest.Reply{PromptTokens: 3000, Text: "```repl\nFINAL(llm_query(\"SUB one\") + \"|\" + llm_query(\"SUB two\"))\n```"})
	sub := llmtest.NewAnthropic(llmtest.Reply{When: "^SUB", PromptTokens: 200, Text: "cheap answer", Times: -1})
	t.Cleanup(root.Close)
	t.Cleanup(sub.Close)
	temp := 0.2
	price := func(in, out float64) *llm.Price { return &llm.Price{In: in, Out: out} }
	cfg := llm.Config{
		BaseURL: root.URL(), APIKey: "sk-proj-ROOTtestKEY0123456789abcdefghijklmnopqrstu",
		Models: []string{"big"}, SubModels: []string{"cheap"},
		Endpoints: map[string]llm.Endpoint{"sub": {Provider: llm.ProviderAnthropic, BaseURL: sub.URL(), APIKey: "sk-ant-api03-SUBtestKEY0123456789abcdefghijklmnopqrstuvwxyz"}},
		Catalog: map[string]llm.ModelConfig{
			"big":   {ID: "fake-big-2026", Price: price(2.5, 10)},
			"cheap": {ID: "claude-cheap", Endpoint: "sub", Sampling: llm.Sampling{Temperature: &temp}, Price: price(0.1, 0.4)},
		},
		MaxCost: maxCost,
	}
	return rlm.Options{Question: "Which colour?", Files: []string{demoLog}, Lang: "js", Mode: controller.Loop, Home: home, Model: cfg}, root, sub
}

// TestAskTwoModels: the root model and the sub-call model answer from their own servers, each
// call is recorded with its model, backend, tokens and cost, and the run's cost is their sum.
func TestAskTwoModels(t *testing.T) {
	home := t.TempDir()
	opts, root, sub := twoModels(t, home, 0)
	res, err := rlm.Ask(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "cheap answer|cheap answer" {
		t.Fatalf("answer %q", res.Answer)
	}
	calls, err := openAudit(t, home).Calls(context.Background(), res.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	type sum struct {
		calls, tokens int
		usd           float64
	}
	got := map[string]sum{}
	for _, c := range calls {
		if c.CostUSD == nil {
			t.Fatalf("call %+v: cost unknown; want it from the price", c)
		}
		s := got[c.Model+"@"+c.Backend]
		got[c.Model+"@"+c.Backend] = sum{s.calls + 1, s.tokens + c.PromptTokens + c.CompletionTokens, s.usd + *c.CostUSD}
	}
	big, cheap := got["big@default"], got["cheap@sub"]
	if big.calls != 1 || cheap.calls != 2 || len(got) != 2 {
		t.Fatalf("calls per model %+v; want big@default 1, cheap@sub 2", got)
	}
	// Each cost is the model's tokens at its price (dollars per million).
	if want := (3000*2.5 + float64(big.tokens-3000)*10) / 1e6; math.Abs(big.usd-want) > 1e-12 {
		t.Errorf("big cost %v; want %v", big.usd, want)
	}
	if want := (400*0.1 + float64(cheap.tokens-400)*0.4) / 1e6; math.Abs(cheap.usd-want) > 1e-12 {
		t.Errorf("cheap cost %v; want %v", cheap.usd, want)
	}
	if u := res.Usage; u.Calls != 3 || !u.Cost.Known() || math.Abs(u.Cost.USD-(big.usd+cheap.usd)) > 1e-12 {
		t.Errorf("usage %+v; want 3 calls costing %v", u, big.usd+cheap.usd)
	}
	if task := auditTask(t, home, res.TaskID); task.CostUnknown != 0 || math.Abs(task.CostUSD-res.Usage.Cost.USD) > 1e-12 {
		t.Errorf("audit task cost %v (%d unknown); want %v", task.CostUSD, task.CostUnknown, res.Usage.Cost.USD)
	}
	for _, r := range root.Requests() {
		if r.Model != "fake-big-2026" || r.Has("temperature") {
			t.Errorf("root server got model %q, temperature %v", r.Model, r.Has("temperature"))
		}
	}
	for _, r := range sub.Requests() {
		if r.Model != "claude-cheap" || string(r.Fields["temperature"]) != "0.2" || !strings.HasPrefix(r.Authorization, "sk-ant-api03-SUB") {
			t.Errorf("sub server got model %q, temperature %s", r.Model, r.Fields["temperature"])
		}
	}
	if len(root.Requests()) != 1 || len(sub.Requests()) != 2 {
		t.Errorf("requests: root %d, sub %d", len(root.Requests()), len(sub.Requests()))
	}
	noKeyUnder(t, home, "the answer", "cheap answer", "ROOTtestKEY", "SUBtestKEY")
}

// noKeyUnder fails if a file under dir holds one of keys; found (text the records must hold)
// shows that the files searched are the records.
func noKeyUnder(t *testing.T, dir, what, found string, keys ...string) {
	t.Helper()
	seen := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		seen = seen || bytes.Contains(b, []byte(found))
		for _, k := range keys {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("%s holds the key %s", p, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Errorf("no file under %s holds %s (%q): the records were not searched", dir, what, found)
	}
}

// TestAskMaxCost: Options.Model.MaxCost stops the run before the call that would pass it.
func TestAskMaxCost(t *testing.T) {
	home := t.TempDir()
	opts, _, sub := twoModels(t, home, 0.001)
	res, err := rlm.Ask(context.Background(), opts)
	if !errors.Is(err, fault.Limit) || res.Status != rlm.Failed || !strings.Contains(err.Error(), "--max-cost") {
		t.Fatalf("got %s, %v; want a failed run and a dollar-budget error", res.Status, err)
	}
	if res.Usage.Calls != 0 || len(sub.Requests()) != 0 {
		t.Errorf("%d calls made; want none (the first call's prompt alone passes $0.001)", res.Usage.Calls)
	}
}

// TestConfigure: Options.Configure takes every value rlm.toml sets, as rlm run does: the
// limits, the times, the quota, the worker's memory, and the model client with its ladders,
// backends (keys read from their variables), sampling, prices and budgets.
func TestConfigure(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "rlm.toml")
	err := os.WriteFile(project, []byte(`[defaults]
model = "big"
sub_model = "cheap"
timeout = "20m"

[limits]
max_iterations = 9
max_blocks = 3
feedback_chars = 5000
max_subcalls = 7
max_calls = 40
max_tokens = 90000
max_cost = 1.5
cell_timeout = "30s"
peek_chars = 4000
workspace_bytes = "64MiB"
workspace_entries = 500
worker_memory = "256MiB"

[backends.sub]
provider = "anthropic"
base_url = "http://127.0.0.1:9"
api_key_env = "SUB_KEY"

[models.cheap]
backend = "sub"
temperature = 0.3
price_in = 1
price_out = 5
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SUB_KEY": "sk-ant-api03-CONFtestKEY0123456789abcdefghijklmnopqrstuvwxyz", "RLM_HOME": dir}
	// It names backends and models: the user trusts it first (its record goes to RLM_HOME).
	if _, err := config.Trust(config.Options{ProjectFile: project, UserFile: filepath.Join(dir, "none.toml"), Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{ProjectFile: project, UserFile: filepath.Join(dir, "none.toml"),
		Getenv: func(k string) string { return env[k] }, Flags: map[string]string{"max-calls": "41"}})
	if err != nil {
		t.Fatal(err)
	}
	var o rlm.Options
	if err := o.Configure(c); err != nil {
		t.Fatal(err)
	}
	got := []any{o.MaxIterations, o.MaxBlocks, o.FeedbackChars, o.Limits.SubCalls, o.Limits.PeekChars, o.Timeout, o.CellTimeout,
		o.Quota, o.WorkerMemory, o.Model.Models, o.Model.SubModels, o.Model.MaxCalls, o.Model.MaxTokens, o.Model.MaxCost,
		o.Model.Endpoints["sub"].APIKey, o.Model.Endpoints["sub"].Provider, *o.Model.Catalog["cheap"].Sampling.Temperature, o.Model.Catalog["cheap"].Price.Out}
	want := []any{9, 3, 5000, 7, 4000, 20 * time.Minute, 30 * time.Second,
		rlm.Quota{Bytes: 64 << 20, Entries: 500}, int64(256 << 20), []string{"big"}, []string{"cheap"}, 41, 90000, 1.5,
		env["SUB_KEY"], llm.ProviderAnthropic, 0.3, 5.0}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("value %d: got %v (%T), want %v (%T)", i, got[i], got[i], want[i], want[i])
		}
	}

	// No model: the budgets only, and no error (a script needs none; Ask says how to name one).
	c, err = config.Load(config.Options{ProjectFile: filepath.Join(dir, "none.toml"), UserFile: filepath.Join(dir, "none.toml"),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	o = rlm.Options{}
	if err := o.Configure(c); err != nil || len(o.Model.Models) != 0 || o.Model.MaxCalls != 80 || o.MaxIterations != 25 {
		t.Errorf("no model: %v, %+v", err, o.Model)
	}

	// A key variable that is not set is an error that names it.
	delete(env, "SUB_KEY")
	c, err = config.Load(config.Options{ProjectFile: project, UserFile: filepath.Join(dir, "none.toml"), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Configure(c); err == nil || !strings.Contains(err.Error(), "SUB_KEY") {
		t.Errorf("unset key variable: got %v; want an error naming SUB_KEY", err)
	}
}
