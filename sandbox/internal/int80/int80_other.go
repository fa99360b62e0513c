//go:build !amd64

package int80

import "syscall"

func call(nr, a1, a2, a3 uintptr) uintptr {
	e := -int32(syscall.ENOSYS)
	return uintptr(uint32(e))
}
