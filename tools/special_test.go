package tools

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// promptly runs f and fails the test if it has not returned within 10 s: an open that blocks
// on a fifo must fail the test, not hang it.
func promptly(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked for 10 s (an open of a fifo waits for a writer)", what)
	}
}

// specialTree is a root holding a.txt, a fifo, a unix socket and a link to the fifo.
func specialTree(t *testing.T) (root string) {
	t.Helper()
	root = t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("plain text\n"), 0o644))
	must(t, unix.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(t, os.Symlink("fifo", filepath.Join(root, "fifo-link")))
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	must(t, err)
	t.Cleanup(func() { l.Close() })
	return root
}

// TestFilesSpecialFiles: a fifo or a socket under a root is refused by read_file and grep at
// once, without being opened, and a directory grep skips them.
func TestFilesSpecialFiles(t *testing.T) {
	root := specialTree(t)
	inModes(t, func(t *testing.T) *Files {
		fs, err := NewFiles([]string{root}, "", FileLimits{})
		must(t, err)
		return fs
	}, func(t *testing.T, fs *Files) {
		for _, name := range []string{"fifo", "fifo-link", "sock"} {
			p := filepath.Join(root, name)
			promptly(t, "read_file "+name, func() {
				if got, err := fs.Read(p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("Read(%s) = %q, %v; want ErrInvalid: not a regular file", name, got, err)
				}
			})
			promptly(t, "grep "+name, func() {
				if r, err := fs.Grep("x", p); !errors.Is(err, ErrInvalid) {
					t.Errorf("Grep(%s) = %+v, %v; want ErrInvalid", name, r, err)
				}
			})
			promptly(t, "list_dir "+name, func() {
				if _, err := fs.List(p); !errors.Is(err, ErrInvalid) {
					t.Errorf("List(%s) = %v; want ErrInvalid", name, err)
				}
			})
		}
		promptly(t, "grep of the directory", func() {
			if r, err := fs.Grep("text", root); err != nil || len(r.Matches) != 1 {
				t.Errorf("Grep(root) = %+v, %v; want the one match in a.txt", r, err)
			}
		})
	})
}

// TestOpenRegular: the context store's open (and the index cache's) refuses a fifo, a socket,
// a device and a directory without blocking, and opens a regular file blocking as usual.
func TestOpenRegular(t *testing.T) {
	root := specialTree(t)
	for _, tc := range []struct{ name, want string }{
		{"fifo", "is a named pipe (fifo)"},
		{"fifo-link", "is a named pipe (fifo)"},
		{"sock", "is a socket"},
		{"/dev/null", "is a device"},
		{".", "is a directory"},
	} {
		p := tc.name
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		promptly(t, "OpenRegular "+tc.name, func() {
			f, err := OpenRegular(p)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "save what it holds to a file") {
				t.Errorf("OpenRegular(%s) = %v; want ErrInvalid: %s", tc.name, err, tc.want)
			}
		})
		promptly(t, "Open "+tc.name, func() {
			if s, err := Open([]string{p}, Limits{}); err == nil {
				s.Close()
				t.Errorf("Open(%s) opened it", tc.name)
			}
		})
	}
	f, err := OpenRegular(filepath.Join(root, "a.txt"))
	must(t, err)
	defer f.Close()
	if fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the descriptor's flags are %#x (%v); want it blocking again", fl, err)
	}
	if _, err := OpenRegular(filepath.Join(root, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenRegular(missing) = %v; want ErrNotExist", err)
	}
}

// TestIndexCacheFifo: a fifo where the index cache keeps a file's index, and an index that
// names a fifo as its file, are read as no index (and as stale), without blocking.
func TestIndexCacheFifo(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	in := filepath.Join(dir, "in.txt")
	must(t, os.WriteFile(in, []byte("line\n"), 0o644))
	f, err := os.Open(in)
	must(t, err)
	key, err := keyOf(f)
	f.Close()
	must(t, err)
	x := NewIndexes(cache, nil)
	must(t, unix.Mkfifo(x.cachePath(key), 0o644))
	promptly(t, "Indexes.Open with a fifo in the cache", func() {
		s, err := x.Open([]string{in}, Limits{})
		if err != nil {
			t.Errorf("Open = %v", err)
			return
		}
		s.Close()
	})
	fifo, cache2 := filepath.Join(dir, "fifo"), t.TempDir()
	must(t, unix.Mkfifo(fifo, 0o644))
	fd, err := unix.Open(in, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	must(t, err)
	named := os.NewFile(uintptr(fd), fifo) // in.txt, under the fifo's name
	enc, err := NewIndexes("", nil).Encoded(named)
	named.Close()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(cache2, cacheName(key)), enc, 0o644))
	promptly(t, "StaleIndexes", func() {
		if stale, err := StaleIndexes(cache2); err != nil || len(stale) != 1 {
			t.Errorf("StaleIndexes = %v, %v; want the index that names the fifo", stale, err)
		}
	})
}
