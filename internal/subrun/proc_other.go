//go:build !linux

package subrun

import "syscall"

// dieWithParent has no equivalent here: a child outlives a parent killed with SIGKILL until
// its own deadline (Spec.Timeout) ends it.
func dieWithParent() *syscall.SysProcAttr { return nil }
