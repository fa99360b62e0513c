package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
)

// role is what a run is, as its PID file's second line says: only model runs are counted.
type role string

const (
	roleModel  role = "model"  // a run that calls a model (a question, a script after its first call)
	roleScript role = "script" // a run that has made no model call yet: not counted
	roleNested role = "nested" // a sub-run: part of the run that started it, never counted
)

// RunLock is what a run takes of its home's lock.
type RunLock struct {
	Nested bool // a sub-run, in a child process: never refused, never counted
	Model  bool // the run calls a model from its start (a question); else from its first Claim
	Max    int  // processes with a model run going in the home at once, this one's included (0: limits.MaxRuns)
}

// Lock is the PID file of a run: home/run/<task>.pid, the process id on its first line and the
// run's role on its second. Every run has one, so that rlm abort finds it.
type Lock struct {
	dir, task string
	max       int
	mu        sync.Mutex
	role      role
}

// LockRun records a run in home dir. A model run is refused (kind limit) while Max other
// processes have a model run going there; runs of one process (a batch's tasks, a server's
// requests) count once, and sub-runs and runs without a model call (a script, until its first
// Claim) are neither refused nor counted. PID files of dead processes are removed.
func LockRun(dir, task string, o RunLock) (*Lock, error) {
	l := &Lock{dir: dir, task: task, max: limits.Or(o.Max, limits.MaxRuns), role: roleScript}
	switch {
	case o.Nested:
		l.role = roleNested
	case o.Model:
		l.role = roleModel
	}
	if err := l.write(l.role); err != nil {
		return nil, err
	}
	return l, nil
}

// Claim makes a run that started without a model (a script about to make its first model call)
// a model run, refused as LockRun refuses one. It is a no-op for a model run, a sub-run and a
// nil Lock, and safe for concurrent use.
func (l *Lock) Claim() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.role != roleScript {
		return nil
	}
	if err := l.write(roleModel); err != nil {
		return err
	}
	l.role = roleModel
	return nil
}

// Release removes the PID file; a nil Lock is a no-op.
func (l *Lock) Release() {
	if l != nil {
		os.Remove(home.PIDFile(l.dir, l.task))
	}
}

// write records the run as r under the home's lock file, after checking, for a model run, that
// the home has room for one.
func (l *Lock) write(r role) error {
	run := home.Run(l.dir)
	if err := os.MkdirAll(run, 0o700); err != nil {
		return err
	}
	lk, err := os.OpenFile(filepath.Join(run, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lk.Close()
	if err := unix.Flock(int(lk.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	if others := modelRuns(run); r == roleModel && len(others) >= l.max {
		return busyError(l.dir, others, l.max)
	}
	return os.WriteFile(home.PIDFile(l.dir, l.task), fmt.Appendf(nil, "%d\n%s\n", os.Getpid(), r), 0o600)
}

// otherRun is a model run of another process.
type otherRun struct {
	task string
	pid  int
}

// modelRuns lists the live model runs of other processes in the run directory, one per
// process, removing the PID files of dead processes.
func modelRuns(run string) []otherRun {
	files, _ := filepath.Glob(filepath.Join(run, "*.pid"))
	sort.Strings(files)
	var out []otherRun
	seen := map[int]bool{os.Getpid(): true}
	for _, f := range files {
		pid, r, err := readPIDFile(f)
		if err != nil || !Alive(pid) {
			os.Remove(f)
			continue
		}
		if r == roleModel && !seen[pid] {
			seen[pid] = true
			out = append(out, otherRun{task: strings.TrimSuffix(filepath.Base(f), ".pid"), pid: pid})
		}
	}
	return out
}

// busyError refuses a model run while others, max or more, are going.
func busyError(dir string, others []otherRun, max int) error {
	runs := make([]string, len(others))
	for i, o := range others {
		runs[i] = fmt.Sprintf("task %s, PID %d", o.task, o.pid)
	}
	going, it, abort := "another model run is", "it", "rlm abort "+others[0].task
	if len(others) > 1 {
		going, it, abort = strconv.Itoa(len(others))+" model runs are", "one", "rlm abort TASK_ID"
	}
	return fault.New(fault.Limit, "%s going in RLM_HOME %s (%s), and at most %d may run at once: wait for %s, stop %[5]s (%s), "+
		"or allow %[7]d at once (--max-runs %[7]d, RLM_MAX_RUNS=%[7]d or limits.max_runs in rlm.toml); runs that call no model (rlm run --script, rlm repl) are not counted",
		going, dir, strings.Join(runs, "; "), max, it, abort, len(others)+1)
}

// readPIDFile reads a PID file: the process id, and the run's role (a file without one, as
// older versions wrote, is a model run's).
func readPIDFile(path string) (int, role, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, "", err
	}
	r := role(strings.TrimSpace(rest))
	if r == "" {
		r = roleModel
	}
	return pid, r, nil
}
