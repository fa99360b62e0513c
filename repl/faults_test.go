package repl

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultsWithRealEngines: a memory bomb, a stack bomb, a runaway loop and a kill -9 in the
// middle of a cell, in confined workers with the real engines. Each ends with the session usable
// and its state rebuilt (or never lost).
func TestFaultsWithRealEngines(t *testing.T) {
	// says is what the error must tell the model to do (one of the |-separated fixes), where it
	// says it. A JS memory bomb on a loaded machine may meet the time limit first.
	faults := map[string][]struct{ name, code, says string }{
		"go": {
			{"memory bomb", "var keep [][]byte\nfor i := 0; i < 1<<20; i++ {\n\tkeep = append(keep, make([]byte, 1<<20))\n}", "keep less in memory at once"},
			{"stack bomb", "func down(n int) int { return down(n+1) + 1 }\ndown(0)", "write it as a loop"},
			{"runaway loop", "for i := 0; i >= 0; i++ {\n}", "make it do less work per cell"},
		},
		"js": {
			{"memory bomb", "const keep = [];\nfor (let i = 0; i < 1e7; i++) keep.push(\"x\".repeat(1e6) + i);", "keep less in memory|make it do less work per cell"},
			{"stack bomb", "function down(n) { return down(n + 1) + 1 }\ndown(0);", ""},
			{"runaway loop", "for (let i = 0; i >= 0; i++) {}", "make it do less work per cell"},
		},
	}
	state := map[string][2]string{"go": {"kept := 41", "fmt.Println(kept + 1)"}, "js": {"var kept = 41", "print(kept + 1)"}}
	for lang, cases := range faults {
		o := confinedOptions(t, lang)
		o.CellTimeout, o.KillGrace = 2*time.Second, 500*time.Millisecond
		s := open(t, o)
		if r := run(t, s, state[lang][0]); r.Err != nil {
			t.Fatal(r.Err)
		}
		for _, f := range cases {
			r := run(t, s, f.code)
			if r.Err == nil || r.Lost != nil {
				t.Errorf("%s %s: err %v lost %v; want an error and nothing lost", lang, f.name, r.Err, r.Lost)
			} else if !slices.ContainsFunc(strings.Split(f.says, "|"), func(s string) bool { return strings.Contains(r.Err.Error(), s) }) {
				t.Errorf("%s %s: %v; want it to say %q", lang, f.name, r.Err, f.says)
			}
			if next := run(t, s, state[lang][1]); strings.TrimSpace(next.Stdout) != "42" {
				t.Errorf("%s %s: the session lost its state: %q %v", lang, f.name, next.Stdout, next.Err)
			}
			t.Logf("%s %s: %v (rebuilt: %v)", lang, f.name, firstLineOf(r.Err), r.Rebuilt)
		}
		// kill -9 in the middle of a cell (the worker's pid read here, before the cell: the
		// session may replace its worker while the cell runs).
		pid := s.w.cmd.Process.Pid
		go func() {
			time.Sleep(200 * time.Millisecond)
			syscall.Kill(pid, syscall.SIGKILL)
		}()
		r := run(t, s, faults[lang][2].code)
		if !r.Rebuilt || r.Lost != nil {
			t.Errorf("%s kill -9 mid-cell: err %v rebuilt %v lost %v", lang, r.Err, r.Rebuilt, r.Lost)
		}
		if next := run(t, s, state[lang][1]); strings.TrimSpace(next.Stdout) != "42" {
			t.Errorf("%s after kill -9: %q %v", lang, next.Stdout, next.Err)
		}
	}
}

func firstLineOf(err error) string {
	if err == nil {
		return "<nil>"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
