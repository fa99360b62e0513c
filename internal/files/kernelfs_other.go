//go:build !linux

package files

// onKernelFS: only Linux has file systems whose files are made when read (/proc, /sys).
func onKernelFS(string) bool { return false }
