package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
)

// Guardrails checked before a run starts, and the environment of recursive runs (DESIGN.md,
// "CLI contract").
const (
	envDepth     = "SFA_DEPTH"
	envMaxDepth  = "SFA_MAX_DEPTH"
	envChain     = "SFA_CALL_CHAIN"
	envNoLog     = "SFA_NO_LOG"
	envTimeout   = "SFA_DEFAULTS_TIMEOUT"
	envMinFreeMB = "RLM_MIN_FREE_MB"

	defaultMaxDepthCap = 5
	defaultMinFreeMB   = 100
	emergencyStopFile  = "EMERGENCY_STOP"
	chainSep           = ","
)

// callChain is this run's place in a tree of recursive runs.
type callChain struct {
	names []string // the agents above this one, outermost first
	depth int      // 1 for a run started by a person
}

// chainFromEnv reads SFA_CALL_CHAIN and SFA_DEPTH, and refuses a name already in the chain:
// direct or indirect recursion. Loop detection cannot be turned off.
func chainFromEnv(name string) (callChain, error) {
	var c callChain
	if s := os.Getenv(envChain); s != "" {
		c.names = strings.Split(s, chainSep)
	}
	c.depth = 1
	if s := os.Getenv(envDepth); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d < 1 {
			return c, usagef("%s=%q: want a positive integer", envDepth, s)
		}
		c.depth = d
	}
	for i, n := range c.names {
		if n == name {
			path := append(append([]string(nil), c.names[i:]...), name)
			return c, fault.New(fault.Limit, "agent loop detected: %s; an agent may not call itself, directly or through others", strings.Join(path, " → "))
		}
	}
	if max := maxDepthCap(); c.depth > max {
		return c, fault.New(fault.Limit, "recursion depth %d exceeds %s=%d", c.depth, envMaxDepth, max)
	}
	return c, nil
}

// childEnv is the environment entries of a sub-run started by agent name.
func (c callChain) childEnv(name string) []string {
	chain := append(append([]string(nil), c.names...), name)
	return []string{
		envDepth + "=" + strconv.Itoa(c.depth+1),
		envChain + "=" + strings.Join(chain, chainSep),
	}
}

// maxDepthCap is SFA_MAX_DEPTH, which caps --max-depth (default 5).
func maxDepthCap() int {
	if n, err := strconv.Atoi(os.Getenv(envMaxDepth)); err == nil && n > 0 {
		return n
	}
	return defaultMaxDepthCap
}

// checkDiskSpace refuses a run when RLM_HOME's filesystem has less than 100 MB free
// (RLM_MIN_FREE_MB, a positive number, overrides the minimum; zero means the default).
func checkDiskSpace(home string) error {
	min := int64(defaultMinFreeMB)
	if n, err := strconv.ParseInt(os.Getenv(envMinFreeMB), 10, 64); err == nil && n > 0 {
		min = n
	}
	var st unix.Statfs_t
	if err := unix.Statfs(home, &st); err != nil {
		return fmt.Errorf("checking free space in %s: %w", home, err)
	}
	free := int64(st.Bavail) * int64(st.Bsize) / (1 << 20)
	if free < min {
		return fault.New(fault.Limit, "only %d MB free in %s; a run needs at least %d MB for its audit trail, traces and workspace: free some space or set RLM_HOME elsewhere", free, home, min)
	}
	return nil
}

// emergencyStop reports whether RLM_HOME/EMERGENCY_STOP exists; every model call checks it.
func emergencyStop(home string) error {
	p := filepath.Join(home, emergencyStopFile)
	if _, err := os.Stat(p); err == nil {
		return emergencyError{p}
	}
	return nil
}

// emergencyError refuses or stops a run while RLM_HOME/EMERGENCY_STOP exists. Its kind is limit.
type emergencyError struct{ path string }

func (e emergencyError) Error() string {
	return "emergency stop: " + e.path + " exists; remove it to allow runs again"
}

func (e emergencyError) Is(target error) bool { return target == fault.Limit }

// pidLock is the PID file of a run: RLM_HOME/run/<task>.pid.
type pidLock struct{ path string }

// lockRun refuses a second run in the same RLM_HOME, then records this one. Sub-runs (depth > 1)
// belong to the run that started them and are not refused. Stale PID files are removed.
func lockRun(home, task string, c callChain) (*pidLock, error) {
	dir := filepath.Join(home, "run")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lk, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer lk.Close()
	if err := unix.Flock(int(lk.Fd()), unix.LOCK_EX); err != nil {
		return nil, err
	}
	if c.depth == 1 {
		if pid, ok := runningTask(dir); ok {
			return nil, fault.New(fault.Limit, "Another task is running (PID %d); wait for it, stop it with rlm abort, or use another RLM_HOME", pid)
		}
	}
	p := filepath.Join(dir, task+".pid")
	if err := os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return nil, err
	}
	return &pidLock{path: p}, nil
}

// runningTask finds a live run's PID among the PID files, removing those of dead processes.
func runningTask(dir string) (int, bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range files {
		pid, err := readPID(f)
		if err == nil && alive(pid) {
			return pid, true
		}
		os.Remove(f)
	}
	return 0, false
}

func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie has exited; only its parent has not collected it yet.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
		return false
	}
	return true
}

func (l *pidLock) release() {
	if l != nil {
		os.Remove(l.path)
	}
}
