package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/internal/files"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// stdinName is the name of the context file read from stdin (--ctx -).
const stdinName = "stdin.txt"

// pipeWait is how long a --ctx named pipe may wait for a process to open it for writing.
const pipeWait = 5 * time.Second

// saveInputs puts in place of each --ctx that cannot be mapped as it is a private copy of what
// it holds, read to its end: "-" (stdin, given once), a pipe or named pipe (--ctx <(cmd)), and a
// file of /proc or /sys (whose size says nothing of its content). Every copy is read the same
// way (saveStream): its first 8 KiB must be text, and reading stops before the disk holding the
// copies has less free than a run needs. The copies are in one new private directory, which
// cleanup removes; messages name each input as the user did. stdin is nil where "-" is not a
// context (rlm repl reads its cells there).
func (f *sessionFlags) saveInputs(stdin io.Reader) (cleanup func(), err error) {
	cleanup = func() {}
	dir, stdinSeen := "", false
	var ctx []string
	for _, p := range f.ctxFiles {
		kind := files.Mappable
		if p != "-" {
			kind = files.KindOf(p)
		} else if stdinSeen {
			return cleanup, usagef("--ctx - (stdin) can be given once")
		}
		stdinSeen = stdinSeen || p == "-"
		switch {
		case kind == files.Device:
			return cleanup, usagef("--ctx %s is a device, which rlm does not open (opening a device can act on it, and reading some never ends): send what it holds on stdin instead (rlm run --ctx - < %s), or save it to a file first", p, p)
		case p != "-" && kind == files.Mappable:
			ctx = append(ctx, p)
			continue
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "rlm-ctx-"); err != nil {
				return cleanup, fmt.Errorf("saving --ctx %s: %w; set TMPDIR to a writable directory", p, err)
			}
			cleanup = func() { os.RemoveAll(dir) }
		}
		saved, err := saveInput(dir, p, kind, stdin)
		if err != nil {
			cleanup()
			return func() {}, err
		}
		ctx = append(ctx, saved)
	}
	f.ctxFiles = ctx
	return cleanup, nil
}

// saveInput saves one input into dir and returns the copy's path.
func saveInput(dir, p string, kind files.Kind, stdin io.Reader) (string, error) {
	label, name, r := "--ctx", stdinName, stdin
	switch kind {
	case files.Pipe:
		fl, err := files.OpenPipe(label, p, pipeWait)
		if err != nil {
			return "", usageError{err}
		}
		defer fl.Close()
		r, name = fl, copyName(p)
	case files.Kernel:
		fl, err := tools.OpenRegular(p)
		if err != nil {
			return "", usageError{fmt.Errorf("%s: %w", label, err)}
		}
		defer fl.Close()
		r, name = fl, copyName(p)
	}
	what := p
	if p == "-" {
		what = "- (stdin)"
	}
	return saveStream(dir, name, label+" "+what, r)
}

// copyName is the name of a copy in the directory of copies (uniquePath makes it unique there):
// the input's own name ("status" for /proc/self/status), or fdN.txt for a descriptor's number
// (/dev/fd/63).
func copyName(p string) string {
	name := filepath.Base(p)
	if strings.Trim(name, "0123456789") == "" {
		name = "fd" + name + ".txt"
	}
	return name
}

// saveStream copies r to a new file name (made unique) in dir, and returns its path. what names
// the input in messages ("--ctx /dev/fd/63"). It refuses input that does not start as text, and
// stops before the disk holding dir has less than the free space a run needs (limits.MinFreeMB,
// RLM_MIN_FREE_MB).
func saveStream(dir, name, what string, r io.Reader) (string, error) {
	path := uniquePath(dir, name)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("saving %s to %s: %w", what, path, err)
	}
	defer out.Close()
	head := make([]byte, files.HeadBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	label, in, _ := strings.Cut(what, " ")
	if err := files.CheckText(label, in, head[:n], false); err != nil {
		return "", usageError{err}
	}
	minMB := minFreeMB()
	if minMB <= 0 {
		minMB = limits.MinFreeMB
	}
	w := &diskWriter{f: out, what: what, minMB: int64(minMB)}
	if _, err := w.Write(head[:n]); err != nil {
		return "", err
	}
	if _, err := io.Copy(w, r); err != nil {
		return "", err
	}
	return path, out.Close()
}

// uniquePath is dir/name, or dir/N-name for the first N that names no file yet.
func uniquePath(dir, name string) string {
	p := filepath.Join(dir, name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); err != nil {
			return p
		}
		p = filepath.Join(dir, fmt.Sprintf("%d-%s", i, name))
	}
}

// diskWriter writes a saved input, checking every 64 MiB that the disk keeps minMB free.
type diskWriter struct {
	f       *os.File
	what    string
	minMB   int64
	written int64
	checked int64
}

const diskCheckEvery = 64 << 20

func (w *diskWriter) Write(b []byte) (int, error) {
	if w.written+int64(len(b)) >= w.checked+diskCheckEvery {
		w.checked = w.written
		var st unix.Statfs_t
		if err := unix.Statfs(filepath.Dir(w.f.Name()), &st); err == nil {
			if free := int64(st.Bavail) * int64(st.Bsize) >> 20; free < w.minMB {
				return 0, fmt.Errorf("saving %s: stopped after %d MB, with %d MB left free on the disk of %s (a run keeps %d MB free): pass a smaller input, or set TMPDIR to a directory on a larger disk",
					w.what, w.written>>20, free, filepath.Dir(w.f.Name()), w.minMB)
			}
		}
	}
	n, err := w.f.Write(b)
	w.written += int64(n)
	if err != nil {
		return n, fmt.Errorf("saving %s to %s: %w", w.what, w.f.Name(), err)
	}
	return n, nil
}
