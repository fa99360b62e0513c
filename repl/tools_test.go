package repl

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// countingTool serves one session tool, lookup(key string) any, and counts its calls.
type countingTool struct{ calls atomic.Int32 }

func (h *countingTool) Call(_ context.Context, name string, args []any) (any, error) {
	h.calls.Add(1)
	return map[string]any{"key": args[0], "value": 42.0}, nil
}

// TestToolReplayedFromJournal: a session's own tool (engine.WithTools) is declared by the
// worker's engine from the registry the session sends, served by the session's Host, and its
// result journaled: after the worker is killed, the replay serves it without calling the Host.
func TestToolReplayedFromJournal(t *testing.T) {
	reg, err := engine.WithTools([]engine.Func{{Name: "lookup", Params: []engine.Param{{Name: "key", GoType: "string"}}, Result: "any",
		Doc: "a value by key", Place: engine.InParent, Budget: engine.ToolBudget, Replay: engine.Journaled}})
	if err != nil {
		t.Fatal(err)
	}
	for lang, cells := range map[string][2]string{
		"js": {`const v = lookup("k1"); print(v.key, v.value)`, `print(v.value + 1)`},
		"go": {"v := lookup(\"k1\").(map[string]any)\nfmt.Println(v[\"key\"], v[\"value\"])", `fmt.Println(v["value"].(float64) + 1)`},
	} {
		t.Run(lang, func(t *testing.T) {
			host := &countingTool{}
			o := realOptions(t, lang)
			o.API, o.Host = reg, host
			s := open(t, o)
			if r := run(t, s, cells[0]); r.Err != nil || r.Stdout != "k1 42\n" {
				t.Fatalf("first cell: %q %v", r.Stdout, r.Err)
			}
			killWorker(t, s)
			r := run(t, s, cells[1])
			if r.Err != nil || r.Stdout != "43\n" || !r.Rebuilt {
				t.Fatalf("after the kill: %q %v rebuilt %v", r.Stdout, r.Err, r.Rebuilt)
			}
			if n := host.calls.Load(); n != 1 {
				t.Errorf("the host served %d calls; the replay must serve the journaled result", n)
			}
			if !strings.Contains(strings.Join(s.Vars(), " "), "v") {
				t.Errorf("vars %v", s.Vars())
			}
		})
	}
}
