package tools

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically.
func exchange(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
