// Package int80 makes i386 system calls from a 64-bit process (int $0x80), for the tests
// that prove the seccomp architecture check. Only tests import it.
package int80

import "syscall"

// SysSocket is socket(2) in the i386 system-call table.
const SysSocket = 359

// Socket calls socket(2) through the i386 gate. Its arguments are plain integers, so the
// 32-bit ABI can take them without pointers below 4 GiB.
func Socket(domain, typ, proto int) (int, syscall.Errno) {
	r := int32(call(SysSocket, uintptr(domain), uintptr(typ), uintptr(proto)))
	if r < 0 && r > -4096 {
		return -1, syscall.Errno(-r)
	}
	return int(r), 0
}
