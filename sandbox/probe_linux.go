package sandbox

import (
	"fmt"
	"slices"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

var probeOnce = sync.OnceValue(probe)

// Probe reports which layers this machine can give a worker, without applying any of
// them to the calling process: it asks the kernel (Landlock ABI query, seccomp strict-mode
// argument check, prctl) and starts throwaway children for the namespaces. The result is
// computed once per process.
func Probe() Report {
	if portable {
		return probeDegraded()
	}
	r := probeOnce()
	r.Layers = slices.Clone(r.Layers)
	return r
}

func probe() Report {
	r := newReport()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil {
		r.set(Rlimits, Missing, err.Error())
	} else {
		r.set(Rlimits, Available, "")
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil {
		r.set(NoNewPrivs, Missing, "prctl(PR_GET_NO_NEW_PRIVS): "+err.Error())
	} else {
		r.set(NoNewPrivs, Available, "")
	}
	r.LandlockABI = landlockABI()
	if r.LandlockABI < 1 {
		r.set(Landlock, Missing, "kernel without Landlock (or disabled at boot)")
	} else {
		r.set(Landlock, Available, landlockDetail(r.LandlockABI))
	}
	if seccomp.Supported() {
		r.set(Seccomp, Available, "")
	} else {
		r.set(Seccomp, Missing, "kernel without seccomp filters")
	}
	if !allNamespaces(&r) {
		probeNamespaces(&r)
	}
	if psxBreaksPidNS(r.LandlockABI) && r.Get(PidNS).Status == Available {
		r.set(PidNS, Missing, psxPidNS)
	}
	return r
}

// allNamespaces tries the one clone a worker normally gets, every namespace at once. When it
// works, each namespace is available, and the throwaway child per namespace that
// probeNamespaces starts (six forks, most of an uncached Probe) is not needed; otherwise
// probeNamespaces finds out which ones fail, and why.
func allNamespaces(r *Report) bool {
	if tryClone(Namespaces) != nil {
		return false
	}
	for _, f := range nsFlags {
		r.set(f.layer, Available, "")
	}
	return true
}

// psxBreaksPidNS reports whether Landlock in this binary would go through libpsx.
func psxBreaksPidNS(abi int) bool { return cgoLinked() && abi >= 1 && abi < 8 }

// cgoLinked reports whether this binary links cgo: then syscall.AllThreadsSyscall is
// unavailable (ENOTSUP) and go-landlock falls back to libpsx for ABI < 8.
var cgoLinked = sync.OnceValue(func() bool {
	_, _, e := syscall.AllThreadsSyscall(syscall.SYS_GETPID, 0, 0, 0)
	return e == syscall.ENOTSUP
})

// landlockABI is the ABI version the kernel offers, lowered to 5 when the kernel lacks the
// fix for the signal-scoping erratum (as go-landlock does), and capped at the newest
// version go-landlock knows.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	if v >= 6 {
		errata, err := llsys.LandlockGetErrata()
		if err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return min(v, len(landlockPresets))
}

func landlockDetail(abi int) string {
	s := fmt.Sprintf("ABI %d: file read/write/exec", abi)
	if abi >= 4 {
		s += ", TCP connect/bind"
	}
	if abi >= 6 {
		s += ", signal and abstract-socket scoping"
	}
	if abi >= 10 {
		s += ", UDP"
	}
	if abi < 4 {
		s += "; TCP not restricted (needs ABI 4)"
	}
	return s
}
