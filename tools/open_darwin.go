package tools

import "golang.org/x/sys/unix"

// pathFlags opens a directory only to look names up below it. macOS has no O_PATH: a plain
// read-only descriptor of the directory, which needs read permission on it.
const pathFlags = unix.O_RDONLY

// specialFSName names the filesystem specialFS refuses, for messages.
const specialFSName = "/dev"

// canOpenat2 is false: openat2 is Linux's.
func canOpenat2(int) bool { return false }

// openBeneath is never called where canOpenat2 is false.
func openBeneath(int, string, int, bool) (int, error) { return -1, unix.ENOSYS }

// specialFS reports whether fd is on devfs or fdesc: device nodes, and /dev/fd/N, which opens
// a copy of this process's descriptor N (the worker's protocol pipe, say). An fd that cannot be
// checked counts as special.
func specialFS(fd int) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return true
	}
	switch unix.ByteSliceToString(st.Fstypename[:]) {
	case "devfs", "fdesc":
		return true
	}
	return false
}

// openBeneathChecked is never called where canOpenat2 is false.
func openBeneathChecked(int, string, int, bool) (int, error) { return -1, unix.ENOSYS }
