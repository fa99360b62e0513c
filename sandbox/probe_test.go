//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestVerdict(t *testing.T) {
	r := newReport()
	if got := r.Verdict().String(); got != "none" {
		t.Errorf("nothing present: %s, want none", got)
	}
	r.set(Rlimits, Applied, "")
	if got := r.Verdict().String(); got != "none" {
		t.Errorf("rlimits only: %s, want none", got)
	}
	for _, l := range AllLayers.List() {
		r.set(l, Available, "")
	}
	if got := r.Verdict().String(); got != "full" {
		t.Errorf("everything available: %s, want full", got)
	}
	r.set(PidNS, Missing, "x")
	r.set(Landlock, Off, "x")
	if got := r.Verdict().String(); got != "degraded(landlock,pid_ns)" {
		t.Errorf("got %s, want degraded(landlock,pid_ns)", got)
	}
	var l Layer
	must(t, l.UnmarshalText([]byte("landlock,pid_ns")))
	if l != Landlock|PidNS {
		t.Errorf("UnmarshalText = %v", l)
	}
}

// The probe applies nothing to the calling process.
func TestProbeLeavesCallerAlone(t *testing.T) {
	t0 := time.Now()
	rep := probe() // uncached
	b, _ := json.Marshal(rep)
	t.Logf("probe took %v: %s", time.Since(t0).Round(time.Microsecond), b)
	status, err := os.ReadFile("/proc/self/status")
	must(t, err)
	for _, want := range []string{"NoNewPrivs:\t0", "Seccomp:\t0"} {
		if !bytes.Contains(status, []byte(want)) {
			t.Errorf("after Probe the test process lacks %q", want)
		}
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	must(t, err)
	syscall.Close(fd)
	if _, err := os.ReadFile("/etc/hostname"); err != nil {
		t.Errorf("after Probe: %v", err)
	}
}

// A faked missing layer: the parent refuses before starting anything, naming the layer
// and the flag; with AllowDegraded the worker runs and reports the layer missing.
func TestRefusalBelowMinimum(t *testing.T) {
	for _, l := range []Layer{Landlock, Seccomp} {
		_, err := Command(context.Background(), Config{Simulate: l})
		if !errors.Is(err, fault.Denied) {
			t.Fatalf("simulated missing %s: err = %v, want fault.Denied", l, err)
		}
		for _, want := range []string{l.String(), "--allow-degraded", "degraded("} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not mention %q", err, want)
			}
		}
	}
	// A missing namespace is degraded but not refused.
	if _, err := Command(context.Background(), Config{Simulate: NetNS}); err != nil {
		t.Errorf("missing net_ns refused: %v", err)
	}

	tr := newTree(t)
	r := runWorker(t, tr.config(Config{Simulate: Landlock, AllowDegraded: true}), spec{Read: []string{tr.canary}})
	if lr := r.Report.Get(Landlock); lr.Status != Missing || !strings.Contains(lr.Detail, "simulated") {
		t.Errorf("landlock in the worker: %+v, want missing (simulated)", lr)
	}
	if v := r.Report.Verdict(); v.Missing&Landlock == 0 {
		t.Errorf("verdict %s does not name landlock", v)
	}
	wantOK(t, r, "read "+tr.canary) // nothing else stops reads as uid 65534 of a 0644 file
}

// The worker refuses on its own too, when started without the parent's check.
func TestWorkerRefusesBelowMinimum(t *testing.T) {
	cfg := Config{Simulate: Seccomp}.withDefaults()
	cfg.Env = []string{envChild + "={}"}
	cmd, err := command(context.Background(), cfg, 0)
	must(t, err)
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	if cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("worker exit %v (%v), want 3; output %s", cmd.ProcessState, err, out.String())
	}
	if !strings.Contains(out.String(), `"step":"apply"`) || !strings.Contains(out.String(), "--allow-degraded") {
		t.Errorf("worker output lacks the refusal: %s", out.String())
	}
}
