//go:build !linux

package worker

import "golang.org/x/sys/unix"

// accessDir checks this process's access to the directory fd, through its "." entry (there is
// no AT_EMPTY_PATH), with the effective ids.
func accessDir(fd int, mode uint32) error { return unix.Faccessat(fd, ".", mode, unix.AT_EACCESS) }
