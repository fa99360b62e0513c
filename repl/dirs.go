package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
	"github.com/rlm-sandbox/rlm/wire"
)

// inherited is what the parent opens for a session and every worker inherits, in descriptor
// order from 3: the context files (read-only), the read roots and the workspace (O_PATH
// directories). A confined worker runs as an unprivileged uid that often cannot reach these by
// name (a 0700 home); through the descriptors it needs no path, only the rights DAC gives it on
// the directories themselves, and Landlock grants it exactly these trees.
type inherited struct {
	files  []*os.File  // ExtraFiles, in order
	ctxFDs []int       // the context files' descriptors in the worker
	idxFDs []int       // their indexes' descriptors in the worker (see addIndexes)
	ctxIDs []fileID    // the context files as they were when the session opened them
	roots  []wire.Root // FD is the descriptor in the worker
	ws     *wire.Root
	hidden []tools.Hidden // Options.Home, which the file tools never reach
}

// fileID identifies a file's content cheaply: the inode, and the size and the modification and
// change times, which every write moves.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime unix.Timespec
}

func identify(f *os.File) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileID{}, err
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, nil
}

// unchanged checks that the context files are as they were when the session opened them: a
// replay recomputes the context tools from them, and a changed file would make the rebuilt
// state differ from the one the cells built, silently.
func (in *inherited) unchanged() error {
	for i, want := range in.ctxIDs {
		f := in.files[i]
		got, err := identify(f)
		if err != nil {
			return fmt.Errorf("the context file %s cannot be checked (%v), so the earlier cells cannot be replayed against it", f.Name(), err)
		}
		if got != want {
			return fmt.Errorf("the context file %s changed since the session opened it (%d bytes then, %d now), so the earlier cells cannot be replayed against it", f.Name(), want.size, got.size)
		}
	}
	return nil
}

// openInherited opens the context files (never blocking: tools.OpenRegular), the roots
// (Options.Roots, then the directories of the context files not already among them) and the
// workspace, each known by its real path and by the path the user named it by, and describes
// Options.Home for the file tools to hide.
func openInherited(o Options) (*inherited, error) {
	in := &inherited{}
	if o.Home != "" {
		h, err := tools.HiddenDir(o.Home)
		if err != nil {
			return nil, fmt.Errorf("RLM_HOME: %w", err)
		}
		in.hidden = []tools.Hidden{h}
	}
	for _, p := range o.Contexts {
		f, err := tools.OpenRegular(p)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("context file: %w", err)
		}
		id, err := identify(f)
		if err != nil {
			f.Close()
			in.close()
			return nil, fmt.Errorf("context file: %w", err)
		}
		in.ctxFDs = append(in.ctxFDs, in.add(f))
		in.ctxIDs = append(in.ctxIDs, id)
	}
	if err := in.addIndexes(o); err != nil {
		in.close()
		return nil, err
	}
	for _, p := range o.Roots {
		if err := in.notHidden(p); err != nil {
			in.close()
			return nil, err
		}
		if _, err := in.addRoot(p, false); err != nil {
			in.close()
			return nil, err
		}
	}
	for _, p := range o.Contexts {
		if _, err := in.addRoot(filepath.Dir(p), true); err != nil {
			in.close()
			return nil, err
		}
	}
	if o.Workspace != "" {
		d, err := tools.OpenDir(o.Workspace)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("workspace: %w", err)
		}
		in.ws = &wire.Root{Path: d.Path, Names: d.Names, FD: in.add(os.NewFile(uintptr(d.FD), d.Path))}
	}
	return in, nil
}

// notHidden refuses a root the user named inside RLM_HOME, which the file tools would never
// reach; a context file's directory there is left to them (the context itself stays readable).
func (in *inherited) notHidden(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil // OpenDir names what is wrong
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil
	}
	for _, h := range in.hidden {
		if h.Holds(real) {
			return fault.New(fault.Denied, "allowed root %s lies inside RLM_HOME (%s), which the file tools never reach; name a directory outside it", p, h.Name)
		}
	}
	return nil
}

// add appends f to the inherited files and returns its descriptor in the worker.
func (in *inherited) add(f *os.File) int {
	in.files = append(in.files, f)
	return 2 + len(in.files)
}

// addRoot opens a read root unless the same directory is already one; then the name it was
// given this time is added to that one's.
func (in *inherited) addRoot(p string, fromContext bool) (bool, error) {
	d, err := tools.OpenDir(p)
	if err != nil {
		return false, fmt.Errorf("allowed root: %w", err)
	}
	for i, r := range in.roots {
		if r.Path == d.Path {
			unix.Close(d.FD)
			for _, n := range d.Names {
				if !slices.Contains(r.Names, n) {
					in.roots[i].Names = append(in.roots[i].Names, n)
				}
			}
			return false, nil
		}
	}
	in.roots = append(in.roots, wire.Root{Path: d.Path, Names: d.Names, FD: in.add(os.NewFile(uintptr(d.FD), d.Path)), FromContext: fromContext})
	return true, nil
}

func (in *inherited) close() {
	for _, f := range in.files {
		f.Close()
	}
	in.files = nil
}

// rootFDs lists the descriptors of the read roots and of the workspace (0 if none), for the
// worker's Landlock rules.
func (in *inherited) rootFDs() (read []int, ws int) {
	for _, r := range in.roots {
		read = append(read, r.FD)
	}
	if in.ws != nil {
		ws = in.ws.FD
	}
	return read, ws
}
