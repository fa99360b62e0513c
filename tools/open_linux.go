package tools

import "golang.org/x/sys/unix"

// specialFSName names the filesystem specialFS refuses, for messages.
const specialFSName = "/proc"

// kernelOpenat2 reports whether the kernel resolves paths below dirfd with openat2
// RESOLVE_BENEATH (Linux 5.6).
func kernelOpenat2(dirfd int) bool {
	fd, err := unix.Openat2(dirfd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// openBeneath opens rel below dirfd with openat2: the kernel refuses any resolution that leaves
// dirfd ("..", an absolute symlink, a symlink out), and magic links; with noSymlinks, any symlink.
func openBeneath(dirfd int, rel string, flags int, noSymlinks bool) (int, error) {
	resolve := uint64(unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS)
	if noSymlinks {
		resolve |= unix.RESOLVE_NO_SYMLINKS
	}
	return unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve})
}

// specialFS reports whether fd is on procfs, whose magic links (/proc/self/root, /proc/self/fd)
// lead anywhere: a root that contains /proc must not expose it. An fd that cannot be checked
// counts as special.
func specialFS(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) != nil || st.Type == unix.PROC_SUPER_MAGIC
}

// openBeneathChecked is openBeneath that never blocks and opens nothing but a regular file or a
// directory: it looks at what rel leads to first through an O_PATH descriptor (which opens
// nothing: a fifo does not block it, a device does not see it), refuses anything else
// (errSpecialFile), then opens rel with O_NONBLOCK and O_NOCTTY and checks that it is the same
// file (EXDEV otherwise). flags with O_PATH are passed on as they are.
func openBeneathChecked(dirfd int, rel string, flags int, noSymlinks bool) (int, error) {
	if flags&unix.O_PATH != 0 {
		return openBeneath(dirfd, rel, flags, noSymlinks)
	}
	pfd, err := openBeneath(dirfd, rel, unix.O_PATH|(flags&(unix.O_DIRECTORY|unix.O_NOFOLLOW)), noSymlinks)
	if err != nil {
		return -1, err
	}
	var before unix.Stat_t
	err = unix.Fstat(pfd, &before)
	unix.Close(pfd)
	if err != nil {
		return -1, err
	}
	if err := plainFile(&before); err != nil {
		return -1, err
	}
	fd, err := openBeneath(dirfd, rel, flags|unix.O_NONBLOCK|unix.O_NOCTTY, noSymlinks)
	if err != nil {
		return -1, err
	}
	return sameFile(fd, &before)
}
