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
//   - components above the roots are taken lexically: root paths are real, so a path that
//     names a root lexically reaches it; any other path outside the roots is refused with one
//     message, whatever exists there;
//   - inside a root, each component is looked up relative to an O_PATH descriptor of the
//     directory that holds it, with no symlink followed by the kernel; a symlink is read there
//     (the link itself is inside the root) and its target spliced into the rest of the path;
//   - ".." is lexical: it moves to the parent path, which is real at that point.
// The walk ends at a root and a path below it without symlinks or "..", which the caller opens
// through the root's descriptor with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or component by
// component with O_NOFOLLOW.

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
	cur   string   // the real path reached so far ("/" at the start)
	root  *root    // the root cur is in, or nil above or beside the roots
	dir   int      // an O_PATH descriptor of cur when root is set, else -1
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
	if w.root == nil {
		return nil, "", errOutside
	}
	rel, _ := within(w.root, w.cur)
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
	var st unix.Stat_t
	if err := unix.Fstatat(w.dir, c, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return osErr(w.tool, w.path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return w.link(c)
	case unix.S_IFDIR:
		fd, err := unix.Openat(w.dir, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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
// root's descriptor, one component at a time), or out of all of them.
func (w *walk) enter() error {
	r, rel := w.f.rootOf(w.cur)
	w.closeDir()
	w.root = r
	if r == nil {
		return nil
	}
	fd, err := w.f.openBelow(r.fd, rel, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return w.changed(err)
	}
	w.dir = fd
	return nil
}

// changed reports a directory that was swapped (for a symlink, say) while the walk ran.
func (w *walk) changed(err error) error {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return osErr(w.tool, w.path, err)
	}
	return deniedf("path %s changed while it was opened; it must stay under the allowed roots (%s)", w.path, w.f.rootList())
}

func (w *walk) closeDir() {
	if w.dir >= 0 {
		unix.Close(w.dir)
		w.dir = -1
	}
}

// openBelow opens rel (no "..", no symlinks expected) below the directory dirfd with flags,
// following no symlink: with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or one component at
// a time with O_NOFOLLOW.
func openBelow(dirfd int, rel string, flags int, useOpenat2 bool) (int, error) {
	flags |= unix.O_CLOEXEC
	if useOpenat2 {
		return unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	}
	parts := strings.Split(rel, "/")
	cur, err := unix.Openat(dirfd, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for i, c := range parts {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			unix.Close(cur)
			return -1, unix.EXDEV
		}
		fl := unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(parts)-1 {
			fl = flags | unix.O_NOFOLLOW
		}
		next, err := unix.Openat(cur, c, fl, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	if parts[len(parts)-1] == "." || parts[len(parts)-1] == "" {
		// rel named the directory itself: reopen it with the caller's flags.
		fd, err := unix.Openat(cur, ".", flags, 0)
		unix.Close(cur)
		return fd, err
	}
	return cur, nil
}
