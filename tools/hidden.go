package tools

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Hidden directories are never reachable through the file tools, whatever the roots: RLM_HOME,
// which holds every session's workspace, the audit database, the logs and the traces, so that a
// root that contains it (rlm run --ctx ~/notes.txt makes ~ a root) does not open it to the
// code. A hidden directory counts as outside the roots: the guard's walk (guard.go) ends at a
// real path, and below a hidden directory's real path it goes on lexically, looking at nothing,
// as above the roots; so a path into it, by name, through a symlink inside a root or through
// "..", gets the one message of a path outside the roots, while a path through it to the
// session's workspace inside it (the default one, under RLM_HOME/work) still resolves. A
// directory that is a hidden one by its identity alone (a bind mount) is refused too. list_dir
// leaves it out of its parent's listing, a directory grep skips it, and write_file refuses it in
// a workspace that holds it (--out ~). Roots that hold a hidden directory, or lie in one, are
// always walked: the kernel's one-call open (RESOLVE_BENEATH) would follow a symlink inside the
// root into it unseen. Landlock grants the worker whole roots, so for a hidden directory inside a
// root this guard is the only layer; a bind mount of it inside a root that does not hold it
// lexically is seen only where the walk passes (not by the one-call open).

// Hidden is a directory the file tools never reach (see HiddenDir).
type Hidden struct {
	Path     string // real, absolute, clean
	Name     string // as named, absolute and clean (may equal Path)
	Dev, Ino uint64 // its identity; both 0 when it did not exist
}

// HiddenDir describes the directory p (RLM_HOME) for NewFilesAt: as named, resolved, and its
// identity. A directory that does not exist yet is hidden by its name and by the resolution of
// the part of it that exists.
func HiddenDir(p string) (Hidden, error) {
	abs, err := filepath.Abs(p)
	if err != nil || p == "" {
		return Hidden{}, invalidf("hidden directory %q: %v; pass an absolute path", p, err)
	}
	h := Hidden{Path: abs, Name: abs}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		h.Path = resolvedPrefix(abs)
		return h, nil
	}
	if err != nil {
		return Hidden{}, invalidf("hidden directory %s: %v", p, err)
	}
	h.Path = real
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return Hidden{}, invalidf("hidden directory %s: %v", p, err)
	}
	h.Dev, h.Ino = uint64(st.Dev), st.Ino
	return h, nil
}

// resolvedPrefix resolves the longest part of the absolute, clean path p that exists, and joins
// the rest to it.
func resolvedPrefix(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == "/" {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// in reports whether the real path p is in h, or st (if not nil) is h itself.
func (h Hidden) in(p string, st *unix.Stat_t) bool {
	if _, ok := under(h.Path, p); ok {
		return true
	}
	if _, ok := under(h.Name, p); ok {
		return true
	}
	return st != nil && h.Ino != 0 && uint64(st.Dev) == h.Dev && st.Ino == h.Ino
}

// Holds reports whether the real path p is h or lies inside it.
func (h Hidden) Holds(p string) bool { return h.in(p, nil) }

// hides reports whether the real path p, or the directory st describes (nil: p alone), is
// in a hidden directory and not in the workspace lying inside it.
func (f *Files) hides(p string, st *unix.Stat_t) bool {
	for _, h := range f.hidden {
		if h.in(p, st) && !f.exempt(h, p) {
			return true
		}
	}
	return false
}

// exempt reports whether the real path p is in the workspace, and the workspace strictly in h
// (a workspace that is RLM_HOME itself gets no exception).
func (f *Files) exempt(h Hidden, p string) bool {
	ws := f.workspace
	if ws == nil || ws.path == h.Path {
		return false
	}
	if _, ok := under(h.Path, ws.path); !ok {
		return false
	}
	_, ok := under(ws.path, p)
	return ok
}

// guards reports whether r must always be walked: a hidden directory is in it, or it is in one
// (and not in the workspace lying inside it).
func (f *Files) guards(r *root) bool {
	for _, h := range f.hidden {
		if _, ok := under(r.path, h.Path); ok {
			return true
		}
		if h.in(r.path, nil) && !f.exempt(h, r.path) {
			return true
		}
	}
	return false
}

// hiddenEntry reports whether the entry name of the directory dir is a hidden directory, by
// its identity (list_dir leaves it out).
func (f *Files) hiddenEntry(dir int, name string) bool {
	for _, h := range f.hidden {
		if h.Ino == 0 || (name != filepath.Base(h.Path) && name != filepath.Base(h.Name)) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && h.in("", &st) {
			return true
		}
	}
	return false
}

// hiddenDir reports whether st is a hidden directory itself (a directory grep skips it).
func (f *Files) hiddenDir(st *unix.Stat_t) bool {
	for _, h := range f.hidden {
		if h.Ino != 0 && h.in("", st) {
			return true
		}
	}
	return false
}

// writable refuses a directory of the workspace that is a hidden one, or in one (a workspace
// that holds RLM_HOME: --out ~): dir is open on the workspace's directory comps (no symlinks
// on the way), for write_file's path.
func (f *Files) writable(dir int, path string, comps []string) error {
	if len(f.hidden) == 0 {
		return nil
	}
	ws := f.workspace
	var st unix.Stat_t
	p := ws.path
	if len(comps) > 0 {
		p = strings.TrimSuffix(ws.path, "/") + "/" + strings.Join(comps, "/")
	}
	if unix.Fstat(dir, &st) != nil || f.hides(p, &st) {
		return deniedf("write_file: path %s is outside the workspace %s; write under it (a relative path is relative to it)", path, ws.name())
	}
	return nil
}
