//go:build linux

package sandbox

import (
	"path/filepath"
	"syscall"
	"testing"
)

// Landlock alone: reads only below the context files and read roots, writes only in the
// workspace, no exec, no TCP connect.
func TestLandlockAlone(t *testing.T) {
	tr := newTree(t)
	addr := listen(t)
	sp := spec{
		Read:    []string{tr.ctx, filepath.Join(tr.docs, "doc.txt"), tr.canary},
		Write:   []string{filepath.Join(tr.work, "out.txt"), filepath.Join(tr.outside, "x.txt")},
		ExecBin: "/bin/true",
		Connect: addr,
	}
	on := runWorker(t, tr.config(only(Landlock)), sp)
	wantApplied(t, on, Landlock)
	t.Logf("landlock: %s", on.Report.Get(Landlock).Detail)
	wantOK(t, on, "read "+tr.ctx)
	wantOK(t, on, "read "+filepath.Join(tr.docs, "doc.txt"))
	wantErrno(t, on, "read "+tr.canary, syscall.EACCES)
	wantOK(t, on, "write "+filepath.Join(tr.work, "out.txt"))
	wantErrno(t, on, "write "+filepath.Join(tr.outside, "x.txt"), syscall.EACCES)
	wantErrno(t, on, "exec", syscall.EACCES)
	if on.Report.LandlockABI >= 4 {
		wantErrno(t, on, "connect", syscall.EACCES)
	}

	off := runWorker(t, tr.config(noLayers()), sp)
	wantOK(t, off, "read "+tr.canary)
	wantOK(t, off, "write "+filepath.Join(tr.outside, "x.txt"))
	wantOK(t, off, "exec")
	wantOK(t, off, "connect")
}

// Landlock reaches the threads that existed before Apply (go-landlock goes through
// AllThreadsSyscall, or libpsx in a cgo binary, before ABI 8).
func TestLandlockCoversExistingThreads(t *testing.T) {
	tr := newTree(t)
	sp := spec{Read: []string{tr.canary}, Threads: 8}
	on := runWorker(t, tr.config(only(Landlock)), sp)
	wantApplied(t, on, Landlock)
	if got := on.step(t, "threads").Val; got != "0/8" {
		t.Errorf("threads that read the canary after Landlock: %s, want 0/8", got)
	}
	off := runWorker(t, tr.config(noLayers()), sp)
	if got := off.step(t, "threads").Val; got != "8/8" {
		t.Errorf("control: %s threads read the canary, want 8/8", got)
	}
}
