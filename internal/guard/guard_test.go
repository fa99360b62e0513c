package guard

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

func TestCheckChain(t *testing.T) {
	tests := []struct {
		name     string
		chain    []string
		depth    int
		depthCap int
		wantErr  string
	}{
		{name: "rlm", depth: 1},
		{name: "c", chain: []string{"a", "b"}, depth: 3},
		{name: "a", chain: []string{"a"}, depth: 2, wantErr: "agent loop detected: a → a"},
		{name: "b", chain: []string{"a", "b", "c"}, depth: 4, wantErr: "agent loop detected: b → c → b"},
		{name: "x", depth: 6, wantErr: "recursion depth 6 exceeds SFA_MAX_DEPTH=5"},
		{name: "x", depth: 3, depthCap: 2, wantErr: "exceeds SFA_MAX_DEPTH=2"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.chain, ",")+"/"+tt.name, func(t *testing.T) {
			err := CheckChain(tt.name, tt.chain, tt.depth, tt.depthCap)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v; want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, fault.Limit) {
				t.Fatalf("err = %v; want a limit error %q", err, tt.wantErr)
			}
		})
	}
}

// writePID writes a PID file of process pid in home's run directory, with the lines given after
// the PID.
func writePID(t *testing.T, home, task string, pid int, rest ...string) string {
	t.Helper()
	p := filepath.Join(home, "run", task+".pid")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(append([]string{strconv.Itoa(pid)}, rest...), "\n") + "\n"
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLockRun(t *testing.T) {
	home := t.TempDir()
	// A live model run of another process (the test's parent, the go command; a PID file
	// without a role, as older versions wrote) refuses a model run at the default count, 1.
	other := writePID(t, home, "other", os.Getppid())
	_, err := LockRun(home, "t1", RunLock{Model: true})
	if err == nil || !errors.Is(err, fault.Limit) {
		t.Fatalf("a model run while another process has one: %v; want a limit refusal", err)
	}
	for _, want := range []string{"another model run is going in RLM_HOME " + home, "(task other, PID " + strconv.Itoa(os.Getppid()) + ")", "at most 1 may run at once", "--max-runs 2, RLM_MAX_RUNS=2 or limits.max_runs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "run", "t1.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left its PID file")
	}
	// At a count of 2 it runs.
	l2, err := LockRun(home, "t2", RunLock{Model: true, Max: 2})
	if err != nil {
		t.Fatalf("a second model run at --max-runs 2: %v", err)
	}
	l2.Release()
	// A sub-run is not refused, and a run without a model neither, until it claims one.
	child, err := LockRun(home, "t3", RunLock{Nested: true, Model: true})
	if err != nil {
		t.Fatalf("a sub-run must not be refused: %v", err)
	}
	child.Release()
	script, err := LockRun(home, "t4", RunLock{})
	if err != nil {
		t.Fatalf("a script run must not be refused: %v", err)
	}
	if err := script.Claim(); !errors.Is(err, fault.Limit) {
		t.Fatalf("a script's first model call while another process has a model run: %v; want a refusal", err)
	}
	os.Remove(other)
	if err := script.Claim(); err != nil {
		t.Fatalf("a script's first model call with no other run: %v", err)
	}
	if _, r, _ := readPIDFile(filepath.Join(home, "run", "t4.pid")); r != roleModel {
		t.Errorf("a claimed script run is recorded as %q; want %q", r, roleModel)
	}
	script.Release()
}

// TestLockRunCounts: what counts against the count: model runs of other processes, once per
// process; not this process's runs, sub-runs, scripts, or dead processes.
func TestLockRunCounts(t *testing.T) {
	home := t.TempDir()
	writePID(t, home, "script", os.Getppid(), "script")
	writePID(t, home, "sub", os.Getppid(), "nested")
	l1, err := LockRun(home, "t1", RunLock{Model: true})
	if err != nil {
		t.Fatalf("another process's script and sub-run refused a model run: %v", err)
	}
	defer l1.Release()
	l2, err := LockRun(home, "t2", RunLock{Model: true})
	if err != nil {
		t.Fatalf("a second model run of the same process was refused: %v", err)
	}
	l2.Release()
	l1.Release()
	if _, err := os.Stat(filepath.Join(home, "run", "t1.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Release left the PID file")
	}
	// Two model runs of one other process count once: a count of 2 lets a run in.
	writePID(t, home, "a", os.Getppid(), "model")
	writePID(t, home, "b", os.Getppid(), "model")
	l3, err := LockRun(home, "t3", RunLock{Model: true, Max: 2})
	if err != nil {
		t.Fatalf("two runs of one other process counted twice: %v", err)
	}
	l3.Release()
	// A PID file of a dead process is stale: removed, not a refusal.
	stale := writePID(t, home, "old", 999999999, "model")
	os.Remove(filepath.Join(home, "run", "a.pid"))
	os.Remove(filepath.Join(home, "run", "b.pid"))
	l5, err := LockRun(home, "t5", RunLock{Model: true})
	if err != nil {
		t.Fatalf("a stale PID file refused the run: %v", err)
	}
	defer l5.Release()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale PID file is still there")
	}
	if pid, err := ReadPID(filepath.Join(home, "run", "t5.pid")); err != nil || pid != os.Getpid() {
		t.Errorf("ReadPID of a run's file: %d, %v; want %d", pid, err, os.Getpid())
	}
}

// TestEmergencyStopBeforeEachCall proves the check runs before every model call, not only at
// start: the file appears between two calls, and the second never reaches the model.
func TestEmergencyStopBeforeEachCall(t *testing.T) {
	home := t.TempDir()
	calls := 0
	m := Model{Home: home, Next: modelFunc(func() { calls++ })}
	if _, err := m.Complete(context.Background(), llm.Request{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "EMERGENCY_STOP"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := m.Complete(context.Background(), llm.Request{})
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "EMERGENCY_STOP exists") || calls != 1 {
		t.Fatalf("got %v after %d calls; want a refusal before the second call", err, calls)
	}
}

// TestModelCheck: a Check that refuses stops the call before the model.
func TestModelCheck(t *testing.T) {
	calls := 0
	refuse := fault.New(fault.Limit, "shared budget spent")
	m := Model{Home: t.TempDir(), Next: modelFunc(func() { calls++ }), Check: func() error { return refuse }}
	if _, err := m.Complete(context.Background(), llm.Request{}); !errors.Is(err, refuse) || calls != 0 {
		t.Fatalf("got %v after %d calls; want the Check's refusal and no call", err, calls)
	}
}

func TestCheckDisk(t *testing.T) {
	home := t.TempDir()
	if err := CheckDisk(home, 0); err != nil {
		t.Fatalf("the default minimum refused a test machine's temp dir: %v", err)
	}
	err := CheckDisk(home, 1<<40)
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "a run needs at least 1099511627776 MB") {
		t.Fatalf("got %v; want a limit error with the figures", err)
	}
}

type modelFunc func()

func (f modelFunc) Complete(context.Context, llm.Request) (llm.Response, error) {
	f()
	return llm.Response{Text: "ok"}, nil
}

// TestAliveZombie: a running child is alive; one that has exited is not, even before its parent
// collects it (kill(pid, 0) still succeeds on a zombie).
func TestAliveZombie(t *testing.T) {
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	if !Alive(live.Process.Pid) {
		t.Error("a running child is not alive")
	}
	dead := exec.Command("true")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	for end := time.Now().Add(5 * time.Second); Alive(pid) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid) {
		t.Error("an exited child not yet collected (a zombie) is alive")
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("kill(pid, 0) on the zombie: %v; the test meant to look at a zombie", err)
	}
	dead.Wait()
	if Alive(pid) {
		t.Error("a collected child is alive")
	}
}
