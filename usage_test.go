package rlm_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/llm"
)

// TestUsageJSON: the usage object states a known cost in cost_usd, and an unknown one as null
// with the count of calls of unknown cost, never as 0; it reads back to the same Usage.
func TestUsageJSON(t *testing.T) {
	tests := []struct {
		name string
		cost llm.Cost
		want string
	}{
		{"known", llm.Cost{USD: 0.007952},
			`"cost_usd":0.007952,"cost_unknown_calls":0,"cost_usd_known":0.007952,"cost":"$0.007952"}`},
		{"no call", llm.Cost{},
			`"cost_usd":0,"cost_unknown_calls":0,"cost_usd_known":0,"cost":"$0"}`},
		{"unknown", llm.Cost{Unknown: 3},
			`"cost_usd":null,"cost_unknown_calls":3,"cost_usd_known":0,"cost":"unknown"}`},
		{"partly unknown", llm.Cost{USD: 0.25, Unknown: 1},
			`"cost_usd":null,"cost_unknown_calls":1,"cost_usd_known":0.25,"cost":"≥ $0.25 (1 call of unknown cost)"}`},
	}
	const counts = `{"api_calls":3,"iterations":2,"sub_calls":1,"tokens":120,"prompt_tokens":100,"completion_tokens":20,`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := rlm.Usage{Calls: 3, Tokens: 120, PromptTokens: 100, CompletionTokens: 20, Cost: tc.cost, Iterations: 2, SubCalls: 1}
			b, err := json.Marshal(u)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b); got != counts+tc.want {
				t.Errorf("got  %s\nwant %s", got, counts+tc.want)
			}
			var back rlm.Usage
			if err := json.Unmarshal(b, &back); err != nil || back != u {
				t.Errorf("read back as %+v (%v); want %+v", back, err, u)
			}
		})
	}
}

// TestResultUsageJSON: a marshalled Result carries the usage object, not llm.Cost's fields.
func TestResultUsageJSON(t *testing.T) {
	b, err := json.Marshal(rlm.Result{Usage: rlm.Usage{Calls: 1, Cost: llm.Cost{Unknown: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Usage map[string]any }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Usage["cost_usd"]; !ok || v != nil || got.Usage["cost_unknown_calls"] != 1.0 {
		t.Errorf("usage %v; want cost_usd null and cost_unknown_calls 1", got.Usage)
	}
}

// TestUsageDocumented: the README's "Usage and cost in JSON" shows the usage object with the
// fields rlm.Usage marshals, in their order, and its table names each of them.
func TestUsageDocumented(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Usage and cost in JSON\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, block, ok2 := strings.Cut(sec, "```json\n\"usage\": ")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md: no \"### Usage and cost in JSON\" section with a ```json \"usage\": block")
	}
	documented := jsonKeys(t, []byte(block))
	out, err := json.Marshal(rlm.Usage{})
	if err != nil {
		t.Fatal(err)
	}
	if marshalled := jsonKeys(t, out); !slices.Equal(documented, marshalled) {
		t.Errorf("README.md shows the usage fields %v; rlm.Usage marshals %v", documented, marshalled)
	}
	for _, k := range documented {
		if !strings.Contains(sec, "`"+k+"`") {
			t.Errorf("README.md's usage table does not name %s", k)
		}
	}
}

// jsonKeys are the keys of a JSON object, in their order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.80q (%v)", b, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
