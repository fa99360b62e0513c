//go:build linux && !rlm_portable

package sandbox

// portable is false in every real build: Linux workers get Linux's layers.
const portable = false
