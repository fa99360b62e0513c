//go:build linux && !cgo

package sandbox

// Without cgo the runtime makes its threads itself, each with a small system stack taken from
// the Go heap: there is no C stack to pin or to allow for.
func pinThreadStacks() error { return nil }

func threadStacks(int) uint64 { return 0 }
