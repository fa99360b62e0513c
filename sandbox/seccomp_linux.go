package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM. Names unknown on the running architecture are skipped.
var deniedSyscalls = []string{
	// network (Landlock only covers TCP connect/bind, not socket creation)
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
	// other programs and new processes (clone is filtered by its flags below)
	"execve", "execveat", "fork", "vfork",
	// other processes' memory and descriptors
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	// large kernel attack surface
	"io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
	"userfaultfd", "keyctl", "add_key", "request_key", "memfd_create", "memfd_secret",
	"personality", "modify_ldt", "uselib", "lookup_dcookie", "nfsservctl",
	// namespaces and mounts
	"mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "open_tree",
	"open_tree_attr", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"open_by_handle_at", "name_to_handle_at",
	// the machine itself
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
	"iopl", "ioperm", "syslog", "vhangup",
}

const (
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
		unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	retKill   = uint32(unix.SECCOMP_RET_KILL_PROCESS)
	retEPERM  = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	retENOSYS = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS)
	x32Bit    = 0x40000000 // __X32_SYSCALL_BIT
)

// conditioned are the system calls denied only for some arguments.
func conditioned() []seccomp.NameWithConditions {
	bits := func(name string, arg uint32, op seccomp.Operation, v uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name,
			Conditions: seccomp.ArgumentConditions{{Argument: arg, Operation: op, Value: v}}}
	}
	return []seccomp.NameWithConditions{
		// clone is allowed for threads only (Go's runtime), and never with namespaces.
		bits("clone", 0, seccomp.BitsNotSet, unix.CLONE_THREAD),
		bits("clone", 0, seccomp.BitsSet, cloneNamespaces),
		// No new executable memory: neither interpreter generates machine code.
		bits("mmap", 2, seccomp.BitsSet, unix.PROT_EXEC),
		bits("mprotect", 2, seccomp.BitsSet, unix.PROT_EXEC),
		bits("pkey_mprotect", 2, seccomp.BitsSet, unix.PROT_EXEC),
	}
}

// seccompProgram assembles the filter: an architecture guard that kills the process on a
// foreign-architecture or x32 system call, then go-seccomp-bpf's deny-list. The guard is
// needed because go-seccomp-bpf sends a foreign architecture to the default action, which
// is "allow" for a deny-list (an i386 int 0x80 socket+connect got through).
func seccompProgram() ([]bpf.Instruction, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	known := func(name string) bool { _, ok := info.SyscallNames[name]; return ok }
	var names []string
	for _, n := range deniedSyscalls {
		if known(n) {
			names = append(names, n)
		}
	}
	var conds []seccomp.NameWithConditions
	for _, c := range conditioned() {
		if known(c.Name) {
			conds = append(conds, c)
		}
	}
	groups := []seccomp.SyscallGroup{
		{Names: names, Action: seccomp.Action(retEPERM)},
		{NamesWithCondtions: conds, Action: seccomp.Action(retEPERM)},
	}
	if known("clone3") {
		// clone3 passes its flags in memory a filter cannot read. ENOSYS makes glibc
		// (cgo) fall back to clone, which the filter can check.
		groups = append(groups, seccomp.SyscallGroup{Names: []string{"clone3"}, Action: seccomp.Action(retENOSYS)})
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
	body, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	return append(archGuard(info), body...), nil
}

// archGuard loads the architecture, kills on anything but the native one, then (on
// x86-64) kills on the x32 ABI, which shares AUDIT_ARCH_X86_64.
func archGuard(info *arch.Info) []bpf.Instruction {
	g := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retKill},
	}
	if info.ID == arch.X86_64.ID {
		g = append(g,
			bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: retKill},
		)
	}
	return g
}

// applySeccomp loads the filter on every thread (TSYNC). Without no_new_privs the kernel
// requires CAP_SYS_ADMIN.
func applySeccomp(Config, *Report) (string, error) {
	if !seccomp.Supported() {
		return "kernel without seccomp filters", errMissing
	}
	insts, err := seccompProgram()
	if err != nil {
		return "", err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return "", err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	detail := fmt.Sprintf("%d instructions, %s only, TSYNC", len(raw), runtime.GOARCH)
	err = loadFilter(&prog)
	if errors.Is(err, unix.EACCES) {
		// Without CAP_SYS_ADMIN the kernel requires no_new_privs (even when that layer
		// is off); TSYNC then sets it on every thread.
		if err = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err == nil {
			err = loadFilter(&prog)
			detail += "; set no_new_privs, which seccomp requires without CAP_SYS_ADMIN"
		}
	}
	runtime.KeepAlive(filter)
	if err != nil {
		return "", err
	}
	return detail, nil
}

func loadFilter(prog *unix.SockFprog) error {
	r1, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(prog)))
	switch {
	case e != 0:
		return fmt.Errorf("seccomp(SET_MODE_FILTER, TSYNC): %w", e)
	case r1 != 0:
		return fmt.Errorf("seccomp TSYNC: thread %d could not be synchronised", r1)
	}
	return nil
}
