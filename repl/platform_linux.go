package repl

import "syscall"

// unconfinedAttr starts an unconfined worker in its own process group, killed with its parent.
func unconfinedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// selfExe names this binary for a worker: the magic link, which the child resolves itself, so an
// unprivileged worker need not reach the binary's directory.
func selfExe() string { return "/proc/self/exe" }
