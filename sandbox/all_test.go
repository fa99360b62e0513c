//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Every layer together, the way rlm runs untrusted code.
func TestAllLayers(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-reach-the-worker")
	tr := newTree(t)
	addr := listen(t)
	sp := spec{
		Read:     []string{tr.canary, tr.ctx, filepath.Join(tr.docs, "doc.txt"), "/etc/hostname"},
		Write:    []string{filepath.Join(tr.work, "out.txt"), filepath.Join(tr.outside, "x.txt")},
		ExecBin:  "/bin/true",
		Connect:  addr,
		Syscalls: true,
		Threads:  4,
		Signal:   os.Getpid(),
	}
	r := runWorker(t, tr.config(Config{}), sp)
	wantApplied(t, r, DefaultMinimum|UserNS|NetNS)
	v := r.Report.Verdict()
	t.Logf("verdict %s", v)
	if v.Level != "full" && !(v.Missing == PidNS && cgoLinked()) {
		t.Errorf("verdict %s on a machine that supports every layer", v)
	}
	wantOK(t, r, "read "+tr.ctx)
	wantOK(t, r, "read "+filepath.Join(tr.docs, "doc.txt"))
	wantErrno(t, r, "read "+tr.canary, syscall.EACCES)
	wantErrno(t, r, "read /etc/hostname", syscall.EACCES)
	wantOK(t, r, "write "+filepath.Join(tr.work, "out.txt"))
	wantErrno(t, r, "write "+filepath.Join(tr.outside, "x.txt"), syscall.EACCES)
	wantErrno(t, r, "exec", syscall.EPERM)
	wantErrno(t, r, "connect", syscall.EPERM) // socket() itself is denied
	wantErrno(t, r, "socket", syscall.EPERM)
	wantErrno(t, r, "fork", syscall.EPERM)
	wantErrno(t, r, "mmap exec", syscall.EPERM)
	if got := r.step(t, "threads").Val; got != "0/4" {
		t.Errorf("pre-existing threads that read the canary: %s, want 0/4", got)
	}
	if got := r.step(t, "uid").Val; got != "65534" {
		t.Errorf("uid %s, want 65534", got)
	}
	env := r.step(t, "env").Val
	for _, bad := range []string{"OPENAI_API_KEY", EnvConfig, "HOME="} {
		if strings.Contains(env, bad) {
			t.Errorf("worker environment contains %s:\n%s", bad, env)
		}
	}
}

// Only stdio and ExtraFiles reach the worker, even a descriptor the parent opened
// without close-on-exec.
func TestNoInheritedDescriptors(t *testing.T) {
	leak, err := syscall.Open("/etc/hostname", syscall.O_RDONLY, 0) // no O_CLOEXEC
	must(t, err)
	defer syscall.Close(leak)
	extra, err := os.Open("/etc/hostname")
	must(t, err)
	defer extra.Close()
	cfg := noLayers()
	cfg.ExtraFiles = []*os.File{extra}
	r := runWorker(t, cfg, spec{FDs: []int{3, leak}})
	wantOK(t, r, "fd 3")
	wantErrno(t, r, "fd "+strconv.Itoa(leak), syscall.EBADF)
}
