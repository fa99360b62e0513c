package files

import "golang.org/x/sys/unix"

// onKernelFS reports whether path lies on one of the kernel's file systems, whose files are
// made when read: proc, sysfs, debugfs, tracefs, cgroup, securityfs, pstore, efivarfs.
func onKernelFS(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return false
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.CGROUP_SUPER_MAGIC,
		unix.CGROUP2_SUPER_MAGIC, unix.SECURITYFS_MAGIC, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC:
		return true
	}
	return false
}
