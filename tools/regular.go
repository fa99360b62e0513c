package tools

import (
	"errors"
	"io"
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

// ReadRegular reads the whole of the regular file at path, opened as OpenRegular opens it (a
// fifo, a socket or a device is refused at once), and refuses a file of more than limit bytes
// (ErrLimit) after reading limit+1 of them at most. Every file rlm reads whole by a name a user
// or a tasks file gives (a script, credentials, a token) goes through it.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, limitf("%s is larger than %d bytes, the most rlm reads of such a file; pass a smaller one", path, limit)
	}
	return b, nil
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
