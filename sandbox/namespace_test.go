//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The network namespace alone: no interface, not even loopback.
func TestNetNSAlone(t *testing.T) {
	addr := listen(t)
	on := runWorker(t, nsOnly(NetNS), spec{Connect: addr})
	wantApplied(t, on, NetNS)
	wantErrno(t, on, "connect", syscall.ENETUNREACH, syscall.ECONNREFUSED)
	off := runWorker(t, noLayers(), spec{Connect: addr})
	wantOK(t, off, "connect")
}

// The user namespace alone: the worker is uid 65534, in the namespace and on the host,
// and cannot read a root-only file.
func TestUserNSAlone(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	must(t, os.Chmod(filepath.Dir(dir), 0o755))
	secret := filepath.Join(dir, "shadow")
	must(t, os.WriteFile(secret, []byte("root-only"), 0o600))
	if os.Geteuid() != 0 {
		t.Skip("needs a root parent to own a file the worker must not read")
	}
	sp := spec{Read: []string{secret}}
	on := runWorker(t, only(UserNS), sp)
	wantApplied(t, on, UserNS)
	if got := on.step(t, "uid").Val; got != "65534" {
		t.Errorf("uid in the worker = %s, want 65534", got)
	}
	wantErrno(t, on, "read "+secret, syscall.EACCES)

	off := runWorker(t, noLayers(), sp)
	if got := off.step(t, "uid").Val; got != "0" {
		t.Errorf("control uid = %s, want 0", got)
	}
	wantOK(t, off, "read "+secret)

	// Seen from the host, the worker is not root either (NOTES: a mapping to 0 was).
	cmd, _, _ := startWorker(t, only(UserNS), spec{Mode: "wait"}, "ready")
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	must(t, err)
	for line := range strings.Lines(string(status)) {
		f := strings.Fields(line)
		if len(f) == 0 || (f[0] != "Uid:" && f[0] != "Gid:" && f[0] != "Groups:") {
			continue
		}
		t.Logf("host view: %s", strings.Join(f, " "))
		if slices.Contains(f[1:], "0") {
			t.Errorf("the worker has root ids on the host: %s", strings.Join(f, " "))
		}
	}
}

// The pid namespace alone: the worker is pid 1 and cannot see (or signal) the parent.
func TestPidNSAlone(t *testing.T) {
	sp := spec{Signal: os.Getpid()}
	on := runWorker(t, nsOnly(PidNS), sp)
	wantApplied(t, on, PidNS)
	if got := on.step(t, "pid").Val; got != "1" {
		t.Errorf("pid in the worker = %s, want 1", got)
	}
	wantErrno(t, on, "signal", syscall.ESRCH)
	off := runWorker(t, noLayers(), sp)
	wantOK(t, off, "signal")
}

// Mount, IPC and UTS namespaces: the worker's namespace identities differ from ours.
func TestOtherNamespacesAlone(t *testing.T) {
	for _, l := range []Layer{MountNS, IPCNS, UTSNS} {
		on := runWorker(t, nsOnly(l), spec{})
		wantApplied(t, on, l)
		if off := runWorker(t, noLayers(), spec{}); off.Report.Get(l).Status != Off {
			t.Errorf("%s with every layer off: %+v", l, off.Report.Get(l))
		}
	}
}
