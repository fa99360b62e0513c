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

func TestLockRun(t *testing.T) {
	home := t.TempDir()
	other := filepath.Join(home, "run", "other.pid")
	// A live run of another process (the test's parent, the go command) refuses a run.
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(strconv.Itoa(os.Getppid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LockRun(home, "t1", false); err == nil || !strings.Contains(err.Error(), "Another task is running (PID") || !errors.Is(err, fault.Limit) {
		t.Fatalf("a run while another process runs: %v; want a refusal", err)
	}
	child, err := LockRun(home, "t2", true)
	if err != nil {
		t.Fatalf("a sub-run must not be refused: %v", err)
	}
	child.Release()
	os.Remove(other)
	// Runs of one process may share the home.
	l1, err := LockRun(home, "t3", false)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := LockRun(home, "t4", false)
	if err != nil {
		t.Fatalf("a second run of the same process was refused: %v", err)
	}
	l2.Release()
	l1.Release()
	if _, err := os.Stat(filepath.Join(home, "run", "t3.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Release left the PID file")
	}
	// A PID file of a dead process is stale: removed, not a refusal.
	stale := filepath.Join(home, "run", "old.pid")
	if err := os.WriteFile(stale, []byte("999999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l5, err := LockRun(home, "t5", false)
	if err != nil {
		t.Fatalf("a stale PID file refused the run: %v", err)
	}
	defer l5.Release()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale PID file is still there")
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
