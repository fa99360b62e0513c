package worker

import "golang.org/x/sys/unix"

// accessDir checks this process's access to the directory fd itself (faccessat2 AT_EMPTY_PATH).
func accessDir(fd int, mode uint32) error { return unix.Faccessat(fd, "", mode, unix.AT_EMPTY_PATH) }
