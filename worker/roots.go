package worker

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
)

// blockedRoot is a context file's directory that DAC keeps the worker out of: the file tools
// cannot serve it, and say why when asked for a path below it.
type blockedRoot struct {
	path  string
	names []string // as the user named it
	why   error
}

// openFileTools builds the worker's file tools from the inherited root descriptors. A descriptor
// does not bypass DAC: every open relative to it checks the worker's uid against the directory
// (search, and write for the workspace), so each root is checked here. A --root or workspace the
// worker cannot use is an error; a context file's directory (a root nobody asked for by name) is
// left out and remembered, so the context tools still work.
func openFileTools(cfg Config) (*tools.Files, []blockedRoot, error) {
	var dirs []tools.Dir
	var blocked []blockedRoot
	fail := func(err error) (*tools.Files, []blockedRoot, error) {
		for _, d := range dirs {
			unix.Close(d.FD)
		}
		return nil, nil, err
	}
	for _, r := range cfg.Roots {
		err := reachable(r.FD, false)
		switch {
		case err != nil && r.FromContext:
			unix.Close(r.FD)
			blocked = append(blocked, blockedRoot{path: r.Path, names: r.Names, why: err})
		case err != nil:
			return fail(fault.New(fault.Denied, "--root %s: %v; make it readable by others (chmod o+rx, on it and what it holds) or copy what the code needs into a readable directory", r.Path, err))
		default:
			dirs = append(dirs, tools.Dir{Path: r.Path, Names: r.Names, FD: r.FD})
		}
	}
	var ws *tools.Dir
	if w := cfg.Workspace; w != nil {
		if err := reachable(w.FD, true); err != nil {
			return fail(fault.New(fault.Denied, "workspace %s: %v; give the worker's uid write access to it (rlm never changes a directory you chose), choose another --out, or leave --out out to get a per-task directory under RLM_HOME", w.Path, err))
		}
		ws = &tools.Dir{Path: w.Path, Names: w.Names, FD: w.FD}
	}
	lim := cfg.Limits
	f, err := tools.NewFilesAt(dirs, ws, tools.FileLimits{ReadChars: lim.ReadChars, GrepResults: lim.GrepResults, WriteBytes: lim.WriteBytes,
		WorkspaceBytes: int(max(cfg.Quota.Bytes, 0)), WorkspaceEntries: max(cfg.Quota.Entries, 0)}, cfg.Hidden)
	if err != nil {
		return nil, nil, err
	}
	return f, blocked, nil
}

// reachable checks that this process may read (and, with write, create files) below the
// directory fd (accessDir).
func reachable(fd int, write bool) error {
	mode, want := uint32(unix.R_OK|unix.X_OK), "read"
	if write {
		mode, want = mode|unix.W_OK, "write in"
	}
	err := accessDir(fd, mode)
	if err == nil {
		return nil
	}
	perm := "unknown mode"
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		perm = "mode " + (os.FileMode(st.Mode&0o777) | os.ModeDir).String()
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		return fmt.Errorf("the worker runs as an unprivileged uid (65534 when rlm runs as root) and may not %s it (%s, %s: %v)", want, perm, unix.ErrnoName(errno), err)
	}
	return fmt.Errorf("the worker cannot check its access to it: %v", err)
}

// whyBlocked replaces a denial of a path below a blocked context directory with the reason.
func (t *localTools) whyBlocked(tool, path string, err error) error {
	for _, b := range t.blocked {
		for _, dir := range append([]string{b.path}, b.names...) {
			if path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/") {
				return fault.New(fault.Denied, "%s: %s is in %s, a context file's directory, but %v; make it readable by others or pass a readable directory with --root", tool, path, dir, b.why)
			}
		}
	}
	return err
}
