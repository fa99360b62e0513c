package repl

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// unconfinedAttr starts an unconfined worker in its own process group, killed with its parent.
func unconfinedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// accessDir checks this process's access to the directory fd itself (faccessat2 AT_EMPTY_PATH).
func accessDir(fd int, mode uint32) error { return unix.Faccessat(fd, "", mode, unix.AT_EMPTY_PATH) }

// selfExe names this binary for a worker: the magic link, which the child resolves itself, so an
// unprivileged worker need not reach the binary's directory.
func selfExe() string { return "/proc/self/exe" }
