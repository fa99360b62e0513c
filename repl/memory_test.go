//go:build linux && !rlm_portable

package repl

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
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

// TestJSHeapFollowsWorkerMemory: the JavaScript engine stops a cell at half the worker's memory,
// the value the system prompt states (JSHeapLimit): a cell that keeps about 320 MiB live is
// stopped with the heap error in the default worker (512 MiB: limit 256 MiB) and runs in a
// 1 GiB one.
func TestJSHeapFollowsWorkerMemory(t *testing.T) {
	if got := JSHeapLimit(0); got != 256<<20 {
		t.Errorf("JSHeapLimit(0) = %d, want 256 MiB", got)
	}
	const cell = `const parts = []; for (let i = 0; i < 40; i++) parts.push("x".repeat(8 << 20) + i); print(parts.length)`
	for _, tc := range []struct {
		mem     int64
		stopped bool
	}{{0, true}, {1 << 30, false}} {
		o := confinedOptions(t, "js")
		o.WorkerMemory, o.CellTimeout = tc.mem, time.Minute // a loaded machine is slow to fill 320 MiB
		s := open(t, o)
		r := s.Exec(t.Context(), cell)
		stopped := r.Err != nil && strings.Contains(r.Err.Error(), "heap")
		if stopped != tc.stopped || !tc.stopped && (r.Err != nil || r.Stdout != "40\n") {
			t.Errorf("worker memory %d: %q, %v; want stopped by the heap limit: %v", tc.mem, r.Stdout, r.Err, tc.stopped)
		}
		s.Close()
	}
}
