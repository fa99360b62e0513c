//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/rlm-sandbox/rlm/sandbox/internal/int80"
)

// The test binary is its own worker: Command re-executes it (/proc/self/exe) with
// envChild set, and TestMain runs the scenario in spec after Apply.
const (
	envChild        = "RLM_SANDBOX_TEST_CHILD"
	envIntermediate = "RLM_SANDBOX_TEST_INTERMEDIATE"
)

// spec says what the worker attempts after Apply. Every attempt prints one JSON line.
type spec struct {
	Mode      string   // "" (attempts), "alloc", "alloc-hold", "busy", "grandchild", "ready", "wait"
	Degraded  bool     // confine with applyDegraded (what macOS runs) instead of Apply
	Read      []string // files to read
	Write     []string // files to create and write
	WriteSize int      // bytes per write (default 16)
	ExecBin   string   // a program to fork+exec with os/exec
	Connect   string   // a TCP address to connect to
	Syscalls  bool     // raw socket, fork, execve, clone3, mmap PROT_EXEC
	Int80     bool     // an i386 socket() through int 0x80
	Threads   int      // threads locked before Apply that try ThreadOp after it (Read[0])
	ThreadOp  string   // "read" (Read[0]) or "socket"
	Signal    int      // a pid to probe with kill(pid, 0)
	OpenMany  int      // descriptors to open (/dev/null)
	FDs       []int    // descriptors whose presence to report
	Alloc     int64    // bytes to allocate in "alloc" mode
	NNP       bool     // report NoNewPrivs of every thread
}

type step struct {
	Step  string `json:"step"`
	OK    bool   `json:"ok"`
	Errno int    `json:"errno,omitempty"`
	Err   string `json:"err,omitempty"`
	Val   string `json:"val,omitempty"`
}

func TestMain(m *testing.M) {
	if s := os.Getenv(envIntermediate); s != "" {
		os.Exit(intermediate(s))
	}
	if s := os.Getenv(envChild); s != "" {
		os.Exit(child(s))
	}
	if _, ok := os.LookupEnv(EnvConfig); ok {
		fmt.Fprintln(os.Stderr, "started as a worker without a scenario")
		os.Exit(2) // never run the whole suite inside a worker
	}
	os.Exit(m.Run())
}

func emit(v any) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

func record(name string, err error, val string) {
	s := step{Step: name, OK: err == nil, Val: val}
	if err != nil {
		s.Err = err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			s.Errno = int(errno)
		}
	}
	emit(s)
}

func child(raw string) int {
	var sp spec
	if err := json.Unmarshal([]byte(raw), &sp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	release := lockThreads(sp)
	cfg, _, err := WorkerConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	t0 := time.Now()
	apply := Apply
	if sp.Degraded {
		apply = applyDegraded
	}
	rep, err := apply(cfg)
	applyTime := time.Since(t0)
	emit(map[string]any{"report": rep})
	record("apply time", nil, applyTime.String())
	if err != nil {
		record("apply", err, "")
		return 3
	}
	release()
	switch sp.Mode {
	case "alloc":
		b := make([]byte, sp.Alloc)
		record("alloc", nil, fmt.Sprint(len(b)))
	case "alloc-hold":
		b := make([]byte, sp.Alloc)
		record("alloc", nil, fmt.Sprint(len(b)))
		time.Sleep(2 * time.Second)
		runtime.KeepAlive(b)
		record("held", nil, "")
	case "busy":
		emit(step{Step: "busy", OK: true, Val: fmt.Sprint(os.Getpid())})
		for {
		}
	case "grandchild":
		c := exec.Command("sleep", "60")
		err := c.Start()
		record("grandchild", err, fmt.Sprint(c.Process.Pid))
		time.Sleep(time.Minute)
	case "ready":
		record("ready", nil, "")
	case "wait":
		record("ready", nil, "")
		io.Copy(io.Discard, os.Stdin)
	default:
		attempts(sp)
	}
	return 0
}

func threadOp(sp spec) error {
	if sp.ThreadOp == "socket" {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fd)
		}
		return err
	}
	_, err := os.ReadFile(sp.Read[0])
	return err
}

// lockThreads starts sp.Threads goroutines, each locked to its own OS thread, before
// Apply. The returned function lets them try to read sp.Read[0] after Apply, which shows
// whether the layers reached threads that already existed.
func lockThreads(sp spec) func() {
	if sp.Threads == 0 {
		return func() {}
	}
	start, ready := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	for range sp.Threads {
		go func() {
			runtime.LockOSThread()
			ready <- struct{}{}
			<-start
			done <- threadOp(sp)
		}()
	}
	for range sp.Threads {
		<-ready
	}
	return func() {
		close(start)
		opened := 0
		for range sp.Threads {
			if <-done == nil {
				opened++
			}
		}
		record("threads", nil, fmt.Sprintf("%d/%d", opened, sp.Threads)) // how many succeeded
	}
}

func attempts(sp spec) {
	for _, p := range sp.Read {
		_, err := os.ReadFile(p)
		record("read "+p, err, "")
	}
	for _, p := range sp.Write {
		err := os.WriteFile(p, bytes.Repeat([]byte("x"), max(sp.WriteSize, 16)), 0o644)
		record("write "+p, err, "")
	}
	if sp.ExecBin != "" {
		c := exec.Command(sp.ExecBin)
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stderr, os.Stderr // no /dev/null to open
		record("exec", c.Run(), "")
	}
	if sp.Connect != "" {
		c, err := net.DialTimeout("tcp", sp.Connect, 2*time.Second)
		if err == nil {
			c.Close()
		}
		record("connect", err, "")
	}
	if sp.Syscalls {
		rawSyscalls()
	}
	if sp.Int80 {
		fd, errno := int80.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		record("int80 socket", errOrNil(errno), fmt.Sprint(fd))
	}
	if sp.NNP {
		record("nnp threads", nil, nnpThreads())
	}
	if sp.Signal != 0 {
		record("signal", syscall.Kill(sp.Signal, 0), "")
	}
	if sp.OpenMany > 0 {
		record("open many", openMany(sp.OpenMany), "")
	}
	for _, fd := range sp.FDs {
		_, err := unixFcntl(fd)
		record(fmt.Sprint("fd ", fd), err, "")
	}
	record("pid", nil, fmt.Sprint(os.Getpid()))
	record("uid", nil, fmt.Sprint(os.Getuid()))
	record("env", nil, strings.Join(os.Environ(), "\n"))
}

func openMany(n int) error {
	for range n {
		if _, err := os.Open("/dev/null"); err != nil {
			return err
		}
	}
	return nil
}

func unixFcntl(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func errOrNil(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func rawSyscalls() {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.Close(fd)
	}
	record("socket", err, "")
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, nil)
	if err == nil {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
	record("fork", err, "")
	path, _ := syscall.BytePtrFromString("/dev/null/not-a-program")
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), 0, 0)
	record("execve", e, "") // ENOTDIR when allowed, EPERM when denied
	_, _, e = syscall.RawSyscall(435 /* clone3 */, 0, 0, 0)
	record("clone3", e, "") // EINVAL/EFAULT when allowed, ENOSYS when filtered
	m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_EXEC, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err == nil {
		syscall.Munmap(m)
	}
	record("mmap exec", err, "")
}

// nnpThreads returns "n/m": how many of the m threads have NoNewPrivs set.
func nnpThreads() string {
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	n := 0
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		if bytes.Contains(b, []byte("NoNewPrivs:\t1")) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(tasks))
}

// midSpec is what the intermediate parent gets: the worker's Config and Env (which Config
// does not serialise), and whether to clear Pdeathsig.
type midSpec struct {
	Config      Config
	Env         []string
	NoPdeathsig bool
}

// intermediate starts a busy worker as s says, prints its pid, and waits to be killed.
func intermediate(s string) int {
	var ms midSpec
	if err := json.Unmarshal([]byte(s), &ms); err != nil {
		fmt.Println("error", err)
		return 2
	}
	ms.Config.Env = ms.Env
	cmd, err := Command(context.Background(), ms.Config)
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	if ms.NoPdeathsig {
		cmd.SysProcAttr.Pdeathsig = 0
	}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		return 2
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"busy"`) {
			break
		}
	}
	fmt.Println(cmd.Process.Pid)
	time.Sleep(time.Minute)
	return 0
}

// result is what a test worker printed.
type result struct {
	Report Report
	Steps  map[string]step
	State  *os.ProcessState
	Stderr string
}

func (r result) step(t *testing.T, name string) step {
	t.Helper()
	s, ok := r.Steps[name]
	if !ok {
		t.Fatalf("worker printed no step %q (exit %v, stderr %q)", name, r.State, r.Stderr)
	}
	return s
}

// runWorker starts the test binary as a worker with cfg and sp and collects its output.
func runWorker(t *testing.T, cfg Config, sp spec) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	b, _ := json.Marshal(sp)
	cfg.Env = append(cfg.Env, envChild+"="+string(b))
	cmd, err := Command(ctx, cfg)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	r := result{Steps: map[string]step{}, State: cmd.ProcessState, Stderr: stderr.String()}
	for line := range strings.Lines(stdout.String()) {
		var v struct {
			Report *Report
			step
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("bad worker line %q: %v", line, err)
		}
		if v.Report != nil {
			r.Report = *v.Report
		} else {
			r.Steps[v.step.Step] = v.step
		}
	}
	return r
}

// startWorker starts a worker and returns it with a reader of its output lines, after the
// first line whose step is want.
func startWorker(t *testing.T, cfg Config, sp spec, want string) (*exec.Cmd, step, *bufio.Scanner) {
	t.Helper()
	b, _ := json.Marshal(sp)
	cfg.Env = append(cfg.Env, envChild+"="+string(b))
	cmd, err := Command(context.Background(), cfg)
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { KillGroup(cmd); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var s step
		if json.Unmarshal(sc.Bytes(), &s) == nil && s.Step == want {
			return cmd, s, sc
		}
	}
	t.Fatalf("worker ended before printing %q", want)
	return nil, step{}, nil
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// gone waits up to d for pid to die.
func gone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}
