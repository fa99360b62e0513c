package tools

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// quota is what the workspace holds: bytes of regular files and entries below it. It is
// measured at the first write (the workspace may hold files already, or a new worker may follow
// one that wrote) and kept up to date by Write, which holds mu for the whole write.
type quota struct {
	mu      sync.Mutex
	known   bool
	bytes   int64
	entries int
}

// fits checks that dEntries more entries and dBytes more bytes stay within the quota.
func (q *quota) fits(f *Files, path string, dEntries int, dBytes int64) error {
	if !q.known {
		if err := q.measure(f); err != nil {
			return err
		}
	}
	ws, lim := f.workspace.path, f.lim
	if dEntries > 0 && q.entries+dEntries > lim.WorkspaceEntries {
		return limitf("write_file: %s would be entry %d in the workspace %s, over its quota of %d files and directories; write fewer, larger files (write_file replaces the content of a file that exists)", path, q.entries+dEntries, ws, lim.WorkspaceEntries)
	}
	if dBytes > 0 && q.bytes+dBytes > int64(lim.WorkspaceBytes) {
		return limitf("write_file: writing %s would take the workspace %s to %d bytes, over its quota of %d bytes; write less, or replace a file you no longer need (write_file replaces its content)", path, ws, q.bytes+dBytes, lim.WorkspaceBytes)
	}
	return nil
}

func (q *quota) add(entries int, bytes int64) {
	q.entries += entries
	q.bytes += bytes
}

// forget makes the next write measure again (after a write that failed halfway).
func (q *quota) forget() { q.known = false }

// measure walks the workspace through its descriptor, one directory at a time and following no
// symlink. It stops counting once the quota is passed: the figures are then at least that.
func (q *quota) measure(f *Files) error {
	q.bytes, q.entries = 0, 0
	stack := []string{"."}
	for len(stack) > 0 && q.entries <= f.lim.WorkspaceEntries && q.bytes <= int64(f.lim.WorkspaceBytes) {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dirs, err := q.count(f, rel)
		if err != nil {
			return err
		}
		stack = append(stack, dirs...)
	}
	q.known = true
	return nil
}

// count adds the entries of the workspace directory rel and returns its subdirectories.
func (q *quota) count(f *Files, rel string) ([]string, error) {
	fd, err := f.openBelow(f.workspace.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if errors.Is(err, unix.ENAMETOOLONG) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return nil, nil // too deep to name, or changed while counted: left out
	}
	if err != nil {
		return nil, fmt.Errorf("write_file: measuring the workspace %s: %w", f.workspace.path, err)
	}
	d := os.NewFile(uintptr(fd), rel)
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("write_file: measuring the workspace %s: %w", f.workspace.path, err)
	}
	var dirs []string
	for _, e := range ents {
		q.entries++
		switch {
		case e.Type().IsDir():
			dirs = append(dirs, rel+"/"+e.Name())
		case e.Type().IsRegular():
			var st unix.Stat_t
			if unix.Fstatat(fd, e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				q.bytes += st.Size
			}
		}
	}
	return dirs, nil
}
