//go:build !linux

package repl

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// unconfinedAttr starts an unconfined worker in its own process group (there is no Pdeathsig).
func unconfinedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// accessDir checks this process's access to the directory fd, through its "." entry (there is
// no AT_EMPTY_PATH), with the effective ids.
func accessDir(fd int, mode uint32) error { return unix.Faccessat(fd, ".", mode, unix.AT_EACCESS) }

// selfExe names this binary for a worker (there is no /proc/self/exe).
func selfExe() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}
