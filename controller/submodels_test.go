package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// TestSubCallsPickTheirModel: over real HTTP, the root model is on one server and the sub-call
// model on another. llm_query without options goes to the sub-call model, with options to the
// model named (here the root's, on the first server), and an unknown name fails that call with
// the configured names while the run goes on, without counting against the sub-call cap.
func TestSubCallsPickTheirModel(t *testing.T) {
	cells := map[string]string{
		"js": `const a = llm_query("q1");
const b = llm_query_batched(["q2"], {model: "big"})[0];
let e = "";
try { llm_query("q3", {model: "nope"}) } catch (x) { e = x.message }
FINAL([a, b, e].join("|"))`,
		"go": `a := llm_query("q1")
b := llm_query_batched([]string{"q2"}, Opts{Model: "big"})[0]
e := ""
func() {
	defer func() { e = fmt.Sprint(recover()) }()
	llm_query("q3", Opts{Model: "nope"})
}()
FINAL(a + "|" + b + "|" + e)`,
	}
	for lang, cell := range cells {
		t.Run(lang, func(t *testing.T) {
			root := llmtest.New(
				llmtest.Reply{When: "^q2$", Text: "from big", Model: "big"},
				llmtest.Reply{Text: fenced(lang, cell), Model: "big"},
			)
			defer root.Close()
			sub := llmtest.New(llmtest.Reply{Text: "from small", Model: "small-id"})
			defer sub.Close()
			client, err := llm.New(llm.Config{BaseURL: root.URL(), Models: []string{"big"}, SubModels: []string{"small"},
				Endpoints: map[string]llm.Endpoint{"b": {BaseURL: sub.URL()}},
				Catalog:   map[string]llm.ModelConfig{"small": {ID: "small-id", Endpoint: "b"}}})
			if err != nil {
				t.Fatal(err)
			}
			cfg := cfgFor(t, lang, client)
			cfg.Mode = Loop
			out := Run(context.Background(), cfg)
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			parts := strings.SplitN(out.Answer, "|", 3)
			if len(parts) != 3 || parts[0] != "from small" || parts[1] != "from big" {
				t.Fatalf("answer %q; want the sub-call model's, then the picked model's answer", out.Answer)
			}
			if want := `model "nope" is not configured for this run; pick one of big, small, or leave the options out (small answers then)`; !strings.Contains(parts[2], want) {
				t.Errorf("unknown model: %q, want it to contain %q", parts[2], want)
			}
			if out.SubCalls != 2 {
				t.Errorf("sub-calls = %d, want 2 (the refused pick is not one)", out.SubCalls)
			}
			if n := len(sub.Requests()); n != 1 {
				t.Errorf("the sub-call server got %d requests, want 1", n)
			}
			if n := len(root.Requests()); n != 2 {
				t.Errorf("the root server got %d requests, want 2 (the root call and the picked sub-call)", n)
			}
		})
	}
}
