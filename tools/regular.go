package tools

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// OpenRegular opens the file at path (symlinks followed) for reading, and only if it is a
// regular file, without ever blocking: it looks at the file first (stat), so a fifo, a socket or
// a device is refused without being opened (open(2) of a fifo blocks until a writer comes; a
// device may act on open); it opens it with O_NONBLOCK and O_NOCTTY, so a path swapped for a
// fifo in between does not block either; it checks that the descriptor is the file it looked
// at; and it makes the descriptor blocking again. Every open of a file a user or a client names
// as an input (the context files, the index cache) goes through it.
func OpenRegular(path string) (*os.File, error) {
	var before unix.Stat_t
	if err := retryEINTR(func() error { return unix.Stat(path, &before) }); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if before.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, notRegular(path, uint32(before.Mode))
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if fd, err = sameFile(fd, &before); err != nil {
		return nil, &toolError{kind: ErrChanged, msg: path + " was replaced while it was opened; open it again"}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// notRegular is the message for an input that is not a regular file.
func notRegular(path string, mode uint32) error {
	kind := "not a regular file"
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		kind = "a named pipe (fifo)"
	case unix.S_IFSOCK:
		kind = "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		kind = "a device"
	case unix.S_IFDIR:
		kind = "a directory"
	}
	return invalidf("%s is %s; rlm reads regular files only: save what it holds to a file and pass that (rlm run --ctx - saves stdin)", path, kind)
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
