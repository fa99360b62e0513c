package subrun

import "syscall"

// dieWithParent makes the child get SIGTERM when this process dies.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
