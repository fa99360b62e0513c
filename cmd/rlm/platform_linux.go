package main

import "golang.org/x/sys/unix"

// The terminal ioctls.
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
