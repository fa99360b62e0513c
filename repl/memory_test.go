//go:build linux && !rlm_portable

package repl

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
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
		return procField(t, pid, "limits", "Max address space", 3)
	}
	def, small := limit(0), limit(100<<20)
	if got, want := def-small, int64(512-100)<<20; got != want {
		t.Errorf("RLIMIT_AS with the default memory minus with 100 MiB = %d, want %d (default %d)", got, want, def)
	}
}

// TestJSHeapFollowsWorkerMemory: the JavaScript engine stops a cell at half the worker's memory,
// the value the system prompt states (limits.JSHeap): a cell that keeps about 320 MiB live is
// stopped with the heap error in the default worker (512 MiB: limit 256 MiB) and runs in a
// 1 GiB one; one that keeps about 100 MiB is stopped in a 128 MiB worker (limit 64 MiB), where
// it once crashed the worker instead.
func TestJSHeapFollowsWorkerMemory(t *testing.T) {
	if got := limits.JSHeap(0); got != 256<<20 {
		t.Errorf("limits.JSHeap(0) = %d, want 256 MiB", got)
	}
	const cell = `const parts = []; for (let i = 0; i < %d; i++) parts.push("x".repeat(8 << 20) + i); print(parts.length)`
	for _, tc := range []struct {
		mem     int64
		pieces  int
		stopped bool
	}{{0, 40, true}, {1 << 30, 40, false}, {128 << 20, 13, true}} {
		o := confinedOptions(t, "js")
		o.WorkerMemory, o.CellTimeout = tc.mem, time.Minute // a loaded machine is slow to fill 320 MiB
		s := open(t, o)
		r := s.Exec(t.Context(), fmt.Sprintf(cell, tc.pieces))
		stopped := errors.Is(r.Err, fault.Limit) && !errors.Is(r.Err, fault.Crashed) && strings.Contains(r.Err.Error(), "heap passed")
		if stopped != tc.stopped || !tc.stopped && (r.Err != nil || r.Stdout != fmt.Sprintf("%d\n", tc.pieces)) {
			t.Errorf("worker memory %d: %q, %v; want stopped by the heap limit: %v", tc.mem, r.Stdout, r.Err, tc.stopped)
		}
		s.Close()
	}
}

// TestWorkerAddressSpaceRoom: what a started worker has left under RLIMIT_AS covers its whole
// memory cap plus room for more threads, so a cell meets the heap limit (or the collector's soft
// limit) before the address space runs out. It failed when glibc gave each thread of a cgo build
// its own 64 MiB arena (see workerMallocArenas in package sandbox): 440 MiB left of 2 GiB; and,
// with GOMAXPROCS=48 and parallel searches (24 to 35 threads of 8 MiB C stacks each), before the
// worker set its threads' stacks to 1 MiB and allowed for them (see threadStacks there): 458 to
// 611 MiB left.
func TestWorkerAddressSpaceRoom(t *testing.T) {
	const threads = 128 << 20 // 16 more threads' stacks
	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("alpha beta gamma ERROR delta\n", 600_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mem   int64
		procs string
	}{{0, ""}, {128 << 20, ""}, {0, "48"}} {
		o := confinedOptions(t, "js")
		o.WorkerMemory, o.CellTimeout = tc.mem, time.Minute
		cell := `print(1)`
		if tc.procs != "" {
			o.Contexts = []string{big}
			o.Worker.Env = append(o.Worker.Env, "GOMAXPROCS="+tc.procs)
			cell = `for (let i = 0; i < 5; i++) { search(context, "ERR[O]R"); count(context, "delta") }`
		}
		s := open(t, o)
		if r := run(t, s, cell); r.Err != nil {
			t.Fatal(r.Err)
		}
		s.mu.Lock()
		pid := s.w.cmd.Process.Pid
		s.mu.Unlock()
		limit := procField(t, pid, "limits", "Max address space", 3)
		size := procField(t, pid, "status", "VmSize:", 1) << 10
		mem := cmp.Or(tc.mem, 512<<20)
		if room := limit - size; room < mem+threads {
			t.Errorf("worker memory %d MiB, GOMAXPROCS %q, %d threads: %d MiB of address space left (limit %d MiB, in use %d MiB), want at least %d MiB",
				mem>>20, tc.procs, procField(t, pid, "status", "Threads:", 1), room>>20, limit>>20, size>>20, (mem+threads)>>20)
		}
		s.Close()
	}
}

// procField reads the number in field i of the line of /proc/PID/file that starts with prefix.
func procField(t *testing.T, pid int, file, prefix string, i int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, prefix) && len(f) > i {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no %q in /proc/%d/%s", prefix, pid, file)
	return 0
}
