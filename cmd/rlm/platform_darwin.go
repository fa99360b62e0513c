package main

import "golang.org/x/sys/unix"

// The terminal ioctls (macOS names them after the BSDs).
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)
