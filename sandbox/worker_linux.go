package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

// errMissing marks a layer the kernel does not offer (as opposed to one that failed).
var errMissing = errors.New("not offered by this kernel")

// Apply confines the calling process. Call it first thing in the worker, before any
// interpreter exists and before starting goroutines: rlimits, then no_new_privs, then
// Landlock, then seccomp (last, so the earlier steps may still use the system calls it
// denies). The namespaces were created by the parent; Apply only reports them. It returns
// a fault.Denied error when a layer fails, or when the result is below cfg.Minimum and
// cfg.AllowDegraded is false; the worker must then exit without running code.
func Apply(cfg Config) (Report, error) {
	if portable {
		return applyDegraded(cfg)
	}
	cfg = cfg.withDefaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Load the local time zone now: after Landlock, /etc/localtime is unreadable.
	time.Now().Zone()

	if err := closeInherited("/proc/self/fd", cfg.extraFiles); err != nil {
		return Report{}, fault.Wrap(fault.Denied, err, "sandbox: closing inherited descriptors")
	}
	r := newReport()
	reportNamespaces(&r, cfg)
	steps := []struct {
		layer Layer
		apply func(Config, *Report) (string, error)
	}{
		{Rlimits, applyRlimits},
		{NoNewPrivs, applyNoNewPrivs},
		{Landlock, applyLandlock},
		{Seccomp, applySeccomp},
	}
	for _, s := range steps {
		switch detail, err := runStep(cfg, &r, s.layer, s.apply); {
		case errors.Is(err, errMissing):
			r.set(s.layer, Missing, detail)
		case err != nil:
			return r, fault.Wrap(fault.Denied, err, "sandbox: applying "+s.layer.String())
		}
	}
	return r, r.Check(cfg.Minimum, cfg.AllowDegraded)
}

// runStep applies one layer unless it is off or simulated missing, and records the outcome.
func runStep(cfg Config, r *Report, l Layer, apply func(Config, *Report) (string, error)) (string, error) {
	switch {
	case cfg.Disable&l != 0:
		r.set(l, Off, "disabled by the caller")
		return "", nil
	case cfg.Simulate&l != 0:
		return "simulated (Config.Simulate)", errMissing
	}
	detail, err := apply(cfg, r)
	if err == nil {
		r.set(l, Applied, detail)
	}
	return detail, err
}

// addressSpace is RLIMIT_AS: the memory cap, the Go runtime's headroom, the context files'
// mappings (rounded up to pages, plus one page each for the index's guard), and the threads'
// C stacks in a cgo build (threadStacks).
func addressSpace(cfg Config) uint64 {
	mapped := uint64(max(cfg.MappedBytes, 0))
	return uint64(cfg.MemoryBytes) + GoHeadroomBytes + mapped + mapped/64 + 1<<20 + threadStacks(runtime.GOMAXPROCS(0))
}

// spareThreads is the margin threadStacks allows above GOMAXPROCS threads.
const spareThreads = 16

func applyRlimits(cfg Config, _ *Report) (string, error) {
	if err := pinThreadStacks(); err != nil {
		return "", fmt.Errorf("setting the threads' stack size: %w", err)
	}
	err := lowerLimits([]rlimit{
		{unix.RLIMIT_AS, addressSpace(cfg)},
		{unix.RLIMIT_FSIZE, uint64(cfg.FileSizeBytes)},
		{unix.RLIMIT_NOFILE, cfg.OpenFiles},
		{unix.RLIMIT_CORE, 0},
		// soft == hard: at the limit the kernel sends SIGKILL (Go ignores SIGXCPU).
		{unix.RLIMIT_CPU, cfg.CPUSeconds},
	})
	if err != nil {
		return "", err
	}
	// The soft layer: the garbage collector works to stay under the cap; below it, it lets the
	// heap grow to WorkerGCPercent more than is live (fewer collections in a short-lived worker).
	debug.SetMemoryLimit(cfg.MemoryBytes)
	debug.SetGCPercent(limits.WorkerGCPercent)
	return fmt.Sprintf("as=%d fsize=%d nofile=%d core=0 cpu=%ds",
		addressSpace(cfg), cfg.FileSizeBytes, cfg.OpenFiles, cfg.CPUSeconds), nil
}

// applyNoNewPrivs sets no_new_privs on every thread: with AllThreadsSyscall, or in a cgo
// binary with libpsx. Inside a pid namespace libpsx hangs (see psxPidNS); there it is set
// on this thread, and Landlock and the seccomp TSYNC flag carry it to the others.
func applyNoNewPrivs(Config, *Report) (string, error) {
	_, _, e := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0)
	switch {
	case e == 0:
		return "all threads", nil
	case e != syscall.ENOTSUP:
		return "", e
	case psxUsable():
		if _, _, e := psx.Syscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
			return "", e
		}
		return "all threads (libpsx)", nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "", err
	}
	return "calling thread only (cgo binary in a pid namespace); Landlock and seccomp TSYNC extend it", nil
}

// psxUsable reports whether libpsx sees this process under its own pid, i.e. /proc is not
// from another pid namespace.
func psxUsable() bool {
	self, _ := os.Readlink("/proc/self")
	return self == strconv.Itoa(os.Getpid())
}

// landlockPresets are go-landlock's configurations by ABI version: strict mode (never
// BestEffort), so Restrict fails rather than silently doing nothing.
var landlockPresets = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4,
	landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// The rights granted below the allowed paths. Execute is never granted; neither are
// device ioctls, sockets, fifos, device nodes or symlinks in the workspace.
const (
	rightsReadFile = landlock.AccessFSSet(llsys.AccessFSReadFile)
	rightsReadDir  = rightsReadFile | landlock.AccessFSSet(llsys.AccessFSReadDir)
	rightsWrite    = rightsReadDir | landlock.AccessFSSet(llsys.AccessFSWriteFile|
		llsys.AccessFSRemoveDir|llsys.AccessFSRemoveFile|llsys.AccessFSMakeDir|
		llsys.AccessFSMakeReg|llsys.AccessFSRefer|llsys.AccessFSTruncate)
)

func applyLandlock(cfg Config, r *Report) (string, error) {
	abi := landlockABI()
	r.LandlockABI = abi
	if abi < 1 {
		return "kernel without Landlock (or disabled at boot)", errMissing
	}
	if psxBreaksPidNS(abi) && !psxUsable() {
		return "", errors.New(psxPidNS)
	}
	llc := landlockPresets[abi-1]
	handled := llc.HandledAccessFS
	var rules []landlock.Rule
	for _, p := range append(append([]string{}, cfg.ReadFiles...), cfg.ReadDirs...) {
		rights := rightsReadFile
		if fi, err := os.Stat(p); err != nil {
			return "", err
		} else if fi.IsDir() {
			rights = rightsReadDir
		}
		rules = append(rules, landlock.PathAccess(rights&handled, p))
	}
	if cfg.Workspace != "" {
		rules = append(rules, landlock.PathAccess(rightsWrite&handled, cfg.Workspace))
	}
	// Descriptor rules: go-landlock opens the magic link with O_PATH, which reaches the very
	// directory the descriptor holds without walking (or needing search rights on) its path.
	for _, fd := range cfg.ReadDirFDs {
		rules = append(rules, landlock.PathAccess(rightsReadDir&handled, fdPath(fd)))
	}
	if cfg.WorkspaceFD > 0 {
		rules = append(rules, landlock.PathAccess(rightsWrite&handled, fdPath(cfg.WorkspaceFD)))
	}
	if err := llc.Restrict(rules...); err != nil {
		return "", err
	}
	return landlockDetail(abi), nil
}

// reportNamespaces compares this process's namespaces with the parent's (passed in the
// Config by Command).
func reportNamespaces(r *Report, cfg Config) {
	for _, f := range nsFlags {
		switch {
		case cfg.Disable&f.layer != 0:
			r.set(f.layer, Off, "disabled by the caller")
		case cfg.Simulate&f.layer != 0:
			r.set(f.layer, Missing, "simulated (Config.Simulate)")
		case cfg.hostNS == nil:
			r.set(f.layer, Missing, "worker not started by sandbox.Command")
		default:
			id, err := os.Readlink("/proc/self/ns/" + f.name)
			host, known := cfg.hostNS[f.name]
			if err != nil || !known || id == host {
				why := "the parent could not create it"
				if f.layer == PidNS && psxBreaksPidNS(landlockABI()) {
					why = psxPidNS
				}
				r.set(f.layer, Missing, why)
				continue
			}
			r.set(f.layer, Applied, "")
		}
	}
	if uid := os.Getuid(); r.Get(UserNS).Status == Applied {
		r.set(UserNS, Applied, fmt.Sprintf("uid %d", uid))
	} else if r.Get(UserNS).Status == Missing && uid != 0 {
		r.set(UserNS, Missing, r.Get(UserNS).Detail+fmt.Sprintf("; running as uid %d", uid))
	}
}

func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
