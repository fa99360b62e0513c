package worker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlm-sandbox/rlm/engine/js"
	"github.com/rlm-sandbox/rlm/taskset"
	"github.com/rlm-sandbox/rlm/wire"
)

// TestJSRewritesKeepAnswers: every JS cell of taskset, run over taskset's inputs with the real
// context tools, prints and answers the same with the JS engine's rewrites (for…of, array
// patterns, +=, split on white space) as without them.
func TestJSRewritesKeepAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs taskset's 47 JS cells twice")
	}
	tasks, err := taskset.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := taskset.Generate(dir, taskset.Seed); err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		cell, ok := task.Cells["js"]
		if !ok {
			continue
		}
		t.Run(task.Name, func(t *testing.T) {
			cfg := Config{Lang: "js", Validate: true}
			for _, in := range task.Inputs {
				p := filepath.Join(dir, in)
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cfg.Contexts = append(cfg.Contexts, p)
				cfg.ContextFDs = append(cfg.ContextFDs, int(f.Fd()))
			}
			lt, err := openContextTools(cfg)
			if err != nil {
				t.Fatal(err)
			}
			wk := &worker{local: lt, waiting: map[int]chan wire.Call{}}
			var got [2]string
			for i, asWritten := range []bool{false, true} {
				e, err := js.New(js.Config{Contexts: len(cfg.ContextFDs), AsWritten: asWritten}, wk)
				if err != nil {
					t.Fatal(err)
				}
				res, _, _ := wk.runCell(&jsRunner{e: e}, cfg, wire.Message{Op: wire.OpExec, ID: int64(i + 1), Code: cell})
				e.Close()
				if res.Err != nil {
					t.Fatalf("as written %v: %v", asWritten, res.Err)
				}
				got[i] = res.Stdout
				if res.Final != nil {
					got[i] += "\nFINAL " + *res.Final
				}
			}
			if got[0] != got[1] {
				t.Errorf("rewritten:\n%s\nas written:\n%s", got[0], got[1])
			}
		})
	}
}
