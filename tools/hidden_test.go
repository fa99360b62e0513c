package tools

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const homeSecret = "AUDIT-DB-OF-EVERY-CLIENT"

// homeTree builds tmp/home/{notes.txt, sub/up -> ../.rlm/audit.db, to-rlm -> .rlm, abs-to-rlm
// -> /abs/home/.rlm, .rlm/{audit.db, logs/x.log, work/ws/w.txt}} and tmp/homelink -> home:
// RLM_HOME (home/.rlm) inside a root the user named (home, as rlm run --ctx ~/notes.txt makes
// it), with the session's workspace inside RLM_HOME (the default one).
type homeTree struct{ dir, home, rlm, ws, link string }

func newHomeTree(t *testing.T) homeTree {
	t.Helper()
	d := t.TempDir()
	h := homeTree{dir: d, home: filepath.Join(d, "home"), link: filepath.Join(d, "homelink")}
	h.rlm = filepath.Join(h.home, ".rlm")
	h.ws = filepath.Join(h.rlm, "work", "ws")
	for _, p := range []string{h.ws, filepath.Join(h.rlm, "logs"), filepath.Join(h.home, "sub")} {
		must(t, os.MkdirAll(p, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(h.home, "notes.txt"), []byte("my notes\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(h.rlm, "audit.db"), []byte(homeSecret+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(h.rlm, "logs", "x.log"), []byte(homeSecret+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(h.ws, "w.txt"), []byte("my work\n"), 0o644))
	must(t, os.Symlink("../.rlm/audit.db", filepath.Join(h.home, "sub", "up")))
	must(t, os.Symlink(".rlm", filepath.Join(h.home, "to-rlm")))
	must(t, os.Symlink(h.rlm, filepath.Join(h.home, "abs-to-rlm")))
	must(t, os.Symlink("home", h.link))
	return h
}

// TestFilesHidden: RLM_HOME inside a root is refused by every read tool exactly as a path
// outside the roots is, by name, through symlinks inside the root and through "..", while the
// workspace inside it stays reachable; list_dir leaves it out and a directory grep skips it.
// RLM_HOME is named through a symlink (homelink/.rlm), so it is hidden as resolved.
func TestFilesHidden(t *testing.T) {
	h := newHomeTree(t)
	open := func(t *testing.T) *Files {
		fs, err := NewFiles([]string{h.home}, h.ws, FileLimits{}, h.link+"/.rlm")
		must(t, err)
		return fs
	}
	inModes(t, open, func(t *testing.T, fs *Files) {
		for _, p := range []string{
			h.rlm, h.rlm + "/", h.rlm + "/audit.db", h.rlm + "/logs", h.rlm + "/logs/x.log", h.rlm + "/missing",
			h.rlm + "/work", h.home + "/to-rlm/audit.db", h.home + "/to-rlm", h.home + "/abs-to-rlm/logs/x.log",
			h.home + "/sub/up", h.home + "/sub/../.rlm/audit.db", "../../audit.db", "../../logs", "./../../../.rlm/audit.db",
			h.ws + "/../../audit.db", h.link + "/.rlm/audit.db",
		} {
			abs, err := fs.absolute("read_file", p)
			must(t, err)
			want := fs.outside(abs).Error()
			got, rerr := fs.Read(p)
			_, ierr := fs.Info(p)
			ls, lerr := fs.List(p)
			g, gerr := fs.Grep(homeSecret, p)
			if strings.Contains(got, homeSecret) || len(ls) > 0 || len(g.Matches) > 0 {
				t.Errorf("%s: read %q, listed %v, grep %v", p, got, ls, g.Matches)
			}
			for tool, err := range map[string]error{"read_file": rerr, "file_info": ierr, "list_dir": lerr, "grep": gerr} {
				if err == nil || err.Error() != want {
					t.Errorf("%s(%q) = %v\nwant the message of a path outside the roots: %s", tool, p, err, want)
				}
			}
		}
		for _, tc := range []struct{ path, want string }{
			{"w.txt", "my work\n"}, {h.ws + "/w.txt", "my work\n"}, {h.home + "/notes.txt", "my notes\n"},
			{"../../../notes.txt", "my notes\n"}, {h.home + "/to-rlm/work/ws/w.txt", "my work\n"},
		} {
			if got, err := fs.Read(tc.path); err != nil || got != tc.want {
				t.Errorf("Read(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		}
		if got, err := fs.List(h.home); err != nil || slices.Contains(got, ".rlm/") || !slices.Contains(got, "notes.txt") {
			t.Errorf("List(home) = %v, %v; want it without .rlm/", got, err)
		}
		if r, err := fs.Grep("^", h.home); err != nil || len(r.Matches) != 1 || r.Matches[0].Text != "my notes" {
			t.Errorf("Grep(home) = %+v, %v; want only notes.txt (RLM_HOME skipped)", r.Matches, err)
		}
		if r, err := fs.Grep("^", "."); err != nil || len(r.Matches) != 1 || r.Matches[0].Text != "my work" {
			t.Errorf("Grep(workspace) = %+v, %v", r.Matches, err)
		}
		if _, err := fs.Write("out/w2.txt", "x"); err != nil {
			t.Errorf("Write in the workspace inside RLM_HOME: %v", err)
		}
		must(t, os.RemoveAll(filepath.Join(h.ws, "out")))
	})
}

// TestFilesHiddenRoots: RLM_HOME stays out of reach whatever the roots are: a workspace that
// holds it (--out ~) neither reads nor writes into it, a root inside it reads nothing, and a
// workspace that is not inside it gives no exception.
func TestFilesHiddenRoots(t *testing.T) {
	h := newHomeTree(t)
	t.Run("workspace holds it", func(t *testing.T) {
		inModes(t, func(t *testing.T) *Files {
			fs, err := NewFiles(nil, h.home, FileLimits{}, h.rlm)
			must(t, err)
			return fs
		}, func(t *testing.T, fs *Files) {
			for _, p := range []string{".rlm/audit.db", "to-rlm/audit.db", "sub/up"} {
				if got, err := fs.Read(p); !errors.Is(err, ErrDenied) {
					t.Errorf("Read(%q) = %q, %v; want ErrDenied", p, got, err)
				}
			}
			for _, p := range []string{".rlm/config.toml", ".rlm/logs/new.log", ".rlm/work/ws/x.txt"} {
				if _, err := fs.Write(p, "x"); !errors.Is(err, ErrDenied) {
					t.Errorf("Write(%q) = %v; want ErrDenied", p, err)
				}
				if _, err := os.Stat(filepath.Join(h.home, p)); err == nil {
					t.Errorf("Write(%q) wrote into RLM_HOME", p)
				}
			}
			if got, err := fs.Read("notes.txt"); err != nil || got != "my notes\n" {
				t.Errorf("Read(notes.txt) = %q, %v", got, err)
			}
		})
	})
	t.Run("workspace is it", func(t *testing.T) {
		inModes(t, func(t *testing.T) *Files {
			fs, err := NewFiles(nil, h.rlm, FileLimits{}, h.rlm)
			must(t, err)
			return fs
		}, func(t *testing.T, fs *Files) {
			if got, err := fs.Read("audit.db"); !errors.Is(err, ErrDenied) {
				t.Errorf("Read(audit.db) = %q, %v; want ErrDenied", got, err)
			}
			if got, err := fs.List("."); !errors.Is(err, ErrDenied) {
				t.Errorf("List(.) = %v, %v; want ErrDenied", got, err)
			}
			if _, err := fs.Write("config.toml", "x"); !errors.Is(err, ErrDenied) {
				t.Errorf("Write(config.toml) = %v; want ErrDenied", err)
			}
		})
	})
	t.Run("root inside it", func(t *testing.T) {
		inModes(t, func(t *testing.T) *Files {
			fs, err := NewFiles([]string{filepath.Join(h.rlm, "logs"), h.ws}, filepath.Join(h.dir, "home", "sub"), FileLimits{}, h.rlm)
			must(t, err)
			return fs
		}, func(t *testing.T, fs *Files) {
			for _, p := range []string{h.rlm + "/logs/x.log", h.rlm + "/logs", h.ws + "/w.txt"} {
				if got, err := fs.Read(p); !errors.Is(err, ErrDenied) || strings.Contains(got, homeSecret) {
					t.Errorf("Read(%q) = %q, %v; want ErrDenied", p, got, err)
				}
				if got, err := fs.List(p); !errors.Is(err, ErrDenied) {
					t.Errorf("List(%q) = %v, %v; want ErrDenied", p, got, err)
				}
			}
		})
	})
}

// TestHiddenDirMissing: an RLM_HOME that does not exist yet is hidden by its name and by the
// resolution of the part that exists (its parent reached through a symlink).
func TestHiddenDirMissing(t *testing.T) {
	h := newHomeTree(t)
	got, err := HiddenDir(h.link + "/.rlm-new")
	want := Hidden{Path: h.home + "/.rlm-new", Name: h.link + "/.rlm-new"}
	if err != nil || got != want {
		t.Errorf("HiddenDir = %+v, %v; want %+v", got, err, want)
	}
}
