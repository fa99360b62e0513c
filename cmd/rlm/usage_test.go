package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// usageKeys are the fields of the usage object, as the README's "Usage and cost in JSON" lists
// them.
var usageKeys = []string{"api_calls", "iterations", "sub_calls", "tokens", "prompt_tokens", "completion_tokens",
	"cost_usd", "cost_unknown_calls", "cost_usd_known", "cost"}

const usageQuestion = "Which user had the most payment errors, and what went wrong?"

// usageCase is the README demo's model with set prompt tokens and, where not nil, the cost
// each reply's server reports: the root model's replies cost root, the sub-call's sub.
type usageCase struct {
	name      string
	root, sub *float64
	wantUSD   any     // cost_usd: a number, or nil for unknown
	wantUnk   float64 // cost_unknown_calls
	wantKnown float64 // cost_usd_known
}

// TestUsageObjectEverywhere: the same task, answered by the same fake model, through rlm run
// --json, a rlm batch result line, rlm mcp's rlm_ask and rlm.Ask: the usage object has the same
// keys and the same values in all four. A call of unknown cost makes cost_usd null, with the
// number of such calls, never 0.
func TestUsageObjectEverywhere(t *testing.T) {
	root, sub := 0.0078125, 0.0009765625 // exact in binary: the sums are the same in any order
	for _, tc := range []usageCase{
		{name: "known", root: &root, sub: &sub, wantUSD: 2*root + sub, wantKnown: 2*root + sub},
		{name: "unknown", wantUSD: nil, wantUnk: 3},
		{name: "partly unknown", root: &root, wantUSD: nil, wantUnk: 1, wantKnown: 2 * root},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			got := map[string]map[string]any{
				"rlm run --json": runJSONUsage(t, tc, dir),
				"rlm batch":      batchUsage(t, tc, dir),
				"MCP rlm_ask":    mcpUsage(t, tc, dir),
			}
			ref := apiUsage(t, tc, dir)
			checkUsage(t, tc, "rlm.Ask", ref)
			for name, u := range got {
				if !maps.Equal(u, ref) {
					t.Errorf("%s's usage differs from rlm.Ask's:\n%s: %v\nrlm.Ask: %v", name, name, u, ref)
				}
			}
		})
	}
}

// checkUsage checks one usage object against the documented keys and the case.
func checkUsage(t *testing.T, tc usageCase, who string, u map[string]any) {
	t.Helper()
	if keys := slices.Sorted(maps.Keys(u)); !slices.Equal(keys, slices.Sorted(slices.Values(usageKeys))) {
		t.Errorf("%s: usage keys %v; want %v", who, keys, usageKeys)
	}
	const prompt = 1000 + 200 + 1100 // usageScript's
	if u["api_calls"] != 3.0 || u["iterations"] != 2.0 || u["sub_calls"] != 1.0 || u["prompt_tokens"] != float64(prompt) {
		t.Errorf("%s: usage %v; want 3 API calls, 2 iterations, 1 sub-call, %d prompt tokens", who, u, prompt)
	}
	if out, _ := u["completion_tokens"].(float64); out <= 0 || u["tokens"] != prompt+out {
		t.Errorf("%s: tokens %v, completion tokens %v; want prompt + completion", who, u["tokens"], out)
	}
	if u["cost_usd"] != tc.wantUSD || u["cost_unknown_calls"] != tc.wantUnk || u["cost_usd_known"] != tc.wantKnown {
		t.Errorf("%s: cost_usd %v, cost_unknown_calls %v, cost_usd_known %v; want %v, %v, %v", who,
			u["cost_usd"], u["cost_unknown_calls"], u["cost_usd_known"], tc.wantUSD, tc.wantUnk, tc.wantKnown)
	}
}

// usageModel serves the case's replies on a fake model server of its own and returns the
// environment that points rlm at it, and its configuration for rlm.Ask.
func usageModel(t *testing.T, tc usageCase) ([]string, llm.Config) {
	t.Helper()
	sc, err := llmtest.Load("../../examples/demo/model.json")
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{200, 1000, 1100} // the sub-call's reply, then the root's two
	for i := range sc {
		sc[i].PromptTokens = prompt[i]
		sc[i].Cost = tc.root
		if i == 0 {
			sc[i].Cost = tc.sub
		}
	}
	srv := llmtest.New()
	if err := srv.Push(sc...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return []string{"RLM_BASE_URL=" + srv.URL(), "RLM_API_KEY=" + fakeKey, "RLM_MODEL=fake-root"},
		llm.Config{BaseURL: srv.URL(), APIKey: fakeKey, Models: []string{"fake-root"}}
}

// demoLog is the README demo's input, by its absolute path.
func demoLog(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../examples/demo/app.log")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rlmCmd is the rlm command (this test binary) with args, run in a directory of its own under
// dir, with an RLM_HOME of its own and the case's model.
func rlmCmd(t *testing.T, tc usageCase, dir, name string, args ...string) *exec.Cmd {
	t.Helper()
	env, _ := usageModel(t, tc)
	wd := filepath.Join(dir, name)
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("rlm", args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), append(env, "RLM_HOME="+filepath.Join(wd, "home"), "HOME="+wd)...)
	return cmd
}

// runJSONUsage is the usage of rlm run --json, which also names the task and its trace.
func runJSONUsage(t *testing.T, tc usageCase, dir string) map[string]any {
	t.Helper()
	cmd := rlmCmd(t, tc, dir, "run", "run", "--json", "--lang", "js", "--ctx", demoLog(t), usageQuestion)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rlm run --json: %v\n%s", err, stderr.Bytes())
	}
	var res struct {
		Status string
		TaskID string `json:"task_id"`
		Trace  string
		Usage  map[string]any
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("rlm run --json: %v\n%s", err, out)
	}
	if _, err := os.Stat(res.Trace); res.Status != "answered" || res.TaskID == "" || err != nil {
		t.Errorf("rlm run --json: status %q, task_id %q, trace %q (%v)", res.Status, res.TaskID, res.Trace, err)
	}
	return res.Usage
}

// batchUsage is the usage of the task's rlm batch result line.
func batchUsage(t *testing.T, tc usageCase, dir string) map[string]any {
	t.Helper()
	task, err := json.Marshal(map[string]any{"id": "t", "question": usageQuestion, "files": []string{demoLog(t)}, "lang": "js"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := rlmCmd(t, tc, dir, "batch", "batch", "tasks.jsonl", "--queue", "mem", "--quiet")
	if err := os.WriteFile(filepath.Join(cmd.Dir, "tasks.jsonl"), append(task, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rlm batch: %v\n%s", err, out)
	}
	line, err := os.ReadFile(filepath.Join(cmd.Dir, "tasks.results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Status string
		Usage  map[string]any
	}
	if err := json.Unmarshal(line, &res); err != nil || res.Status != "answered" {
		t.Fatalf("result line %s (%v); want an answer", line, err)
	}
	return res.Usage
}

// mcpUsage is the usage of rlm mcp's rlm_ask, from the go-sdk client over stdio.
func mcpUsage(t *testing.T, tc usageCase, dir string) map[string]any {
	t.Helper()
	cmd := rlmCmd(t, tc, dir, "mcp", "mcp", "--root", filepath.Dir(demoLog(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "usage", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rlm_ask",
		Arguments: map[string]any{"question": usageQuestion, "files": []string{demoLog(t)}, "lang": "js"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("rlm_ask: %s", mcpText(res))
	}
	u, _ := structured(res)["usage"].(map[string]any)
	return u
}

// apiUsage is the usage of rlm.Ask's Result, marshalled.
func apiUsage(t *testing.T, tc usageCase, dir string) map[string]any {
	t.Helper()
	_, model := usageModel(t, tc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := rlm.Ask(ctx, rlm.Options{Question: usageQuestion, Files: []string{demoLog(t)}, Lang: "js",
		Home: filepath.Join(dir, "api", "home"), Model: model, Quiet: true})
	if err != nil {
		t.Fatalf("rlm.Ask: %v", err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Usage map[string]any }
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Usage
}
