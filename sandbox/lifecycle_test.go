//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startIntermediate runs the test binary as a parent-of-worker that starts a busy worker
// with cfg; it returns the intermediate and the worker's pid.
func startIntermediate(t *testing.T, cfg Config, noPdeathsig bool) (*exec.Cmd, int) {
	t.Helper()
	return startIntermediateSpec(t, cfg, spec{Mode: "busy"}, noPdeathsig)
}

func startIntermediateSpec(t *testing.T, cfg Config, worker spec, noPdeathsig bool) (*exec.Cmd, int) {
	t.Helper()
	sp, _ := json.Marshal(worker)
	b, _ := json.Marshal(midSpec{Config: cfg, Env: []string{envChild + "=" + string(sp)}, NoPdeathsig: noPdeathsig})
	exe, err := os.Executable()
	must(t, err)
	mid := exec.Command(exe)
	mid.Env = append(os.Environ(), envIntermediate+"="+string(b))
	out, err := mid.StdoutPipe()
	must(t, err)
	must(t, mid.Start())
	t.Cleanup(func() { mid.Process.Kill(); mid.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("intermediate printed nothing")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil {
		t.Fatalf("intermediate: %q", sc.Text())
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return mid, pid
}

// Pdeathsig: when the worker's parent dies, a worker stuck in a busy loop dies too.
func TestWorkerDiesWithParent(t *testing.T) {
	for _, cfg := range []Config{{}, noLayers()} {
		mid, pid := startIntermediate(t, cfg, false)
		must(t, mid.Process.Kill())
		mid.Wait()
		if !gone(pid, 3*time.Second) {
			t.Errorf("disable=%v: worker %d outlived its parent", cfg.Disable, pid)
		}
	}
	// Control: without Pdeathsig the busy worker survives its parent.
	mid, pid := startIntermediate(t, noLayers(), true)
	must(t, mid.Process.Kill())
	mid.Wait()
	if gone(pid, 500*time.Millisecond) {
		t.Error("control: worker without Pdeathsig died with its parent; the test proves nothing")
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// KillGroup kills the worker and what it started (here with fork allowed: no seccomp).
func TestKillGroupKillsGrandchildren(t *testing.T) {
	cmd, gc, _ := startWorker(t, noLayers(), spec{Mode: "grandchild"}, "grandchild")
	grandchild, err := strconv.Atoi(gc.Val)
	must(t, err)
	must(t, KillGroup(cmd))
	cmd.Wait()
	if !gone(grandchild, 3*time.Second) {
		t.Errorf("grandchild %d survived KillGroup", grandchild)
	}
	// Control: killing the worker alone leaves the grandchild running.
	cmd, gc, _ = startWorker(t, noLayers(), spec{Mode: "grandchild"}, "grandchild")
	grandchild, _ = strconv.Atoi(gc.Val)
	must(t, cmd.Process.Kill())
	cmd.Wait()
	if gone(grandchild, 300*time.Millisecond) {
		t.Error("control: the grandchild died with the worker alone")
	}
	syscall.Kill(grandchild, syscall.SIGKILL)
}
