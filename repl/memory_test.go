package repl

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestWorkerMemory: Options.WorkerMemory reaches the worker's rlimits. The worker's address
// space limit is MemoryBytes plus fixed headroom, so two sessions that differ only in
// WorkerMemory have limits that differ by exactly the difference.
func TestWorkerMemory(t *testing.T) {
	limit := func(mem int64) int64 {
		o := confinedOptions(t, "go")
		o.WorkerMemory = mem
		s := open(t, o)
		if r := run(t, s, `print(1)`); r.Err != nil {
			t.Fatal(r.Err)
		}
		s.mu.Lock()
		pid := s.w.cmd.Process.Pid
		s.mu.Unlock()
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); strings.HasPrefix(line, "Max address space") && len(f) > 4 {
				n, err := strconv.ParseInt(f[3], 10, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				return n
			}
		}
		t.Fatalf("no address space limit in\n%s", b)
		return 0
	}
	def, small := limit(0), limit(100<<20)
	if got, want := def-small, int64(512-100)<<20; got != want {
		t.Errorf("RLIMIT_AS with the default memory minus with 100 MiB = %d, want %d (default %d)", got, want, def)
	}
}
