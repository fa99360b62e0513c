package guard

import "golang.org/x/sys/unix"

// sZomb is XNU's p_stat of a process that has exited and not been collected (SZOMB in
// sys/proc.h).
const sZomb = 5

// zombie reports whether pid is a zombie, by the kern.proc.pid sysctl. A process the sysctl
// does not describe is not known to be one.
func zombie(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && kp.Proc.P_stat == sZomb
}
