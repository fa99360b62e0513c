//go:build !linux

package repl

import (
	"os"
	"syscall"
)

// unconfinedAttr starts an unconfined worker in its own process group (there is no Pdeathsig).
func unconfinedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// selfExe names this binary for a worker (there is no /proc/self/exe).
func selfExe() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}
