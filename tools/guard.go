package tools

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The path guard's resolver. Landlock does not cover lstat or readlink, so a guard that
// resolves a path by name (realpath) answers questions about files outside the roots: which
// exist, where a link leads, what /proc/self/exe is. This resolver never looks at anything
// outside the roots:
//   - components above the roots are taken lexically: a path that names a root, by its real
//     path or by a path the user named it by (roots.go), reaches it, and the walk goes on from
//     the root's real path; any other path outside the roots is refused with one message,
//     whatever exists there;
//   - inside a root, each component is looked up relative to a descriptor of the directory that
//     holds it (O_PATH on Linux, read-only elsewhere), with no symlink followed by the kernel; a
//     symlink is read there (the link itself is inside the root) and its target spliced into the
//     rest of the path;
//   - ".." is lexical: it moves to the parent path, which is real at that point;
//   - a hidden directory (hidden.go) is outside the roots: below its real path the walk goes on
//     lexically, as above the roots (so a path through it to a root inside it, the workspace
//     under RLM_HOME, or out of it by "..", still resolves), and a directory that is one by its
//     identity alone (a bind mount) ends the walk.
// The walk ends at a root and a path below it without symlinks or "..", which the caller opens
// through the root's descriptor with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or component by
// component with O_NOFOLLOW (openNoFollow, the portable mode).

// Bounds of one resolution.
const (
	maxLinks = 40     // symlinks followed, as the kernel's ELOOP
	maxSteps = 10_000 // path components looked at, links' included
)

// errOutside marks a walk that left the roots; callers turn it into Files.outside(path).
var errOutside = errors.New("outside the allowed roots")

// walk is the state of one resolution.
type walk struct {
	f     *Files
	tool  string
	path  string   // as the caller named it (made absolute), for messages
	cur   string   // the path reached so far ("/" at the start): real once in a root
	root  *root    // the root cur is in, or nil above or beside the roots
	dir   int      // a descriptor of cur (Files.dirFlags) when root is set, else -1
	todo  []string // components still to walk
	links int
	steps int
}

// resolve finds the root and the path below it that the absolute path p leads to.
func (f *Files) resolve(tool, p string) (*root, string, error) {
	w := &walk{f: f, tool: tool, path: p, cur: "/", dir: -1, todo: strings.Split(p, "/")}
	defer w.closeDir()
	if err := w.enter(); err != nil {
		return nil, "", err
	}
	for len(w.todo) > 0 {
		c := w.todo[0]
		w.todo = w.todo[1:]
		if w.steps++; w.steps > maxSteps {
			return nil, "", invalidf("%s: path %s has too many components", tool, p)
		}
		if err := w.step(c); err != nil {
			return nil, "", err
		}
	}
	if w.root == nil || w.f.hides(w.cur, nil) {
		return nil, "", errOutside
	}
	rel, _ := under(w.root.path, w.cur)
	return w.root, rel, nil
}

// step walks one component.
func (w *walk) step(c string) error {
	switch c {
	case "", ".":
		return nil
	case "..":
		w.cur = filepath.Dir(w.cur)
		return w.enter()
	}
	next := strings.TrimSuffix(w.cur, "/") + "/" + c
	if w.root == nil {
		w.cur = next // lexical, above or beside the roots: nothing is looked at
		return w.enter()
	}
	if r, _ := w.f.rootOf(next); r != w.root {
		w.cur = next // another root inside this one (the workspace under RLM_HOME): go on in it
		return w.enter()
	}
	var st unix.Stat_t
	if err := unix.Fstatat(w.dir, c, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return osErr(w.tool, w.path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return w.link(c)
	case unix.S_IFDIR:
		if w.f.hides(next, nil) {
			w.closeDir() // a hidden directory is outside the roots: go on lexically
			w.root, w.cur = nil, next
			return nil
		}
		if w.f.hides(next, &st) {
			return errOutside // one by its identity alone (a bind mount of it)
		}
		fd, err := unix.Openat(w.dir, c, w.f.dirFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return w.changed(err)
		}
		w.closeDir()
		w.dir, w.cur = fd, next
		return nil
	}
	if len(w.todo) > 0 && strings.Trim(strings.Join(w.todo, ""), "/") != "" {
		return invalidf("%s: a component of %s is not a directory", w.tool, w.path)
	}
	w.closeDir()
	w.cur = next
	return nil
}

// link splices the target of the symlink c (in the directory w.dir) into the path.
func (w *walk) link(c string) error {
	if w.links++; w.links > maxLinks {
		return invalidf("%s: %s: too many levels of symbolic links", w.tool, w.path)
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(w.dir, c, buf)
	if err != nil {
		return w.changed(err)
	}
	target := string(buf[:n])
	w.todo = append(strings.Split(target, "/"), w.todo...)
	if strings.HasPrefix(target, "/") {
		w.cur = "/"
		return w.enter()
	}
	return nil
}

// enter updates root and dir after cur moved lexically: into a root (opening cur through the
// root's descriptor, one component at a time, and going on from its real path), or out of all
// of them.
func (w *walk) enter() error {
	r, rel := w.f.rootOf(w.cur)
	w.closeDir()
	w.root = r
	if r == nil {
		return nil
	}
	w.cur = r.path
	if rel != "." {
		w.cur = strings.TrimSuffix(r.path, "/") + "/" + rel
	}
	if w.f.hides(w.cur, nil) {
		w.root = nil // a hidden directory is outside the roots: go on lexically
		return nil
	}
	fd, err := w.f.openBelow(r.fd, rel, w.f.dirFlags|unix.O_DIRECTORY)
	if err != nil {
		return w.changed(err)
	}
	w.dir = fd
	var st unix.Stat_t
	if len(w.f.hidden) > 0 && (unix.Fstat(fd, &st) != nil || w.f.hides(w.cur, &st)) {
		return errOutside
	}
	return nil
}

// changed reports a directory that was swapped (for a symlink, say) while the walk ran.
func (w *walk) changed(err error) error {
	switch {
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, errSpecialFile):
		return osErr(w.tool, w.path, err)
	case errors.Is(err, errSpecialFS):
		return special(w.path)
	}
	return w.f.changed(w.path)
}

func (w *walk) closeDir() {
	if w.dir >= 0 {
		unix.Close(w.dir)
		w.dir = -1
	}
}

// openBelow opens rel (no "..", no symlinks expected) below the directory dirfd with flags,
// following no symlink: with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or component by
// component (openNoFollow).
func (f *Files) openBelow(dirfd int, rel string, flags int) (int, error) {
	if f.openat2 {
		return openBeneathChecked(dirfd, rel, flags, true)
	}
	return openNoFollow(dirfd, rel, flags, f.dirFlags)
}

// openNoFollow is the portable mode, for systems without openat2 (macOS, Linux before 5.6): it
// opens rel below dirfd one component at a time, each directory with dirFlags|O_NOFOLLOW, so
// the kernel itself refuses a component that is a symlink at the moment it is opened, and ".."
// is refused (EXDEV). The last component is opened by openChecked. Nothing here leaves dirfd by
// a symlink or ".."; what it cannot stop is a directory on the way being moved out of the root
// by another process while it is walked (SECURITY.md, "The file tools without openat2").
func openNoFollow(dirfd int, rel string, flags, dirFlags int) (int, error) {
	var parts []string
	for c := range strings.SplitSeq(rel, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return -1, unix.EXDEV
		}
		parts = append(parts, c)
	}
	cur, err := unix.Openat(dirfd, ".", dirFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer func() { unix.Close(cur) }()
	if len(parts) == 0 {
		// rel named the directory itself: reopen it with the caller's flags.
		return unix.Openat(cur, ".", flags|unix.O_CLOEXEC, 0)
	}
	for _, c := range parts[:len(parts)-1] {
		next, err := unix.Openat(cur, c, dirFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		unix.Close(cur)
		cur = next
	}
	if specialFS(cur) {
		return -1, errSpecialFS
	}
	return openChecked(cur, parts[len(parts)-1], flags)
}

// Errors of openChecked, turned into messages by Files.open.
var (
	errSpecialFS   = errors.New("on a filesystem the file tools do not read")
	errSpecialFile = errors.New("not a regular file or directory")
)

// openChecked opens name in the directory dir following no symlink, and only when it is a
// regular file or a directory: it looks at the entry first (lstat), so a device, a fifo or a
// socket is never opened, opens it with O_NONBLOCK and O_NOCTTY (an entry swapped for a fifo in
// between does not block the open, nor a terminal become this process's), and checks that the
// descriptor is the very file it looked at (device and inode), so an entry swapped between the
// two is refused (EXDEV).
func openChecked(dir int, name string, flags int) (int, error) {
	var before unix.Stat_t
	if err := unix.Fstatat(dir, name, &before, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return -1, err
	}
	if before.Mode&unix.S_IFMT == unix.S_IFLNK {
		return -1, unix.ELOOP
	}
	if err := plainFile(&before); err != nil {
		return -1, err
	}
	fd, err := unix.Openat(dir, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	return sameFile(fd, &before)
}

// plainFile refuses anything but a regular file or a directory (errSpecialFile).
func plainFile(st *unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR:
		return nil
	}
	return errSpecialFile
}

// sameFile returns fd if it is the file before describes, else closes it (EXDEV: the entry was
// swapped between a look and the open).
func sameFile(fd int, before *unix.Stat_t) (int, error) {
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil || after.Dev != before.Dev || after.Ino != before.Ino {
		unix.Close(fd)
		return -1, unix.EXDEV
	}
	return fd, nil
}
