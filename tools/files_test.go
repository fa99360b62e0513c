package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// fileTree builds tmp/{root,ws,outside}: root holds a.txt, sub/b.txt and symlinks out of it; ws
// is the workspace; outside holds secret, which no tool may ever return.
type fileTree struct{ dir, root, ws, outside, secret string }

const secretText = "SECRET-OUTSIDE"

func newFileTree(t *testing.T) fileTree {
	t.Helper()
	d := t.TempDir()
	ft := fileTree{dir: d, root: filepath.Join(d, "root"), ws: filepath.Join(d, "ws"), outside: filepath.Join(d, "outside")}
	ft.secret = filepath.Join(ft.outside, "secret")
	for _, p := range []string{ft.root, ft.ws, ft.outside, filepath.Join(ft.root, "sub")} {
		must(t, os.MkdirAll(p, 0o755))
	}
	must(t, os.WriteFile(ft.secret, []byte(secretText+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ft.root, "a.txt"), []byte("alpha\nbeta gamma\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ft.root, "sub", "b.txt"), []byte("one\ngamma two\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ft.ws, "w.txt"), []byte("in workspace\n"), 0o644))
	must(t, os.Symlink(ft.secret, filepath.Join(ft.root, "abs-link")))           // absolute, points out
	must(t, os.Symlink("../outside/secret", filepath.Join(ft.root, "rel-link"))) // relative, points out
	must(t, os.Symlink("/etc/passwd", filepath.Join(ft.root, "passwd-link")))    // the classic
	must(t, os.Symlink(ft.outside, filepath.Join(ft.root, "dir-link")))          // directory, points out
	must(t, os.Symlink("a.txt", filepath.Join(ft.root, "good-link")))            // stays inside
	must(t, os.Symlink(filepath.Join(ft.root, "a.txt"), filepath.Join(ft.root, "abs-good-link")))
	must(t, os.Symlink(ft.outside, filepath.Join(ft.ws, "out-dir"))) // workspace dir symlink out
	must(t, os.Symlink(ft.secret, filepath.Join(ft.ws, "out-file"))) // workspace file symlink out
	return ft
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// bothModes runs f with the kernel's mode (openat2) and with the portable mode exactly as macOS
// runs it: no openat2, and directories opened read-only, never with O_PATH.
func bothModes(t *testing.T, f func(t *testing.T, ft fileTree, fs *Files)) {
	ft := newFileTree(t)
	for _, mode := range []string{"openat2", "portable"} {
		t.Run(mode, func(t *testing.T) {
			fs, err := NewFiles([]string{ft.root}, ft.ws, FileLimits{})
			must(t, err)
			defer fs.Close()
			if mode == "openat2" && !fs.openat2 {
				t.Skip("the kernel has no openat2")
			}
			if mode == "portable" {
				portable(fs)
			}
			f(t, ft, fs)
		})
	}
}

func TestFilesMode(t *testing.T) {
	ft := newFileTree(t)
	fs, err := NewFiles([]string{ft.root}, ft.ws, FileLimits{})
	must(t, err)
	defer fs.Close()
	t.Logf("open mode: %s", fs.Mode())
}

func TestFilesReadDenied(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		for _, tc := range []struct{ name, path string }{
			{"absolute outside", ft.secret},
			{"etc passwd", "/etc/passwd"},
			{"dotdot relative", "../../../../../../etc/passwd"},
			{"dotdot to sibling", "../outside/secret"},
			{"dotdot from root", ft.root + "/../outside/secret"},
			{"absolute symlink out", ft.root + "/abs-link"},
			{"relative symlink out", ft.root + "/rel-link"},
			{"symlink to /etc/passwd", ft.root + "/passwd-link"},
			{"directory symlink out", ft.root + "/dir-link/secret"},
			{"directory symlink out, missing file", ft.root + "/dir-link/missing"},
			{"outside, missing file", ft.outside + "/missing"},
			{"workspace dir symlink out", "out-dir/secret"},
			{"workspace file symlink out", "out-file"},
			{"proc self environ", "/proc/self/environ"},
			{"proc self root", "/proc/self/root/etc/passwd"},
			{"proc self root to secret", "/proc/self/root" + ft.secret},
			{"proc self cwd", "/proc/self/cwd/x"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := fs.Read(tc.path)
				if !errors.Is(err, ErrDenied) {
					t.Errorf("Read(%q) = %.40q, %v; want ErrDenied", tc.path, got, err)
				}
				if strings.Contains(got, secretText) || strings.Contains(got, "root:") {
					t.Errorf("Read(%q) leaked %.40q", tc.path, got)
				}
				if _, err := fs.Info(tc.path); !errors.Is(err, ErrDenied) {
					t.Errorf("Info(%q) err = %v; want ErrDenied", tc.path, err)
				}
				if r, err := fs.Grep("S", tc.path); !errors.Is(err, ErrDenied) || len(r.Matches) > 0 {
					t.Errorf("Grep(%q) = %v, %v; want ErrDenied", tc.path, r.Matches, err)
				}
			})
		}
		for _, p := range []string{ft.outside, ft.root + "/dir-link", "out-dir", "/proc/self", "/proc/self/root/"} {
			if got, err := fs.List(p); !errors.Is(err, ErrDenied) {
				t.Errorf("List(%q) = %v, %v; want ErrDenied", p, got, err)
			}
		}
	})
}

func TestFilesDeniedMessage(t *testing.T) {
	ft := newFileTree(t)
	fs, err := NewFiles([]string{ft.root}, ft.ws, FileLimits{})
	must(t, err)
	defer fs.Close()
	_, err = fs.Read("/etc/passwd")
	if err == nil || !strings.Contains(err.Error(), "outside the allowed roots") || !strings.Contains(err.Error(), "use a path under") {
		t.Errorf("err = %v; want it to name the roots and the fix", err)
	}
}

func TestFilesReadAllowed(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		for _, tc := range []struct{ name, path, want string }{
			{"absolute", ft.root + "/a.txt", "alpha\nbeta gamma\n"},
			{"nested", ft.root + "/sub/b.txt", "one\ngamma two\n"},
			{"dotdot inside", ft.root + "/sub/../a.txt", "alpha\nbeta gamma\n"},
			{"relative symlink inside", ft.root + "/good-link", "alpha\nbeta gamma\n"},
			{"absolute symlink inside", ft.root + "/abs-good-link", "alpha\nbeta gamma\n"},
			{"relative to workspace", "w.txt", "in workspace\n"},
			{"root named through ..", ft.ws + "/../root/a.txt", "alpha\nbeta gamma\n"},
		} {
			got, err := fs.Read(tc.path)
			if err != nil || got != tc.want {
				t.Errorf("%s: Read(%q) = %q, %v; want %q", tc.name, tc.path, got, err, tc.want)
			}
		}
		if _, err := fs.Read(ft.root + "/missing"); !errors.Is(err, ErrInvalid) {
			t.Errorf("Read(missing) err = %v; want ErrInvalid", err)
		}
		if _, err := fs.Read(ft.root + "/sub"); !errors.Is(err, ErrInvalid) {
			t.Errorf("Read(dir) err = %v; want ErrInvalid", err)
		}
	})
}

func TestFilesReadCap(t *testing.T) {
	ft := newFileTree(t)
	fs, err := NewFiles([]string{ft.root}, ft.ws, FileLimits{ReadChars: 10})
	must(t, err)
	defer fs.Close()
	for _, tc := range []struct{ name, content, want string }{
		{"under", "0123456789", "0123456789"},
		{"over", "0123456789abc", "0123456789\n[read_file: truncated after 10 characters; the file has 13 bytes"},
		{"multibyte", "ééééééééééé", "éééééééééé\n[read_file: truncated after 10 characters; the file has 22 bytes"},
	} {
		must(t, os.WriteFile(filepath.Join(ft.root, "cap.txt"), []byte(tc.content), 0o644))
		got, err := fs.Read(ft.root + "/cap.txt")
		if err != nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: Read = %q, %v; want prefix %q", tc.name, got, err, tc.want)
		}
	}
	def, err := NewFiles([]string{ft.root}, "", FileLimits{})
	must(t, err)
	defer def.Close()
	must(t, os.WriteFile(filepath.Join(ft.root, "big.txt"), []byte(strings.Repeat("x", 60000)), 0o644))
	got, err := def.Read(ft.root + "/big.txt")
	if err != nil || !strings.HasPrefix(got, strings.Repeat("x", 50000)+"\n[read_file: truncated after 50000 characters; the file has 60000 bytes") {
		t.Errorf("default cap: Read = %d chars, %v", len(got), err)
	}
}

// TestFilesRace flips paths between a file (or directory) inside the root and a symlink out of
// it while reads run: no read may ever return the outside content.
func TestFilesRace(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		must(t, os.WriteFile(filepath.Join(ft.outside, "x"), []byte(secretText), 0o644))
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		// Each path and its alternative are swapped atomically (renameat2 RENAME_EXCHANGE, or
		// renamex_np RENAME_SWAP on macOS), as fast as the kernel allows.
		mode := filepath.Base(t.Name())
		flip, dflip := filepath.Join(ft.root, "flip-"+mode), filepath.Join(ft.root, "dflip-"+mode)
		must(t, os.WriteFile(flip, []byte("inside"), 0o644))
		must(t, os.Symlink(filepath.Join(ft.outside, "x"), flip+".alt"))
		must(t, os.Mkdir(dflip, 0o755))
		must(t, os.WriteFile(filepath.Join(dflip, "x"), []byte("inside"), 0o644))
		must(t, os.Symlink(ft.outside, dflip+".alt"))
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range []string{flip, dflip} {
					if err := exchange(p, p+".alt"); err != nil {
						t.Errorf("exchange: %v", err)
						return
					}
				}
			}
		}()
		var ok, denied atomic.Int64
		var rg sync.WaitGroup
		for w := range 4 {
			rg.Add(1)
			go func() {
				defer rg.Done()
				for i := range 250 {
					p := flip
					if (i+w)%2 == 1 {
						p = dflip + "/x"
					}
					got, err := fs.Read(p)
					if strings.Contains(got, secretText) {
						t.Errorf("Read(%s) returned the outside content", p)
					}
					if err == nil {
						ok.Add(1)
					} else if errors.Is(err, ErrDenied) {
						denied.Add(1)
					}
				}
			}()
		}
		rg.Wait()
		close(stop)
		wg.Wait()
		t.Logf("1000 reads: %d read inside content, %d denied, the rest found nothing", ok.Load(), denied.Load())
	})
}

func TestFilesList(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		got, err := fs.List(ft.root + "/sub")
		if err != nil || strings.Join(got, ",") != "b.txt" {
			t.Errorf("List(sub) = %v, %v", got, err)
		}
		got, err = fs.List(ft.root)
		want := "a.txt,abs-good-link,abs-link,dir-link,good-link,passwd-link,rel-link,sub/"
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("List(root) = %v, %v; want %s", got, err, want)
		}
		if _, err := fs.List(ft.root + "/a.txt"); !errors.Is(err, ErrInvalid) {
			t.Errorf("List(file) err = %v; want ErrInvalid", err)
		}
	})
	ft := newFileTree(t)
	fs, err := NewFiles([]string{ft.root}, "", FileLimits{ListEntries: 2})
	must(t, err)
	defer fs.Close()
	got, err := fs.List(ft.root)
	if err != nil || len(got) != 3 || got[2] != "… 6 more entries; list a subdirectory or grep" {
		t.Errorf("capped List = %q, %v", got, err)
	}
}

func TestFilesInfo(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		for _, tc := range []struct {
			path  string
			name  string
			size  int64
			isDir bool
		}{
			{ft.root + "/a.txt", "a.txt", 17, false},
			{ft.root + "/sub", "sub", -1, true},
			{ft.root + "/good-link", "good-link", 17, false},
			{"w.txt", "w.txt", 13, false},
		} {
			fi, err := fs.Info(tc.path)
			if err != nil || fi.Name != tc.name || fi.IsDir != tc.isDir || (tc.size >= 0 && fi.Size != tc.size) || fi.ModTime.IsZero() {
				t.Errorf("Info(%q) = %+v, %v; want name %s size %d dir %v", tc.path, fi, err, tc.name, tc.size, tc.isDir)
			}
		}
	})
}

func TestFilesGrep(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		r, err := fs.Grep("gamma", ft.root)
		if err != nil || len(r.Matches) != 2 || r.Capped {
			t.Fatalf("Grep(root) = %+v, %v; want 2 matches (symlinks not followed)", r, err)
		}
		want := []FileMatch{
			{Path: ft.root + "/a.txt", Line: 2, Start: 11, End: 16, Text: "beta gamma"},
			{Path: ft.root + "/sub/b.txt", Line: 2, Start: 4, End: 9, Text: "gamma two"},
		}
		for i := range want {
			if r.Matches[i] != want[i] {
				t.Errorf("match %d = %+v; want %+v", i, r.Matches[i], want[i])
			}
		}
		r, err = fs.Grep("S", ft.root)
		if err != nil || len(r.Matches) != 0 {
			t.Errorf("Grep(S) found %v, %v; the symlinks out must not be followed", r.Matches, err)
		}
		r, err = fs.Grep("^one$", ft.root+"/sub/b.txt")
		if err != nil || len(r.Matches) != 1 || r.Matches[0].Line != 1 {
			t.Errorf("Grep(file) = %+v, %v", r, err)
		}
		if _, err := fs.Grep("(", ft.root); !errors.Is(err, ErrInvalid) {
			t.Errorf("Grep(bad pattern) err = %v; want ErrInvalid", err)
		}
	})
	ft := newFileTree(t)
	must(t, os.WriteFile(filepath.Join(ft.root, "many.txt"), []byte(strings.Repeat("hit\n", 150)), 0o644))
	fs, err := NewFiles([]string{ft.root}, "", FileLimits{})
	must(t, err)
	defer fs.Close()
	r, err := fs.Grep("hit", ft.root)
	if err != nil || len(r.Matches) != 100 || !r.Capped {
		t.Errorf("Grep cap: %d matches, capped %v, %v; want 100, true", len(r.Matches), r.Capped, err)
	}
}

func TestFilesWrite(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		for _, tc := range []struct{ name, path string }{
			{"read-only root", ft.root + "/new.txt"},
			{"absolute outside", ft.outside + "/new.txt"},
			{"dotdot", "../outside/new.txt"},
			{"dotdot far", "../../../../../../tmp/rlm-new.txt"},
			{"dir symlink in workspace", "out-dir/new.txt"},
			{"file symlink in workspace", "out-file"},
			{"proc", "/proc/self/environ"},
		} {
			warn, err := fs.Write(tc.path, "pwned")
			if !errors.Is(err, ErrDenied) {
				t.Errorf("%s: Write(%q) = %q, %v; want ErrDenied", tc.name, tc.path, warn, err)
			}
		}
		if b, _ := os.ReadFile(ft.secret); string(b) != secretText+"\n" {
			t.Errorf("the outside file was changed: %q", b)
		}
		for _, p := range []string{ft.outside + "/new.txt", ft.root + "/new.txt"} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s was created", p)
			}
		}
		for _, tc := range []struct{ path, file string }{
			{"out.txt", "out.txt"},
			{ft.ws + "/abs.txt", "abs.txt"},
			{"deep/er/x.txt", "deep/er/x.txt"},
			{"w.txt", "w.txt"},
		} {
			warn, err := fs.Write(tc.path, "hello")
			b, _ := os.ReadFile(filepath.Join(ft.ws, tc.file))
			if err != nil || warn != "" || string(b) != "hello" {
				t.Errorf("Write(%q) = %q, %v; file holds %q", tc.path, warn, err, b)
			}
			if st, err := os.Stat(filepath.Join(ft.ws, tc.file)); err != nil || st.Mode().Perm() != 0o644 && tc.file != "w.txt" {
				t.Errorf("%s mode = %v, %v; want 0644", tc.file, st.Mode(), err)
			}
		}
	})
}

func TestFilesWriteCap(t *testing.T) {
	ft := newFileTree(t)
	fs, err := NewFiles(nil, ft.ws, FileLimits{})
	must(t, err)
	defer fs.Close()
	warn, err := fs.Write("big.txt", strings.Repeat("é", 30000)) // 60,000 bytes
	b, _ := os.ReadFile(filepath.Join(ft.ws, "big.txt"))
	if err != nil || len(b) != 50000 || !strings.Contains(warn, "content was 60000 bytes") || !strings.Contains(warn, "first 50000 bytes") {
		t.Errorf("Write(60000 bytes) = %q, %v; file has %d bytes", warn, err, len(b))
	}
	warn, err = fs.Write("big.txt", "small")
	b, _ = os.ReadFile(filepath.Join(ft.ws, "big.txt"))
	if err != nil || warn != "" || string(b) != "small" {
		t.Errorf("rewrite = %q, %v; file holds %q", warn, err, b)
	}
	none, err := NewFiles([]string{ft.root}, "", FileLimits{})
	must(t, err)
	defer none.Close()
	if _, err := none.Write(ft.root+"/x", "y"); !errors.Is(err, ErrDenied) {
		t.Errorf("Write without workspace err = %v; want ErrDenied", err)
	}
}

// TestFilesAtDescriptorsOnly: roots given as descriptors whose paths cannot be resolved by name
// (as for a worker below a 0700 directory) still serve reads, writes and ".." to a sibling root,
// all through the descriptors; leaving the roots is still denied.
func TestFilesAtDescriptorsOnly(t *testing.T) {
	for _, mode := range []string{"openat2", "portable"} {
		t.Run(mode, func(t *testing.T) { filesAtDescriptorsOnly(t, mode) })
	}
}

func filesAtDescriptorsOnly(t *testing.T, mode string) {
	ft := newFileTree(t)
	root, err := OpenDir(ft.root)
	must(t, err)
	ws, err := OpenDir(ft.ws)
	must(t, err)
	const fake = "/nonexistent-rlm-parent"
	root.Path, ws.Path = fake+"/root", fake+"/ws"
	fs, err := NewFilesAt([]Dir{root}, &ws, FileLimits{}, nil)
	must(t, err)
	defer fs.Close()
	if mode == "openat2" && !fs.openat2 {
		t.Skip("the kernel has no openat2")
	}
	if mode == "portable" {
		portable(fs)
	}
	for _, p := range []string{"../root/a.txt", fake + "/ws/../root/sub/../a.txt", fake + "/root/a.txt"} {
		if got, err := fs.Read(p); err != nil || got != "alpha\nbeta gamma\n" {
			t.Errorf("Read(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := fs.Write("new/x.txt", "x"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(ft.ws, "new", "x.txt")); err != nil || string(got) != "x" {
		t.Errorf("written through the descriptor: %q %v", got, err)
	}
	for _, p := range []string{"../outside/secret", "../../" + filepath.Base(ft.dir) + "/outside/secret", "../root/abs-link", ft.secret} {
		if got, err := fs.Read(p); !errors.Is(err, ErrDenied) || strings.Contains(got, secretText) {
			t.Errorf("Read(%q) = %q, %v; want ErrDenied", p, got, err)
		}
	}
}

// TestFilesNoPathOracle: Landlock does not cover lstat or readlink, so the guard must not answer
// questions about paths outside the roots. Every such path gets the one message of outside()
// (naming the path as given and the roots), whether something exists there or not and wherever a
// link leads; no message names a link's target or where /proc/self leads.
func TestFilesNoPathOracle(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		must(t, os.Symlink(ft.outside+"/missing", filepath.Join(ft.root, "dangling-"+filepath.Base(t.Name()))))
		exe, err := os.Executable()
		must(t, err)
		probes := []string{
			ft.secret, ft.outside + "/missing", ft.outside + "/missing/deeper",
			ft.root + "/abs-link", ft.root + "/rel-link", ft.root + "/dangling-" + filepath.Base(t.Name()),
			ft.root + "/passwd-link", ft.root + "/dir-link/secret", ft.root + "/dir-link/missing",
			ft.root + "/../outside/secret", ft.root + "/../outside/missing",
			"/proc/self/root" + ft.secret, "/proc/self/root/etc/shadow", "/proc/self/root/etc/no-such-file",
			"/proc/self/exe", "/proc/self/cwd", "/etc/alternatives/awk", "/etc/shadow", "/etc/no-such-file",
		}
		leaks := []string{"resolves", exe, ft.outside + "/", "/usr/bin", "/etc/passwd"}
		for _, p := range probes {
			want := fs.outside(p).Error()
			_, rerr := fs.Read(p)
			_, ierr := fs.Info(p)
			_, lerr := fs.List(p)
			_, gerr := fs.Grep("x", p)
			for tool, err := range map[string]error{"read_file": rerr, "file_info": ierr, "list_dir": lerr, "grep": gerr} {
				if err == nil || err.Error() != want {
					t.Errorf("%s(%q) = %v\nwant the one message for outside paths: %s", tool, p, err, want)
					continue
				}
				rest := strings.ReplaceAll(err.Error(), p, "")
				for _, l := range leaks {
					if strings.Contains(rest, l) {
						t.Errorf("%s(%q) names %q: %v", tool, p, l, err)
					}
				}
			}
		}
	})
}

// TestFilesWorkspaceQuota: write_file keeps the workspace within its quota of bytes and entries,
// counting what was there before and what replaced files free; a refused write changes nothing
// and its error says what to do.
func TestFilesWorkspaceQuota(t *testing.T) {
	ft := newFileTree(t) // the workspace holds w.txt (13 bytes) and two symlinks: 3 entries
	fs, err := NewFiles(nil, ft.ws, FileLimits{WorkspaceBytes: 1000, WorkspaceEntries: 6})
	must(t, err)
	defer fs.Close()
	steps := []struct {
		path    string
		size    int
		wantErr string // "" for success
	}{
		{"a.txt", 500, ""}, // 513 bytes, 4 entries
		{"b.txt", 500, "over its quota of 1000 bytes"}, // would be 1013 bytes
		{"a.txt", 900, ""},                                 // replaces 500: 913 bytes
		{"d/e.txt", 10, ""},                                // 923 bytes, 6 entries
		{"f.txt", 0, "over its quota of 6 files"},          // entry 7
		{"g/h.txt", 0, "over its quota of 6 files"},        // the directory is entry 7
		{"w.txt", 50, ""},                                  // replacing adds no entry: 960 bytes
		{"a.txt", 1000, "over its quota of 1000 bytes"},    // 960 - 900 + 1000
		{"a.txt", 0, ""},                                   // frees 900
		{"b.txt", 0, "over its quota of 6 files"},          // still 6 entries
		{strings.Repeat("d/", 40) + "x", 1, "directories"}, // too deep
	}
	for i, s := range steps {
		_, err := fs.Write(s.path, strings.Repeat("x", s.size))
		switch {
		case s.wantErr == "" && err != nil:
			t.Errorf("step %d: Write(%s, %d bytes) = %v; want success", i, s.path, s.size, err)
		case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
			t.Errorf("step %d: Write(%s, %d bytes) = %v; want an error containing %q", i, s.path, s.size, err, s.wantErr)
		case s.wantErr != "" && !strings.Contains(s.wantErr, "directories") && !errors.Is(err, ErrLimit):
			t.Errorf("step %d: %v is not a limit error", i, err)
		}
	}
	for _, p := range []string{"b.txt", "f.txt", "g"} {
		if _, err := os.Lstat(filepath.Join(ft.ws, p)); err == nil {
			t.Errorf("%s exists: a refused write must change nothing", p)
		}
	}
	// A new Files (a new worker) measures what is there: 6 entries already.
	again, err := NewFiles(nil, ft.ws, FileLimits{WorkspaceBytes: 1000, WorkspaceEntries: 6})
	must(t, err)
	defer again.Close()
	if _, err := again.Write("new.txt", "x"); err == nil || !strings.Contains(err.Error(), "entry 7") {
		t.Errorf("a new Files must count the existing entries: %v", err)
	}
}

// portable switches fs to the portable mode as macOS runs it: no openat2, and every directory,
// the roots included, opened read-only rather than with O_PATH.
func portable(fs *Files) {
	fs.openat2, fs.dirFlags = false, unix.O_RDONLY
	for _, r := range fs.roots {
		fd, err := unix.Openat(r.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			panic(err)
		}
		unix.Close(r.fd)
		r.fd = fd
	}
}
