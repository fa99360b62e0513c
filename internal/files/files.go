package files

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/sandbox"
	"github.com/rlm-sandbox/rlm/tools"
)

// Contexts resolves the context files to absolute paths, refusing a missing file, a directory,
// a file that is not text, and what cannot be mapped: a pipe (tools.OpenRegular's message) and
// a file of /proc or /sys (the command line saves both to a file first). label names the option
// in messages ("--ctx", "file").
func Contexts(paths []string, label string) ([]string, error) {
	return Inputs(paths, label, nil)
}

// Inputs is Contexts, except that a file converted says which files a converter turns into text
// ([convert]): those need not be text, and are checked to be regular files only. nil: none.
func Inputs(paths []string, label string, converted func(path string) bool) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s %s is a directory; pass files (use --root for directories)", label, p)
		}
		if KindOf(abs) == Kernel {
			return nil, kernelFile(label, p)
		}
		if converted != nil && converted(abs) {
			f, err := tools.OpenRegular(abs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			f.Close()
		} else if err := text(label, p, abs); err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// text refuses a context file that is not text (CheckText). It is opened by
// tools.OpenRegular: a fifo (whose open would block until a writer comes), a socket or a device
// is refused without being opened.
func text(label, name, path string) error {
	f, err := tools.OpenRegular(path)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	defer f.Close()
	head := make([]byte, HeadBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	return CheckText(label, name, head[:n], true)
}

// Dir checks a workspace the caller names: it must be an existing directory, and lie outside
// home (RLM_HOME): not home itself, not a directory that holds it, and not inside it but below
// home/work, where rlm keeps the per-task workspaces. The code writes into its workspace, and
// home holds what rlm itself reads: the user file, the trust store, the audit trail. It returns
// the absolute path. label names the option in messages ("--out", "workspace").
func Dir(dir, home, label string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s %s: %v; create the directory first", label, dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s %s is not a directory", label, dir)
	}
	if err := outsideHome(abs, home, label, dir); err != nil {
		return "", err
	}
	return abs, nil
}

// outsideHome refuses a workspace abs (an existing directory) that is home, holds it, or lies
// inside it anywhere but below home/work. Directories are compared by identity (device and
// inode), after resolving symbolic links, so neither a link nor a case-insensitive file system
// hides home.
func outsideHome(abs, rlmHome, label, dir string) error {
	if rlmHome == "" {
		return nil
	}
	ws, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("%s %s: %v", label, dir, err)
	}
	h := resolveExisting(rlmHome)
	why := ""
	switch {
	case atOrBelow(h, ws):
		why = "is RLM_HOME or holds it"
	case atOrBelow(ws, h):
		work := home.Work(h)
		if atOrBelow(ws, work) && !atOrBelow(work, ws) {
			return nil // a per-task workspace of rlm's own
		}
		why = "lies inside RLM_HOME"
	default:
		return nil
	}
	return fmt.Errorf("%s %s %s (%s), where rlm keeps its configuration, trust store and records, which the code must not write: pass a directory outside %s, or leave %s out for a new workspace under %s",
		label, dir, why, rlmHome, rlmHome, label, home.Work(rlmHome))
}

// atOrBelow reports whether p is the directory anc or lies below it: some directory on p's way
// up (p included) is anc itself. Components of p that do not exist are skipped.
func atOrBelow(p, anc string) bool {
	ast, err := os.Stat(anc)
	if err != nil {
		return false
	}
	for {
		if st, err := os.Stat(p); err == nil && os.SameFile(st, ast) {
			return true
		}
		up := filepath.Dir(p)
		if up == p {
			return false
		}
		p = up
	}
}

// resolveExisting makes p absolute and resolves the symbolic links of its longest existing part
// (home may not exist yet).
func resolveExisting(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for q := abs; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(q) == q {
			return abs
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// Workspace is the directory write_file writes to. Created marks the default per-task
// directory, which rlm made and may remove; a directory the caller chose is never changed.
type Workspace struct {
	Dir     string
	Created bool
}

// NewWorkspace creates the default workspace: a new directory under home/work, 0700, handed to
// the worker's uid (see sandbox.PrepareWorkspace).
func NewWorkspace(rlmHome string) (Workspace, error) {
	parent := home.Work(rlmHome)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return Workspace{}, fmt.Errorf("creating the default workspace under %s: %w; set RLM_HOME to a writable directory or pass --out DIR", parent, err)
	}
	dir, err := os.MkdirTemp(parent, time.Now().UTC().Format("20060102T150405Z")+"-")
	if err != nil {
		return Workspace{}, fmt.Errorf("creating the default workspace: %w; pass --out DIR", err)
	}
	if err := sandbox.PrepareWorkspace(dir); err != nil {
		os.Remove(dir)
		return Workspace{}, fmt.Errorf("handing the workspace %s to the worker's uid: %w; pass --out DIR", dir, err)
	}
	return Workspace{Dir: dir, Created: true}, nil
}

// Finish removes the default workspace if nothing was written to it, and returns the directory
// that holds the files the code wrote ("" if none, or if it is not the default).
func (w Workspace) Finish() string {
	if !w.Created {
		return ""
	}
	if os.Remove(w.Dir) == nil { // only an empty directory goes
		return ""
	}
	if _, err := os.Stat(w.Dir); err != nil {
		return "" // gone (removed by rlm clean): nothing to point at
	}
	return w.Dir
}
