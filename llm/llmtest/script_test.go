package llmtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
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
