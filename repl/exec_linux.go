package repl

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// execPath names the open file exe for a worker's command as the magic link /proc/self/fd/N,
// which the child resolves itself: it runs the very file that was checked, whatever the name
// leads to by then, and an unprivileged worker need not reach its directory (as with
// /proc/self/exe). N is a duplicate above the descriptors the child's start moves about for its
// extra files (3 to 2+extra, and as many again while it shuffles them), closed on exec; done
// closes it once the worker has started. The duplicate is made under exe's own reference, so a
// concurrent Close cannot hand its number to another file first.
func execPath(exe *os.File, _ string, extra int) (string, func(), error) {
	rc, err := exe.SyscallConn()
	if err != nil {
		return "", nil, err
	}
	fd, dupErr := -1, error(nil)
	if err := rc.Control(func(orig uintptr) {
		fd, dupErr = unix.FcntlInt(orig, unix.F_DUPFD_CLOEXEC, 2*(3+extra)+8)
	}); err != nil {
		return "", nil, err
	}
	if dupErr != nil {
		return "", nil, dupErr
	}
	return "/proc/self/fd/" + strconv.Itoa(fd), func() { unix.Close(fd) }, nil
}
