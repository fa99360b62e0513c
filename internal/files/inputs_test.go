package files

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKindOf: a named pipe, a device and a file of /proc are told apart from a regular file
// without being opened.
func TestKindOf(t *testing.T) {
	dir := t.TempDir()
	fifo, plain := filepath.Join(dir, "pipe"), filepath.Join(dir, "log.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{fifo: Pipe, plain: Mappable, "/dev/null": Device, filepath.Join(dir, "missing"): Mappable}
	if runtime.GOOS == "linux" {
		want["/proc/self/status"] = Kernel
	}
	for p, k := range want {
		if got := KindOf(p); got != k {
			t.Errorf("KindOf(%s) = %d, want %d", p, got, k)
		}
	}
}

// TestKernelFilesRefused: where files are mapped (the Go API, the MCP server), a file of /proc,
// which says it is empty, is refused with what to do instead of read as empty.
func TestKernelFilesRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	_, err := Contexts([]string{"/proc/self/status"}, "file")
	want := "file /proc/self/status is a file of the kernel's (/proc, /sys): its size says nothing of what it holds, so rlm cannot map it: save it to a file first (cat /proc/self/status > FILE.txt) and pass that"
	if err == nil || err.Error() != want {
		t.Errorf("Contexts(/proc/self/status) = %v; want %q", err, want)
	}
}

// TestOpenPipe: a named pipe is read whether its writer came before rlm opened it (even one that
// wrote and left at once) or while it waits; one no process opens for writing gives an error
// after the wait, never a hang.
func TestOpenPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(delay time.Duration, text string) {
		go func() {
			time.Sleep(delay)
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // blocks until the reader comes
				f.WriteString(text)
				f.Close()
			}
		}()
	}
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"a writer first", 0}, {"a writer while rlm waits", 300 * time.Millisecond}} {
		write(tc.delay, tc.name+"\n")
		time.Sleep(50 * time.Millisecond) // the first writer is now blocked in its open
		f, err := OpenPipe("--ctx", fifo, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != tc.name+"\n" {
			t.Errorf("%s: read %q, %v", tc.name, b, err)
		}
	}
	start := time.Now()
	_, err := OpenPipe("--ctx", fifo, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "is a named pipe no process opened for writing within 200ms: start the writer first") || !strings.Contains(err.Error(), "rlm run --ctx -") {
		t.Errorf("no writer: %v; want an error that says to start the writer or use --ctx -", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("no writer: the error took %s", d)
	}
}
