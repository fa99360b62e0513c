package repl

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/wire"
)

// besideExe makes a directory holding an executable "rlm" and returns both paths.
func besideExe(t *testing.T) (dir, exe string) {
	t.Helper()
	dir = t.TempDir()
	exe = filepath.Join(dir, "rlm")
	if err := os.WriteFile(exe, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, exe
}

func writeWorker(t *testing.T, dir string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, WorkerName)
	if err := os.WriteFile(p, []byte("#!/bin/true\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

// TestSiblingChecks: rlm-worker is used only when it is a regular file beside the executable,
// not a symbolic link, a directory or a FIFO, written by nobody but its owner, in a directory
// nobody else may write (a sticky one may be).
func TestSiblingChecks(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		why   string // "" when it is used
	}{
		{"absent", func(*testing.T, string) {}, "there is no rlm-worker"},
		{"regular", func(t *testing.T, dir string) { writeWorker(t, dir, 0o755) }, ""},
		{"group-writable", func(t *testing.T, dir string) { writeWorker(t, dir, 0o775) }, "may be written by its group or by others"},
		{"world-writable", func(t *testing.T, dir string) { writeWorker(t, dir, 0o757) }, "may be written by its group or by others"},
		{"symbolic link", func(t *testing.T, dir string) {
			target := writeWorker(t, t.TempDir(), 0o755)
			if err := os.Symlink(target, filepath.Join(dir, WorkerName)); err != nil {
				t.Fatal(err)
			}
		}, "a symbolic link is not followed"},
		{"directory", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, WorkerName), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"fifo", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, WorkerName), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"group-writable directory", func(t *testing.T, dir string) {
			writeWorker(t, dir, 0o755)
			chmod(t, dir, 0o775)
		}, "may be written by its group or by others"},
		{"sticky world-writable directory", func(t *testing.T, dir string) {
			writeWorker(t, dir, 0o755)
			chmod(t, dir, 0o777|os.ModeSticky)
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, exe := besideExe(t)
			c.setup(t, dir)
			done := make(chan struct{})
			var f *os.File
			var err error
			go func() { // a FIFO must not block the lookup
				defer close(done)
				f, _, err = openSibling(exe)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("openSibling blocked")
			}
			if f != nil {
				f.Close()
			}
			switch {
			case c.why == "" && err != nil:
				t.Errorf("refused: %v; want it used", err)
			case c.why != "" && (err == nil || !strings.Contains(err.Error(), c.why)):
				t.Errorf("error %v; want one that says %q", err, c.why)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestSiblingOwners: as root, a file or directory owned by another uid than the executable's
// owner or root is refused; one owned by root beside another user's executable is used.
func TestSiblingOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root")
	}
	const other = 12345
	chown := func(t *testing.T, path string, uid int) {
		t.Helper()
		if err := os.Lchown(path, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("another user's file", func(t *testing.T) {
		dir, exe := besideExe(t)
		chown(t, writeWorker(t, dir, 0o755), other)
		if _, _, err := openSibling(exe); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
			t.Errorf("error %v; want the owner named", err)
		}
	})
	t.Run("another user's directory", func(t *testing.T) {
		dir, exe := besideExe(t)
		writeWorker(t, dir, 0o755)
		chown(t, dir, other)
		if _, _, err := openSibling(exe); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
			t.Errorf("error %v; want the owner named", err)
		}
	})
	t.Run("root's file beside a user's executable", func(t *testing.T) {
		dir, exe := besideExe(t)
		writeWorker(t, dir, 0o755)
		chown(t, exe, other)
		f, _, err := openSibling(exe)
		if err != nil {
			t.Fatalf("refused: %v; want it used", err)
		}
		f.Close()
	})
}

// TestSiblingOnlyBesideExecutable: an rlm-worker on $PATH or in the working directory is never
// looked at; only the executable's own directory is.
func TestSiblingOnlyBesideExecutable(t *testing.T) {
	_, exe := besideExe(t)
	elsewhere := t.TempDir()
	writeWorker(t, elsewhere, 0o755)
	t.Setenv("PATH", elsewhere+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(elsewhere)
	if f, path, err := openSibling(exe); err == nil {
		f.Close()
		t.Fatalf("found %s; want none beside %s", path, exe)
	} else if !strings.Contains(err.Error(), "there is no rlm-worker beside "+exe) {
		t.Errorf("error %v; want that there is none beside the executable", err)
	}
	if _, _, err := openSibling("rlm"); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("a relative executable path: error %v; want it refused", err)
	}
}

// workerBinary builds cmd/rlm-worker into a directory of its own, beside a stand-in for rlm,
// with stamp as its wire.stamp ("" for none).
func workerBinary(t *testing.T, stamp string) string {
	t.Helper()
	dir, _ := besideExe(t)
	bin := filepath.Join(dir, WorkerName)
	args := []string{"build", "-o", bin}
	if stamp != "" {
		args = append(args, "-ldflags=-X=github.com/rlm-sandbox/rlm/wire.stamp="+stamp)
	}
	out, err := exec.Command("go", append(args, "github.com/rlm-sandbox/rlm/cmd/rlm-worker")...).CombinedOutput()
	if errors.Is(err, exec.ErrNotFound) {
		t.Skip("no go command to build rlm-worker")
	} else if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestWorkerRunsTheCheckedFile: a confined session runs rlm-worker through the descriptor that
// was checked, with context files and roots inherited around it, and the process is rlm-worker
// even after the name is replaced.
func TestWorkerRunsTheCheckedFile(t *testing.T) {
	bin := workerBinary(t, "")
	exe, _, err := openSibling(filepath.Join(filepath.Dir(bin), "rlm"))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	if err := os.Rename(bin, bin+".old"); err != nil { // what runs is the open file, not the name
		t.Fatal(err)
	}
	writeWorker(t, filepath.Dir(bin), 0o755)
	o := confinedOptions(t, "js")
	for range 12 { // more inherited descriptors than the child moves about while it starts
		root := t.TempDir()
		chmod(t, root, 0o755) // the worker's uid checks its access to each root
		o.Roots = append(o.Roots, root)
	}
	o = o.WithDefaults()
	in, err := openInherited(o)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	w, ready, err := launch(context.Background(), o, in, launchSpec{cmd: WorkerCommand{Path: bin, Args: []string{}}, exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer w.killWait()
	if ready.Version != wire.Version || ready.Isolation == "none" {
		t.Errorf("ready %+v; want version %d and a confined worker", ready, wire.Version)
	}
	if got, err := os.Readlink("/proc/" + strconv.Itoa(w.cmd.Process.Pid) + "/exe"); err == nil && got != bin+".old" {
		t.Errorf("the worker runs %s; want %s.old, the file that was checked", got, bin)
	}
	res, _, death := w.exec(context.Background(), execReq{id: 1, code: `print(length(context) > 0)`, room: [2]int64{1 << 20, 1 << 20}}, o)
	if death != nil || res.Err != nil || res.Stdout != "true\n" {
		t.Errorf("cell: %q, %v, %v; want true", res.Stdout, res.Err, death)
	}
}

// TestStaleSiblingFallsBack: an rlm-worker of another build is refused at the handshake, before
// any code reaches it, and the session runs this executable instead; later sessions do not try
// it again, and DefaultWorker-style reports say why.
func TestStaleSiblingFallsBack(t *testing.T) {
	bin := workerBinary(t, "another-build") // its BuildID differs from this test binary's
	exe, path, err := openSibling(filepath.Join(filepath.Dir(bin), "rlm"))
	if err != nil {
		t.Fatal(err)
	}
	sib := &siblingWorker{looked: true, file: exe, path: path}
	o := confinedOptions(t, "js")
	o.Worker = WorkerCommand{}
	o = o.WithDefaults()
	in, err := openInherited(o)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	w, _, err := startFrom(context.Background(), o, in, sib)
	if err != nil {
		t.Fatal(err)
	}
	defer w.killWait()
	rep := sib.report()
	if !rep.Fallback || !strings.Contains(rep.Why, "another build") {
		t.Errorf("report %+v; want the fallback, because rlm-worker is of another build", rep)
	}
	if got, err := os.Readlink("/proc/" + strconv.Itoa(w.cmd.Process.Pid) + "/exe"); err == nil && got == bin {
		t.Errorf("the worker runs %s; want this executable", got)
	}
	if _, _, ok := sib.candidate(); ok {
		t.Error("rlm-worker is still a candidate after it was refused")
	}
}

// TestCheckReady: another protocol version is refused for every worker; another build only for
// rlm-worker (an explicit WorkerCommand is the caller's choice).
func TestCheckReady(t *testing.T) {
	build, _ := wire.BuildID()
	var bad *unusableError
	if err := checkReady(&wire.Ready{Version: wire.Version + 1, Build: build}, "w", false); !errors.As(err, &bad) || !strings.Contains(err.Error(), "protocol version") {
		t.Errorf("another version: %v; want it refused", err)
	}
	if err := checkReady(&wire.Ready{Version: wire.Version, Build: "other"}, "w", true); !errors.As(err, &bad) || !strings.Contains(err.Error(), "another build") {
		t.Errorf("rlm-worker of another build: %v; want it refused", err)
	}
	if err := checkReady(&wire.Ready{Version: wire.Version, Build: "other"}, "w", false); err != nil {
		t.Errorf("an explicit worker of another build: %v; want it accepted", err)
	}
}

// TestUnstampedBuildRunsItself: a build that cannot tell itself apart from older builds (this
// test binary: no module version, no VCS revision, no stamp) never looks for rlm-worker.
func TestUnstampedBuildRunsItself(t *testing.T) {
	if _, stamped := wire.BuildID(); stamped {
		t.Skip("this test binary is stamped")
	}
	sib := &siblingWorker{}
	if _, _, ok := sib.candidate(); ok {
		t.Fatal("rlm-worker is a candidate in an unstamped build")
	}
	if rep := sib.report(); !rep.Fallback || !strings.Contains(rep.Why, "stamp") {
		t.Errorf("report %+v; want the fallback, and why", rep)
	}
}
