package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIndexesReadOnlyAndFull: an index cache on a read-only file system, and on a full one,
// falls back to memory with one warning, leaves nothing behind, and the documents are right.
// Real file systems: the test runs itself again in a user and mount namespace, where it mounts
// two small tmpfs, one remounted read-only and one filled up.
func TestIndexesReadOnlyAndFull(t *testing.T) {
	if dir := os.Getenv("RLM_TOOLS_TEST_FS_CHILD"); dir != "" {
		fsChild(t, dir)
		return
	}
	dir := t.TempDir()
	content := []byte(strings.Repeat("a line of the context\n", 5000))
	writeCtx(t, dir, "ctx.txt", content)
	cmd := exec.Command(os.Args[0], "-test.run=^TestIndexesReadOnlyAndFull$", "-test.v")
	cmd.Env = append(os.Environ(), "RLM_TOOLS_TEST_FS_CHILD="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot start a child in a user and mount namespace here (%v): the fallback is covered by TestIndexesUnwritable only", err)
	}
	t.Logf("the child:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestIndexesReadOnlyAndFull") {
		t.Fatalf("the child failed (%v):\n%s", err, out)
	}
}

// fsChild is the child's side: dir holds ctx.txt; ro/ and full/ become the two file systems.
func fsChild(t *testing.T, dir string) {
	must := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("making mounts private", syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""))
	ro, full := filepath.Join(dir, "ro"), filepath.Join(dir, "full")
	for _, d := range []string{ro, full} {
		must("mkdir", os.Mkdir(d, 0o700))
		must("mounting tmpfs on "+d, syscall.Mount("tmpfs", d, "tmpfs", 0, "size=64k"))
		must("mkdir index", os.Mkdir(filepath.Join(d, "index"), 0o700))
	}
	must("remounting read-only", syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""))
	filler, err := os.Create(filepath.Join(full, "filler"))
	must("creating the filler", err)
	for err == nil {
		_, err = filler.Write(make([]byte, 4096))
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v, want ENOSPC", err)
	}
	filler.Close()
	content := mustRead(t, filepath.Join(dir, "ctx.txt"))
	for _, d := range []string{ro, full} {
		t.Run(filepath.Base(d), func(t *testing.T) {
			x, warns := testIndexes(filepath.Join(d, "index"))
			openWith(t, x, filepath.Join(dir, "ctx.txt"), content)
			openWith(t, x, filepath.Join(dir, "ctx.txt"), content) // from memory, no second warning
			if len(*warns) != 1 || !strings.Contains((*warns)[0].Error(), "kept in memory") {
				t.Fatalf("warnings: %v; want one that says the indexes are kept in memory", *warns)
			}
			t.Log((*warns)[0])
			if left, _ := os.ReadDir(filepath.Join(d, "index")); len(left) != 0 {
				t.Fatalf("left in the cache directory: %v", left)
			}
		})
	}
}
