package tools

import (
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// Dir is an allowed root opened by the caller: its real path (absolute, clean, symlinks
// resolved), the paths the user named it by, and a descriptor of the directory (O_PATH on
// Linux, read-only on macOS). A process that cannot reach the path by name (an unprivileged
// worker under a 0700 home) can still work below the directory through the descriptor, which is
// how the confined worker gets its roots.
type Dir struct {
	Path string
	// Names are the other absolute, clean paths the user named the directory by (/data/link
	// for /data/real; /tmp/x for /private/tmp/x on macOS): a path under one of them reaches
	// the root as a path under Path does, and messages name the root by its first name.
	Names []string
	FD    int
}

// OpenDir resolves p with realpath and opens the directory with O_DIRECTORY and O_PATH (Linux)
// or O_RDONLY (macOS, which has no O_PATH), close on exec, never blocking; pass it on
// explicitly. p, made absolute, is kept as the directory's name when it is not its real path.
func OpenDir(p string) (Dir, error) {
	if p == "" {
		return Dir{}, invalidf("an allowed root is empty")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Dir{}, invalidf("root %s: %v", p, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Dir{}, invalidf("root %s: %v", p, err)
	}
	fd, err := unix.Open(real, pathFlags|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Dir{}, invalidf("root %s: %v", p, err)
	}
	d := Dir{Path: real, FD: fd}
	if abs != real {
		d.Names = []string{abs}
	}
	return d, nil
}

// NewFiles opens the roots (read-only) and the workspace (read-write; may be ""). Each is
// resolved with realpath and must be a directory. The hidden directories (see HiddenDir) are
// never reachable.
func NewFiles(roots []string, workspace string, lim FileLimits, hidden ...string) (*Files, error) {
	if _, err := lim.effective(); err != nil {
		return nil, err
	}
	var hs []Hidden
	for _, p := range hidden {
		h, err := HiddenDir(p)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	var dirs []Dir
	closeAll := func() {
		for _, d := range dirs {
			unix.Close(d.FD)
		}
	}
	for _, p := range roots {
		d, err := OpenDir(p)
		if err != nil {
			closeAll()
			return nil, err
		}
		dirs = append(dirs, d)
	}
	var ws *Dir
	if workspace != "" {
		d, err := OpenDir(workspace)
		if err != nil {
			closeAll()
			return nil, err
		}
		ws = &d
	}
	return NewFilesAt(dirs, ws, lim, hs)
}

// NewFilesAt serves the file tools over roots the caller opened (read-only) and a workspace
// (read-write; may be nil), never reaching the hidden directories. Paths must be real paths, as
// OpenDir returns them, and names absolute and clean; both map absolute paths to a root, and
// every open goes through the descriptors. The Files takes over the descriptors, also on error.
func NewFilesAt(roots []Dir, workspace *Dir, lim FileLimits, hidden []Hidden) (*Files, error) {
	all := slices.Clone(roots)
	if workspace != nil {
		all = append(all, *workspace)
	}
	l, err := lim.effective()
	if err != nil {
		for _, d := range all {
			unix.Close(d.FD)
		}
		return nil, err
	}
	f := &Files{lim: l, dirFlags: pathFlags, hidden: slices.Clone(hidden)}
	for i, d := range all {
		r := f.find(d.Path)
		if r != nil {
			unix.Close(d.FD) // the same directory twice: keep the first descriptor
		} else {
			r = &root{path: d.Path, fd: d.FD}
			f.roots = append(f.roots, r)
		}
		for _, n := range d.Names {
			if n != r.path && !slices.Contains(r.names, n) {
				r.names = append(r.names, n)
			}
		}
		if workspace != nil && i == len(all)-1 {
			f.workspace = r
		}
	}
	slices.SortStableFunc(f.roots, func(a, b *root) int { return len(b.path) - len(a.path) })
	for _, r := range f.roots {
		r.guarded = f.guards(r)
	}
	f.openat2 = len(f.roots) > 0 && canOpenat2(f.roots[0].fd)
	return f, nil
}

func (f *Files) find(p string) *root {
	for _, r := range f.roots {
		if r.path == p {
			return r
		}
	}
	return nil
}
