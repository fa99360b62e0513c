//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// build builds rlm and rlm-worker (pkgs) into dir with stamp as their wire.stamp, as a
// packager would: go build -o DIR/ -ldflags=-X=...wire.stamp=STAMP ./cmd/...
func build(t *testing.T, dir, stamp string, pkgs ...string) {
	t.Helper()
	args := []string{"build", "-o", dir + "/", "-ldflags=-X=github.com/rlm-sandbox/rlm/wire.stamp=" + stamp}
	for _, p := range pkgs {
		args = append(args, "github.com/rlm-sandbox/rlm/cmd/"+p)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if errors.Is(err, exec.ErrNotFound) {
		t.Skip("no go command to build rlm")
	} else if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// isolationWorker runs rlm isolation and returns its worker line.
func isolationWorker(t *testing.T, rlm string) string {
	t.Helper()
	out, err := exec.Command(rlm, "isolation").Output()
	if err != nil {
		t.Fatalf("rlm isolation: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "worker: ") {
			return l
		}
	}
	t.Fatalf("rlm isolation printed no worker line:\n%s", out)
	return ""
}

// TestRlmFindsItsWorker builds rlm and rlm-worker together and checks, end to end, that rlm
// runs its sessions in rlm-worker (rlm isolation says so, and a session's worker process is
// rlm-worker), and that it falls back to itself when rlm-worker is of another build, writable
// by others, or absent, saying why. It logs the worker's resident memory before its first cell.
func TestRlmFindsItsWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rlm (-short)")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rlm, worker := filepath.Join(dir, "rlm"), filepath.Join(dir, "rlm-worker")
	build(t, dir, "e2e-1", "rlm", "rlm-worker")
	if got, want := isolationWorker(t, rlm), "worker: "+worker; got != want {
		t.Fatalf("%q; want %q", got, want)
	}
	if exe, rss := sessionWorker(t, rlm); exe != worker {
		t.Errorf("a session's worker runs %s; want %s", exe, worker)
	} else {
		t.Logf("rlm-worker, resident before its first cell (go): %d KiB", rss)
	}

	build(t, dir, "e2e-2", "rlm-worker") // a stale rlm-worker
	if got := isolationWorker(t, rlm); !strings.Contains(got, "fallback: this binary") || !strings.Contains(got, "another build") {
		t.Errorf("with rlm-worker of another build: %q; want the fallback and why", got)
	}
	if exe, rss := sessionWorker(t, rlm); exe != rlm {
		t.Errorf("with rlm-worker of another build, a session's worker runs %s; want %s", exe, rlm)
	} else {
		t.Logf("rlm __worker, resident before its first cell (go): %d KiB", rss)
	}

	build(t, dir, "e2e-1", "rlm-worker")
	if err := os.Chmod(worker, 0o775); err != nil {
		t.Fatal(err)
	}
	if got := isolationWorker(t, rlm); !strings.Contains(got, "fallback: this binary") || !strings.Contains(got, "may be written by its group") {
		t.Errorf("with a group-writable rlm-worker: %q; want the fallback and why", got)
	}
	if err := os.Remove(worker); err != nil {
		t.Fatal(err)
	}
	if got := isolationWorker(t, rlm); !strings.Contains(got, "fallback: this binary") || !strings.Contains(got, "there is no rlm-worker") {
		t.Errorf("without rlm-worker: %q; want the fallback and why", got)
	}
}

// sessionWorker starts rlm repl, finds its worker process, and returns the program that process
// runs and its resident memory (VmRSS, KiB) before any cell; then it runs one cell and ends the
// REPL.
func sessionWorker(t *testing.T, rlm string) (string, int64) {
	t.Helper()
	cmd := exec.Command(rlm, "repl", "--lang", "go")
	cmd.Env = append(os.Environ(), "RLM_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := findChild(t, cmd.Process.Pid)
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	rss := statusField(pid, "VmRSS:")
	if _, err := io.WriteString(stdin, "fmt.Println(6 * 7)\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "42") {
		t.Errorf("rlm repl: %v\n%s\nwant 42", err, out.String())
	}
	return exe, rss
}

// findChild waits for the worker: the child of pid that has answered the handshake (its
// resident memory stops growing once it waits for the first cell).
func findChild(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children") // any thread may have started it
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			for _, f := range strings.Fields(string(b)) {
				if child, _ := strconv.Atoi(f); settled(child) {
					return child
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("rlm repl started no worker")
	return 0
}

// settled reports whether pid's resident memory is the same over 300 ms and it sleeps (it waits
// on its stdin for a cell).
func settled(pid int) bool {
	a := statusField(pid, "VmRSS:")
	time.Sleep(300 * time.Millisecond)
	return a > 0 && a == statusField(pid, "VmRSS:") && strings.HasPrefix(statusLine(pid, "State:"), "S")
}

func statusField(pid int, key string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(statusLine(pid, key), " kB"), 10, 64)
	return n
}

func statusLine(pid int, key string) string {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
