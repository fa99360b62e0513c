//go:build linux && !cgo

package sandbox

// cgoThreads: without cgo the runtime makes its threads itself, each with a small stack taken
// from the Go heap, so threads need no address space of their own (see threadStacks).
const cgoThreads = false
