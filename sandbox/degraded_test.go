//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// The worker macOS runs (degraded.go) is measured here: the test worker confines itself with
// applyDegraded instead of Apply. The parent creates no namespace (macOS has none), so the
// worker's parent pid is the real one, as it is there.

// degraded is the Config of a worker run the macOS way, allowed to run (verdict none).
func degraded() Config { return Config{Disable: Namespaces, AllowDegraded: true} }

func TestDegradedReport(t *testing.T) {
	r := probeDegraded()
	if v := r.Verdict(); v.Level != "none" || v.Missing != AllLayers&^Rlimits {
		t.Errorf("verdict %s (missing %s), want none with everything but rlimits missing", v, v.Missing)
	}
	err := r.Check(0, false)
	if !errors.Is(err, fault.Denied) {
		t.Fatalf("Check without AllowDegraded = %v, want fault.Denied", err)
	}
	for _, want := range []string{"none", "landlock", "seccomp", "no_new_privs", "--allow-degraded"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not mention %q", err, want)
		}
	}
	if err := r.Check(0, true); err != nil {
		t.Errorf("Check with AllowDegraded = %v", err)
	}
	sum := strings.Join(r.Summary(0), "\n")
	for _, want := range []string{"untrusted code: refused", "separate worker process", "missing landlock, which would stop reading",
		"missing net_ns, which would stop the network", "all of your user's rights"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

// Without AllowDegraded the macOS worker refuses to run anything: it exits before the scenario.
func TestDegradedWorkerRefuses(t *testing.T) {
	cfg := degraded()
	cfg.AllowDegraded = false
	r := runWorker(t, cfg, spec{Degraded: true, Read: []string{"/etc/hostname"}})
	if r.State.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3 (refused); stderr %q", r.State, r.Stderr)
	}
	if s := r.step(t, "apply"); s.OK || !strings.Contains(s.Err, "--allow-degraded") {
		t.Errorf("apply step %+v, want a refusal naming --allow-degraded", s)
	}
	if _, ran := r.Steps["read /etc/hostname"]; ran {
		t.Error("the refused worker ran its scenario")
	}
	if v := r.Report.Verdict(); v.Level != "none" {
		t.Errorf("verdict %s, want none", v)
	}
}

// The rlimits macOS gets: a write past the size cap fails with EFBIG and opening more files
// than allowed with EMFILE; descriptors leaked without close-on-exec are closed (through
// /dev/fd, as on macOS).
func TestDegradedRlimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	leak, err := syscall.Open("/etc/hostname", syscall.O_RDONLY, 0) // no O_CLOEXEC
	must(t, err)
	defer syscall.Close(leak)
	cfg := degraded()
	cfg.FileSizeBytes, cfg.OpenFiles = 1<<20, 16
	fds := runWorker(t, cfg, spec{Degraded: true, FDs: []int{leak}}) // before OpenMany reuses the number
	wantErrno(t, fds, "fd "+strconv.Itoa(leak), syscall.EBADF)
	sp := spec{Degraded: true, Write: []string{big}, WriteSize: 2 << 20, OpenMany: 32}
	on := runWorker(t, cfg, sp)
	wantApplied(t, on, Rlimits)
	if lr := on.Report.Get(Landlock); lr.Status != Missing {
		t.Errorf("landlock %+v, want missing", lr)
	}
	wantErrno(t, on, "write "+big, syscall.EFBIG)
	wantErrno(t, on, "open many", syscall.EMFILE)
	cfg.Disable |= Rlimits
	off := runWorker(t, cfg, sp)
	wantOK(t, off, "write "+big)
	wantOK(t, off, "open many")
}

// Without RLIMIT_AS the memory watchdog ends a worker that holds far more than its cap.
func TestDegradedMemoryWatchdog(t *testing.T) {
	cfg := degraded()
	cfg.MemoryBytes = 64 << 20
	sp := spec{Degraded: true, Mode: "alloc-hold", Alloc: 1 << 30} // over 64 MiB + WatchdogSlackBytes
	on := runWorker(t, cfg, sp)
	wantApplied(t, on, Rlimits)
	ws, _ := on.State.Sys().(syscall.WaitStatus)
	if _, held := on.Steps["held"]; held || !ws.Signaled() || !strings.Contains(on.Stderr, "fatal error: out of memory") {
		t.Errorf("1 GiB under a 64 MiB cap: steps %v, exit %v, stderr %.300q", on.Steps, on.State, on.Stderr)
	}
	cfg.Disable |= Rlimits
	off := runWorker(t, cfg, sp)
	wantOK(t, off, "held")
}

// At the CPU limit macOS sends SIGXCPU, and nothing more; the worker ends itself on it.
func TestDegradedCPU(t *testing.T) {
	for _, tc := range []struct {
		name    string
		disable Layer
		dies    bool
	}{{"rlimits", 0, true}, {"control: no rlimits", Rlimits, false}} {
		cfg := degraded()
		cfg.Disable |= tc.disable
		b, _ := json.Marshal(spec{Degraded: true, Mode: "busy"})
		cfg.Env = []string{envChild + "=" + string(b)}
		cmd, err := Command(t.Context(), cfg)
		must(t, err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		sc := bufio.NewScanner(out)
		for sc.Scan() && !strings.Contains(sc.Text(), `"busy"`) {
		}
		must(t, syscall.Kill(cmd.Process.Pid, syscall.SIGXCPU))
		died := make(chan struct{})
		go func() { cmd.Wait(); close(died) }()
		select {
		case <-died:
			if !tc.dies {
				t.Errorf("%s: the worker died at SIGXCPU (%v); Go ignores it, so the control proves nothing", tc.name, cmd.ProcessState)
			} else if !strings.Contains(stderr.String(), "fatal error: CPU time limit") {
				t.Errorf("%s: died (%v) without saying why: %q", tc.name, cmd.ProcessState, stderr.String())
			}
		case <-time.After(3 * time.Second):
			if tc.dies {
				t.Errorf("%s: the worker outlived SIGXCPU", tc.name)
			}
			KillGroup(cmd)
			<-died
		}
	}
}

// macOS has no Pdeathsig: a busy worker whose parent dies sees its parent pid change and ends.
func TestDegradedWorkerDiesWithParent(t *testing.T) {
	mid, pid := startIntermediateSpec(t, degraded(), spec{Degraded: true, Mode: "busy"}, true)
	must(t, mid.Process.Kill())
	mid.Wait()
	if !gone(pid, 3*time.Second) {
		t.Errorf("worker %d outlived its parent", pid)
	}
	// Control: the same worker confined by Apply (no parent watchdog), without Pdeathsig,
	// survives its parent.
	cfg := noLayers()
	mid, pid = startIntermediateSpec(t, cfg, spec{Mode: "busy"}, true)
	must(t, mid.Process.Kill())
	mid.Wait()
	if gone(pid, 500*time.Millisecond) {
		t.Error("control: a worker without the watchdog died with its parent; the test proves nothing")
	}
	syscall.Kill(pid, syscall.SIGKILL)
}
