//go:build linux && !rlm_portable

package tools

import "golang.org/x/sys/unix"

// pathFlags opens a directory only to look names up below it. O_PATH needs no read permission
// on the directory (search permission does for what is below it) and never touches a device.
const pathFlags = unix.O_PATH

// canOpenat2 reports whether paths below dirfd are opened with openat2 RESOLVE_BENEATH.
func canOpenat2(dirfd int) bool { return kernelOpenat2(dirfd) }
