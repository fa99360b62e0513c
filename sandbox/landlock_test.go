//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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

// Landlock rules made from inherited descriptors (Config.ReadDirFDs, WorkspaceFD) instead of
// paths: the worker reads below the read root, writes only in the workspace, and nothing else.
func TestLandlockFromDescriptors(t *testing.T) {
	tr := newTree(t)
	docs, err := os.OpenFile(tr.docs, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	defer docs.Close()
	work, err := os.OpenFile(tr.work, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	defer work.Close()
	sp := spec{
		Read:  []string{filepath.Join(tr.docs, "doc.txt"), tr.canary, tr.ctx},
		Write: []string{filepath.Join(tr.work, "out.txt"), filepath.Join(tr.docs, "x.txt"), filepath.Join(tr.outside, "x.txt")},
	}
	cfg := only(Landlock)
	cfg.ExtraFiles, cfg.ReadDirFDs, cfg.WorkspaceFD = []*os.File{docs, work}, []int{3}, 4
	on := runWorker(t, cfg, sp)
	wantApplied(t, on, Landlock)
	wantOK(t, on, "read "+filepath.Join(tr.docs, "doc.txt"))
	wantErrno(t, on, "read "+tr.canary, syscall.EACCES)
	wantErrno(t, on, "read "+tr.ctx, syscall.EACCES)
	wantOK(t, on, "write "+filepath.Join(tr.work, "out.txt"))
	wantErrno(t, on, "write "+filepath.Join(tr.docs, "x.txt"), syscall.EACCES)
	wantErrno(t, on, "write "+filepath.Join(tr.outside, "x.txt"), syscall.EACCES)
}
