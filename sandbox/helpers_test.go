//go:build linux

package sandbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// only enables the single layer l (degraded on purpose, so AllowDegraded).
func only(l Layer) Config { return Config{Disable: AllLayers &^ l, AllowDegraded: true} }

// nsOnly enables the namespace l alone; an unprivileged parent needs a user namespace
// for any other namespace.
func nsOnly(l Layer) Config {
	if os.Geteuid() != 0 {
		l |= UserNS
	}
	return only(l)
}

// noLayers is the control run: the same attempt with every layer off.
func noLayers() Config { return Config{Disable: AllLayers, AllowDegraded: true} }

func wantOK(t *testing.T, r result, name string) {
	t.Helper()
	if s := r.step(t, name); !s.OK {
		t.Errorf("%s: failed with %q, want success", name, s.Err)
	}
}

func wantErrno(t *testing.T, r result, name string, errnos ...syscall.Errno) {
	t.Helper()
	s := r.step(t, name)
	if s.OK || !slices.Contains(errnos, syscall.Errno(s.Errno)) {
		t.Errorf("%s: ok=%v err=%q (errno %d), want one of %v", name, s.OK, s.Err, s.Errno, errnos)
	}
}

func wantApplied(t *testing.T, r result, layers Layer) {
	t.Helper()
	for _, l := range layers.List() {
		if lr := r.Report.Get(l); lr.Status != Applied {
			t.Fatalf("layer %s: %s (%s), want applied; apply: %q; stderr %q",
				l, lr.Status, lr.Detail, r.Steps["apply"].Err, r.Stderr)
		}
	}
}

// tree is a directory layout every worker uid can reach: ctx.txt (a context file),
// docs/ (a read root), work/ (the workspace) and outside/canary.txt.
type tree struct{ root, ctx, docs, work, canary, outside string }

func newTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	tr := tree{root: root, ctx: filepath.Join(root, "ctx.txt"), docs: filepath.Join(root, "docs"),
		work: filepath.Join(root, "work"), outside: filepath.Join(root, "outside")}
	tr.canary = filepath.Join(tr.outside, "canary.txt")
	for _, d := range []string{tr.docs, tr.work, tr.outside} {
		must(t, os.Mkdir(d, 0o777))
		must(t, os.Chmod(d, 0o777))
	}
	must(t, os.Chmod(root, 0o755))
	must(t, os.Chmod(filepath.Dir(root), 0o755)) // t.TempDir's per-test parent is 0700
	for _, f := range []string{tr.ctx, filepath.Join(tr.docs, "doc.txt"), tr.canary} {
		must(t, os.WriteFile(f, []byte("CANARY-or-content\n"), 0o644))
	}
	return tr
}

func (tr tree) config(c Config) Config {
	c.ReadFiles, c.ReadDirs, c.Workspace = []string{tr.ctx}, []string{tr.docs}, tr.work
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// listen opens a loopback TCP listener that accepts and closes connections.
func listen(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err == nil {
				c.Close()
			}
		}
	}()
	return ln.Addr().String()
}
