package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
)

const chainArrow = " → "

// CheckDisk refuses a run when home's filesystem has less than minMB megabytes free (zero or
// less: limits.MinFreeMB).
func CheckDisk(home string, minMB int) error {
	if minMB <= 0 {
		minMB = limits.MinFreeMB
	}
	var st unix.Statfs_t
	if err := unix.Statfs(home, &st); err != nil {
		return fmt.Errorf("checking free space in %s: %w", home, err)
	}
	free := int64(st.Bavail) * int64(st.Bsize) / (1 << 20)
	if free < int64(minMB) {
		return fault.New(fault.Limit, "only %d MB free in %s; a run needs at least %d MB for its audit trail, traces and workspace: free some space or set RLM_HOME elsewhere", free, home, minMB)
	}
	return nil
}

// EmergencyStop returns an error of kind limit while RLM_HOME dir holds EMERGENCY_STOP.
func EmergencyStop(dir string) error {
	p := home.EmergencyStop(dir)
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

// Completer is a model: the part of llm.Client a run calls.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Model checks, before every call to Next, that no EMERGENCY_STOP exists in Home and that Check
// (if set) lets the call go.
type Model struct {
	Home  string
	Check func() error
	Next  Completer
}

// Complete implements the model.
func (m Model) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := EmergencyStop(m.Home); err != nil {
		return llm.Response{}, err
	}
	if m.Check != nil {
		if err := m.Check(); err != nil {
			return llm.Response{}, err
		}
	}
	return m.Next.Complete(ctx, req)
}

// Budget is the next model's budgets (an *llm.Client's), for the system prompt; zero if it has none.
func (m Model) Budget() llm.Budget {
	if b, ok := m.Next.(interface{ Budget() llm.Budget }); ok {
		return b.Budget()
	}
	return llm.Budget{}
}

// Remaining is what is left of the next model's budgets (an *llm.Client's), for the feedback;
// the zero Spent if it has none.
func (m Model) Remaining() llm.Spent {
	if c, ok := m.Next.(interface{ Remaining() llm.Spent }); ok {
		return c.Remaining()
	}
	return llm.Spent{}
}

// MaxCost is the next model's dollar budget (0: none), for the system prompt.
func (m Model) MaxCost() float64 {
	if c, ok := m.Next.(interface{ MaxCost() float64 }); ok {
		return c.MaxCost()
	}
	return 0
}

// Configured lists the models code may pick for a sub-call (an *llm.Client's); nil if none.
func (m Model) Configured() []string {
	if c, ok := m.Next.(interface{ Configured() []string }); ok {
		return c.Configured()
	}
	return nil
}

// SubModels is the next model's sub-call ladder (an *llm.Client's); nil if it has none.
func (m Model) SubModels() []string {
	if c, ok := m.Next.(interface{ SubModels() []string }); ok {
		return c.SubModels()
	}
	return nil
}

// CheckChain refuses a run of agent name whose chain (the agents above it, outermost first)
// already holds that name, and a run deeper than depthCap (zero or less: limits.DepthCap).
// Loop detection cannot be turned off.
func CheckChain(name string, chain []string, depth, depthCap int) error {
	if depthCap <= 0 {
		depthCap = limits.DepthCap
	}
	for i, n := range chain {
		if n == name {
			path := append(append([]string(nil), chain[i:]...), name)
			return fault.New(fault.Limit, "agent loop detected: %s; an agent may not call itself, directly or through others", strings.Join(path, chainArrow))
		}
	}
	if depth > depthCap {
		return fault.New(fault.Limit, "recursion depth %d exceeds SFA_MAX_DEPTH=%d", depth, depthCap)
	}
	return nil
}

// ReadPID reads the process id of a PID file (its first line).
func ReadPID(path string) (int, error) {
	pid, _, err := readPIDFile(path)
	return pid, err
}

// Alive reports whether process pid exists and has not exited (a zombie has).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie has exited; only its parent has not collected it yet.
	return !zombie(pid)
}
