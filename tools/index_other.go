//go:build !unix

package tools

import "os"

// diskCache says the platform's file keys are strong enough for the disk
// cache: here they lack the device, the inode and the change time.
const diskCache = false

func keyOf(f *os.File) (fileKey, error) {
	st, err := f.Stat()
	if err != nil {
		return fileKey{}, err
	}
	return fileKey{size: st.Size(), mtime: st.ModTime().UnixNano()}, nil
}

func releasePages(b []byte) {}
