//go:build linux && rlm_portable

package sandbox

// portable is true only in a test build (-tags rlm_portable): Linux is built the way macOS is,
// so the macOS path (degraded.go: no Linux layer, rlimits and the watchdogs only, refused
// without AllowDegraded) runs end to end here, through rlm, the REPL and the CLI. Nothing is
// missing from the kernel: the layers are deliberately not used. A release never has the tag.
const portable = true
