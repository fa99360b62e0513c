package llmtest_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
	"github.com/rlm-sandbox/rlm/llm/replay"
)

// TestScriptDrivesAConversation: the script of the package documentation
// drives a root model through two cells with the real client.
func TestScriptDrivesAConversation(t *testing.T) {
	srv, err := llmtest.NewFromFile("testdata/root_two_cells.json")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "sk-test-key-0000000000", Models: []string{"root"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: "system", Content: "You drive a REPL."}, {Role: "user", Content: "Question: how many errors?"}}
	want := []string{"print(search(context, \"ERROR\"))", "FINAL(\"3 errors\")"}
	for i, w := range want {
		resp, err := c.Complete(context.Background(), llm.Request{Agent: "root", Messages: msgs})
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if !strings.Contains(resp.Text, "```go\n"+w+"\n```") {
			t.Fatalf("turn %d: %q, want a go cell with %s", i+1, resp.Text, w)
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: resp.Text},
			llm.Message{Role: "user", Content: "Output: [{line 3 ERROR disk full}]"})
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

// TestTestOnlyFields: every field of a script that package replay does not play is one it
// refuses as test-only (its list is kept by hand), and a script with only replay's fields plays
// in both.
func TestTestOnlyFields(t *testing.T) {
	played := map[string]bool{"text": true, "thinking": true, "when": true, "model": true, "times": true, "latency": true, "chunk_delay": true}
	rt := reflect.TypeFor[llmtest.Reply]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "-" || played[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			in := `[{"` + name + `": null}]`
			if _, err := llmtest.ParseScript([]byte(in)); err != nil {
				t.Errorf("llmtest.ParseScript(%s): %v, want it read", in, err)
			}
			_, err := replay.Parse([]byte(in))
			if got, want := fmt.Sprint(err), `line 1: reply 1: "`+name+`" is a test-only field`; !strings.HasPrefix(got, want) {
				t.Errorf("replay.Parse(%s) = %s, want %s…", in, got, want)
			}
		})
	}
	both := `[{"text": "a", "thinking": "b", "when": "c", "model": "d", "times": 2, "latency": "1ms", "chunk_delay": "1ms"}]`
	if _, err := replay.Parse([]byte(both)); err != nil {
		t.Errorf("replay.Parse: %v", err)
	}
	if _, err := llmtest.ParseScript([]byte(both)); err != nil {
		t.Errorf("llmtest.ParseScript: %v", err)
	}
}
