//go:build linux && cgo

package sandbox

// cgoThreads: in a cgo build each OS thread is made by pthread_create, with a C stack of the
// size RLIMIT_STACK named when the process started, reserved in full (see threadStacks).
const cgoThreads = true
