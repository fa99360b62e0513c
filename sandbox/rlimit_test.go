//go:build linux

package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RLIMIT_AS alone: an allocation past memory + Go headroom kills the worker (Go cannot
// recover from a failed heap growth); the parent sees a crash, not a hang.
func TestRlimitAS(t *testing.T) {
	cfg := only(Rlimits)
	cfg.MemoryBytes = 64 << 20
	sp := spec{Mode: "alloc", Alloc: 2 << 30}
	on := runWorker(t, cfg, sp)
	wantApplied(t, on, Rlimits)
	// "fatal error: out of memory" (or, under -race, "too many address space collisions").
	if _, ok := on.Steps["alloc"]; ok || on.State.Success() || !strings.Contains(on.Stderr, "fatal error") {
		t.Errorf("2 GiB under a 64 MiB cap: steps %v, exit %v, stderr %.200q", on.Steps, on.State, on.Stderr)
	}
	off := runWorker(t, noLayers(), sp)
	wantOK(t, off, "alloc")
}

// RLIMIT_FSIZE and RLIMIT_NOFILE alone: a write past the size cap fails with EFBIG (Go
// ignores SIGXFSZ), and opening more files than allowed fails with EMFILE.
func TestRlimitFileSizeAndCount(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	cfg := only(Rlimits)
	cfg.FileSizeBytes, cfg.OpenFiles = 1<<20, 16
	sp := spec{Write: []string{big}, WriteSize: 2 << 20, OpenMany: 32}
	on := runWorker(t, cfg, sp)
	wantApplied(t, on, Rlimits)
	wantErrno(t, on, "write "+big, syscall.EFBIG)
	wantErrno(t, on, "open many", syscall.EMFILE)
	off := runWorker(t, noLayers(), sp)
	wantOK(t, off, "write "+big)
	wantOK(t, off, "open many")
}

// RLIMIT_CPU alone is a backstop: soft = hard, so the kernel sends SIGKILL at the limit.
func TestRlimitCPU(t *testing.T) {
	cfg := only(Rlimits)
	cfg.CPUSeconds = 1
	cmd, busy, _ := startWorker(t, cfg, spec{Mode: "busy"}, "busy")
	start := time.Now()
	err := cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("busy worker with a 1 s CPU limit ended with %v (%v), want SIGKILL", err, cmd.ProcessState)
	}
	t.Logf("killed %v after the busy loop started (pid %s)", time.Since(start).Round(time.Millisecond), busy.Val)

	off, _, _ := startWorker(t, noLayers(), spec{Mode: "busy"}, "busy")
	if gone(off.Process.Pid, 1500*time.Millisecond) {
		t.Error("control: the busy worker died without a CPU limit")
	}
}

// no_new_privs alone reaches every thread, including those that existed before Apply.
func TestNoNewPrivsAlone(t *testing.T) {
	on := runWorker(t, only(NoNewPrivs), spec{NNP: true})
	wantApplied(t, on, NoNewPrivs)
	got := on.step(t, "nnp threads").Val
	var n, m int
	fmt.Sscanf(got, "%d/%d", &n, &m)
	if n != m || m < 2 {
		t.Errorf("threads with NoNewPrivs: %s (%s), want all of them", got, on.Report.Get(NoNewPrivs).Detail)
	}
	off := runWorker(t, noLayers(), spec{NNP: true})
	if got := off.step(t, "nnp threads").Val; !strings.HasPrefix(got, "0/") {
		t.Errorf("control: threads with NoNewPrivs: %s, want none", got)
	}
}
