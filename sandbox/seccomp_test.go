//go:build linux

package sandbox

import (
	"encoding/binary"
	"runtime"
	"strings"
	"syscall"
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccomp alone: no socket, no fork, no execve, no clone3 (ENOSYS), no executable memory,
// on every thread.
func TestSeccompAlone(t *testing.T) {
	sp := spec{Syscalls: true, ExecBin: "/bin/true", Threads: 4, ThreadOp: "socket"}
	on := runWorker(t, only(Seccomp), sp)
	wantApplied(t, on, Seccomp)
	t.Logf("seccomp: %s", on.Report.Get(Seccomp).Detail)
	wantErrno(t, on, "socket", syscall.EPERM)
	wantErrno(t, on, "fork", syscall.EPERM)
	wantErrno(t, on, "exec", syscall.EPERM)
	wantErrno(t, on, "execve", syscall.EPERM)
	wantErrno(t, on, "clone3", syscall.ENOSYS)
	wantErrno(t, on, "mmap exec", syscall.EPERM)
	if got := on.step(t, "threads").Val; got != "0/4" {
		t.Errorf("threads that opened a socket after seccomp: %s, want 0/4", got)
	}

	off := runWorker(t, noLayers(), sp)
	wantOK(t, off, "socket")
	wantOK(t, off, "fork")
	wantOK(t, off, "exec")
	wantErrno(t, off, "execve", syscall.ENOTDIR)
	wantErrno(t, off, "clone3", syscall.EINVAL, syscall.EFAULT)
	wantOK(t, off, "mmap exec")
	if got := off.step(t, "threads").Val; got != "4/4" {
		t.Errorf("control: %s threads opened a socket, want 4/4", got)
	}
}

// A live foreign-architecture system call: socket() through the i386 gate (int $0x80)
// works without the filter and kills the worker with it.
func TestSeccompKillsForeignArch(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the i386 gate is an amd64 feature")
	}
	off := runWorker(t, noLayers(), spec{Int80: true})
	if s, ran := off.Steps["int80 socket"]; !ran || !s.OK {
		// Under a PVM hypervisor (this project's CI machines) int $0x80 faults (SIGSEGV)
		// even with CONFIG_IA32_EMULATION=y; TestSeccompProgram covers the filter.
		t.Skipf("no usable i386 gate here: step %+v, worker %v", s, off.State)
	}
	on := runWorker(t, only(Seccomp), spec{Int80: true})
	wantApplied(t, on, Seccomp)
	if _, ran := on.Steps["int80 socket"]; ran {
		t.Fatalf("the i386 socket() returned: %+v", on.Steps["int80 socket"])
	}
	ws, _ := on.State.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGSYS {
		t.Errorf("worker ended with %v, want killed by SIGSYS", on.State)
	}
}

// seccompData builds the struct seccomp_data a filter reads, laid out for the x/net/bpf
// VM, which loads words big-endian: each 32-bit word is stored where the kernel puts it
// on this (little-endian) machine, but in big-endian byte order.
func seccompData(a uint32, nr int, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], a)
	for i, v := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(v))       // low word first (LE)
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(v>>32)) // then the high word
	}
	return b
}

func runFilter(t *testing.T, prog []bpf.Instruction, data []byte) uint32 {
	t.Helper()
	vm, err := bpf.NewVM(prog)
	must(t, err)
	v, err := vm.Run(data)
	must(t, err)
	return uint32(v)
}

// The architecture check, verified on the assembled program: the first instructions load
// the architecture and kill on anything but x86-64 (and x32), and the program run in a
// BPF interpreter gives the right verdict for each case, where go-seccomp-bpf's program
// alone allows the foreign call.
func TestSeccompProgram(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("expectations are written for x86-64")
	}
	prog, err := seccompProgram()
	must(t, err)
	want := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(arch.X86_64.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retKill},
	}
	for i, in := range want {
		if prog[i] != in {
			t.Fatalf("instruction %d = %#v, want %#v", i, prog[i], in)
		}
	}
	x86, i386 := uint32(arch.X86_64.ID), uint32(arch.I386.ID)
	thread := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND |
		unix.CLONE_SYSVSEM | unix.CLONE_THREAD)
	cases := []struct {
		name string
		data []byte
		want uint32
	}{
		{"read", seccompData(x86, unix.SYS_READ), uint32(unix.SECCOMP_RET_ALLOW)},
		{"socket", seccompData(x86, unix.SYS_SOCKET, unix.AF_INET), retEPERM},
		{"execve", seccompData(x86, unix.SYS_EXECVE), retEPERM},
		{"clone thread", seccompData(x86, unix.SYS_CLONE, thread), uint32(unix.SECCOMP_RET_ALLOW)},
		{"clone fork", seccompData(x86, unix.SYS_CLONE, uint64(unix.SIGCHLD)), retEPERM},
		{"clone thread+netns", seccompData(x86, unix.SYS_CLONE, thread|unix.CLONE_NEWNET), retEPERM},
		{"clone3", seccompData(x86, unix.SYS_CLONE3), retENOSYS},
		{"mmap rw", seccompData(x86, unix.SYS_MMAP, 0, 4096, unix.PROT_READ|unix.PROT_WRITE), uint32(unix.SECCOMP_RET_ALLOW)},
		{"mmap exec", seccompData(x86, unix.SYS_MMAP, 0, 4096, unix.PROT_READ|unix.PROT_EXEC), retEPERM},
		{"mprotect exec", seccompData(x86, unix.SYS_MPROTECT, 0, 4096, unix.PROT_EXEC), retEPERM},
		{"x32 socket", seccompData(x86, x32Bit|41), retKill},
		{"i386 socket", seccompData(i386, 359), retKill},
		{"i386 getpid", seccompData(i386, 20), retKill},
	}
	for _, c := range cases {
		if got := runFilter(t, prog, c.data); got != c.want {
			t.Errorf("%s: filter returned %#x, want %#x", c.name, got, c.want)
		}
	}
	// Without the guard, go-seccomp-bpf sends a foreign architecture to the default
	// action, which is allow for a deny-list: the hole NOTES.md measured.
	lib := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
		{Names: []string{"socket"}, Action: seccomp.Action(retEPERM)}}}
	body, err := lib.Assemble()
	must(t, err)
	if got := runFilter(t, body, seccompData(i386, 359)); got != uint32(unix.SECCOMP_RET_ALLOW) {
		t.Errorf("library deny-list on an i386 socket: %#x; the guard may be redundant now", got)
	}
}

// Every denied name exists on x86-64, so a typo cannot silently drop a rule.
func TestSeccompNamesKnown(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("names checked against the x86-64 table")
	}
	var unknown []string
	for _, n := range append(deniedSyscalls, "clone3") {
		if _, ok := arch.X86_64.SyscallNames[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("unknown system calls: %s", strings.Join(unknown, ", "))
	}
}
