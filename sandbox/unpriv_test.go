//go:build linux

package sandbox

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// The same tests from an unprivileged parent (uid 1234): the worker's uid maps to the
// parent's own, other namespaces need the user namespace, and seccomp needs no_new_privs.
func TestUnprivilegedParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: the other tests cover this case")
	}
	exe, err := os.Executable()
	must(t, err)
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	must(t, os.Chmod(filepath.Dir(dir), 0o755))
	bin := filepath.Join(dir, "sandbox.test")
	copyFile(t, exe, bin)
	cmd := exec.Command(bin, "-test.v", "-test.run",
		"^(TestAllLayers|TestLandlockAlone|TestSeccompAlone|TestNetNSAlone|TestPidNSAlone|"+
			"TestOtherNamespacesAlone|TestWorkerDiesWithParent|TestRefusalBelowMinimum|TestNoNewPrivsAlone)$")
	cmd.Dir, cmd.Env = dir, []string{workerPATH}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1234, Gid: 1234}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests as uid 1234: %v\n%s", err, out)
	}
	if n := bytes.Count(out, []byte("--- PASS")); n < 9 {
		t.Errorf("only %d tests passed as uid 1234:\n%s", n, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	must(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	must(t, err)
	_, err = io.Copy(out, in)
	must(t, err)
	must(t, out.Close())
}
