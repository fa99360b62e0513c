package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inModes builds a Files with open and runs f on it in the kernel's mode (openat2) and in the
// portable mode as macOS runs it.
func inModes(t *testing.T, open func(t *testing.T) *Files, f func(t *testing.T, fs *Files)) {
	for _, mode := range []string{"openat2", "portable"} {
		t.Run(mode, func(t *testing.T) {
			fs := open(t)
			defer fs.Close()
			if mode == "openat2" && !fs.openat2 {
				t.Skip("the kernel has no openat2")
			}
			if mode == "portable" {
				portable(fs)
			}
			f(t, fs)
		})
	}
}

// linkedTree builds tmp/{data/real/{in.txt,notes.txt,sub/b.txt,in-link,out-link}, data/link ->
// real, data/other -> real, ws/, wslink -> ws, outside/secret}: a root the user names through
// a symlink, as /tmp is on macOS.
type linkedTree struct{ dir, real, link, other, ws, wslink, secret string }

func newLinkedTree(t *testing.T) linkedTree {
	t.Helper()
	d := t.TempDir()
	lt := linkedTree{dir: d, real: filepath.Join(d, "data", "real"), link: filepath.Join(d, "data", "link"),
		other: filepath.Join(d, "data", "other"), ws: filepath.Join(d, "ws"), wslink: filepath.Join(d, "wslink"),
		secret: filepath.Join(d, "outside", "secret")}
	for _, p := range []string{filepath.Join(lt.real, "sub"), lt.ws, filepath.Dir(lt.secret)} {
		must(t, os.MkdirAll(p, 0o755))
	}
	must(t, os.WriteFile(lt.secret, []byte(secretText+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(lt.real, "in.txt"), []byte("input\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(lt.real, "notes.txt"), []byte("notes beside it\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(lt.real, "sub", "b.txt"), []byte("below notes\n"), 0o644))
	must(t, os.Symlink("notes.txt", filepath.Join(lt.real, "in-link")))
	must(t, os.Symlink("../../outside/secret", filepath.Join(lt.real, "out-link")))
	must(t, os.Symlink("real", lt.link))
	must(t, os.Symlink("real", lt.other))
	must(t, os.Symlink("ws", lt.wslink))
	return lt
}

// TestFilesNamedRoots: a root the user named through a symlink (rlm run --ctx
// /data/link/in.txt) is reached by that name and by its real path alike, with the same
// confinement after resolution; paths outside it stay refused either way, and messages name
// the roots as the user named them.
func TestFilesNamedRoots(t *testing.T) {
	lt := newLinkedTree(t)
	open := func(t *testing.T) *Files {
		fs, err := NewFiles([]string{lt.link}, lt.wslink, FileLimits{})
		must(t, err)
		return fs
	}
	inModes(t, open, func(t *testing.T, fs *Files) {
		for _, tc := range []struct{ path, want string }{
			{lt.link + "/notes.txt", "notes beside it\n"},
			{lt.real + "/notes.txt", "notes beside it\n"},
			{lt.link + "/sub/../notes.txt", "notes beside it\n"},
			{lt.link + "//sub/b.txt", "below notes\n"},
			{lt.link + "/in-link", "notes beside it\n"},
			{lt.link + "/sub/../../link/notes.txt", "notes beside it\n"}, // .. of the real root, then the name again
			{lt.wslink + "/../data/link/notes.txt", "notes beside it\n"},
		} {
			if got, err := fs.Read(tc.path); err != nil || got != tc.want {
				t.Errorf("Read(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		}
		for _, p := range []string{lt.link, lt.link + "/", lt.real} {
			if got, err := fs.List(p); err != nil || strings.Join(got, ",") != "in-link,in.txt,notes.txt,out-link,sub/" {
				t.Errorf("List(%q) = %v, %v", p, got, err)
			}
		}
		if fi, err := fs.Info(lt.link + "/sub"); err != nil || !fi.IsDir || fi.Name != "sub" {
			t.Errorf("Info(link/sub) = %+v, %v", fi, err)
		}
		if r, err := fs.Grep("notes", lt.link); err != nil || len(r.Matches) != 2 || r.Matches[0].Path != lt.link+"/notes.txt" {
			t.Errorf("Grep(link) = %+v, %v; want 2 matches named under the link", r, err)
		}
		if _, err := fs.Write(lt.wslink+"/new.txt", "x"); err != nil {
			t.Errorf("Write(wslink/new.txt) = %v", err)
		} else if b, err := os.ReadFile(filepath.Join(lt.ws, "new.txt")); err != nil || string(b) != "x" {
			t.Errorf("written: %q, %v", b, err)
		}
		for _, p := range []string{
			lt.link + "/out-link", lt.link + "/../../outside/secret", lt.link + "/../link/../../outside/secret",
			lt.other + "/notes.txt", // the same directory by a name nobody gave: outside
			lt.dir + "/data/notes.txt", lt.secret,
		} {
			want := fs.outside(p).Error()
			got, err := fs.Read(p)
			if err == nil || !errors.Is(err, ErrDenied) || strings.Contains(got, secretText) {
				t.Errorf("Read(%q) = %q, %v; want ErrDenied", p, got, err)
			}
			if _, err := fs.Info(p); p != lt.link+"/out-link" && (err == nil || err.Error() != want) {
				t.Errorf("Info(%q) = %v; want %s", p, err, want)
			}
		}
		msg := fs.outside("/x").Error()
		if !strings.Contains(msg, lt.link) || !strings.Contains(msg, lt.wslink) || strings.Contains(msg, lt.real) {
			t.Errorf("outside message = %s; want the roots as named (%s, %s), not %s", msg, lt.link, lt.wslink, lt.real)
		}
	})
}

// TestFilesNamedRootsBothNames: the same directory named twice, by its link and by its real
// path, is one root reached by both names.
func TestFilesNamedRootsBothNames(t *testing.T) {
	lt := newLinkedTree(t)
	link, err := OpenDir(lt.link)
	must(t, err)
	real, err := OpenDir(lt.real)
	must(t, err)
	other, err := OpenDir(lt.other)
	must(t, err)
	fs, err := NewFilesAt([]Dir{real, link, other}, nil, FileLimits{}, nil)
	must(t, err)
	defer fs.Close()
	if len(fs.roots) != 1 || strings.Join(fs.roots[0].names, ",") != lt.link+","+lt.other {
		t.Fatalf("roots = %+v; want one root named %s and %s", fs.roots[0], lt.link, lt.other)
	}
	for _, p := range []string{lt.link + "/in.txt", lt.other + "/in.txt", lt.real + "/in.txt"} {
		if got, err := fs.Read(p); err != nil || got != "input\n" {
			t.Errorf("Read(%q) = %q, %v", p, got, err)
		}
	}
}
