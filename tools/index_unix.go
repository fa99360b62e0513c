//go:build unix

package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// diskCache says the platform's file keys are strong enough for the disk cache.
const diskCache = true

// keyOf identifies the content of the open file f.
func keyOf(f *os.File) (fileKey, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileKey{}, err
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, nil
}

// releasePages drops b's page-table entries. b must be part of a read-only
// shared mapping of a file: its pages stay in the page cache, and a later
// read maps them again. (On private or anonymous memory this would zero it.)
func releasePages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
