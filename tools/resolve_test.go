package tools

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestFilesResolve: Resolve gives the real path a path leads to inside the roots (by the root's
// name or its real path, through symlinks inside), ErrOutside itself for every path that leads
// out, whether its target exists or not, and a missing file's error matches fs.ErrNotExist.
func TestFilesResolve(t *testing.T) {
	lt := newLinkedTree(t)
	inModes(t, func(t *testing.T) *Files {
		f, err := NewFiles([]string{lt.link}, "", FileLimits{})
		must(t, err)
		return f
	}, func(t *testing.T, f *Files) {
		tests := []struct {
			path string
			want string // the real path, or "outside", or "missing"
		}{
			{lt.link, lt.real},
			{filepath.Join(lt.link, "in.txt"), filepath.Join(lt.real, "in.txt")},
			{filepath.Join(lt.real, "in-link"), filepath.Join(lt.real, "notes.txt")},
			{filepath.Join(lt.link, "sub", "..", "in.txt"), filepath.Join(lt.real, "in.txt")},
			{filepath.Join(lt.link, "missing.txt"), "missing"},
			{filepath.Join(lt.link, "out-link"), "outside"},
			{filepath.Join(lt.link, "out-link") + "/../missing", "outside"},
			{lt.secret, "outside"},
			{lt.secret + "-missing", "outside"},
			{lt.link + "/../../outside/secret", "outside"},
		}
		for _, tt := range tests {
			got, err := f.Resolve("files", tt.path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				got = "missing"
			case err == ErrOutside:
				got = "outside"
			case err != nil:
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Resolve(%s) = %q; want %q", tt.path, got, tt.want)
			}
		}
	})
}
