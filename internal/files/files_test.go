package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestContexts(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("log.txt", []byte("INFO ok\n"))
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{text, ""},
		{write("empty.txt", nil), ""},
		{write("blob.bin", []byte("abc\x00def")), "--ctx " + filepath.Join(dir, "blob.bin") + " is a binary file (a NUL byte at offset 3); rlm reads text"},
		{write("utf16.txt", []byte{0xff, 0xfe, 'a', 0}), "is UTF-16 text; rlm reads UTF-8: convert it first (iconv -f UTF-16 -t UTF-8"},
		{dir, "is a directory; pass files (use --root for directories)"},
		{filepath.Join(dir, "missing.txt"), "missing.txt: no such file or directory"},
		{fifo, "--ctx: " + fifo + " is a named pipe (fifo); rlm reads regular files only"}, // refused, not opened: its open would block
	}
	for _, tt := range tests {
		got, err := Contexts([]string{tt.path}, "--ctx")
		if tt.want == "" {
			if err != nil || len(got) != 1 || got[0] != tt.path {
				t.Errorf("%s: %v, %v", tt.path, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v; want %q", tt.path, err, tt.want)
		}
	}
}

func TestDirAndWorkspace(t *testing.T) {
	home := t.TempDir()
	if _, err := Dir(filepath.Join(home, "none"), "workspace"); err == nil || !strings.Contains(err.Error(), "create the directory first") {
		t.Errorf("missing: %v", err)
	}
	f := filepath.Join(home, "f")
	os.WriteFile(f, nil, 0o600)
	if _, err := Dir(f, "--out"); err == nil || !strings.HasPrefix(err.Error(), "--out "+f+" is not a directory") {
		t.Errorf("a file: %v", err)
	}
	ws, err := NewWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	if !ws.Created || filepath.Dir(ws.Dir) != filepath.Join(home, "work") {
		t.Fatalf("workspace %+v", ws)
	}
	if got := ws.Finish(); got != "" {
		t.Errorf("an empty workspace was kept: %q", got)
	}
	if _, err := os.Stat(ws.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty workspace is still there")
	}
	ws, _ = NewWorkspace(home)
	os.WriteFile(filepath.Join(ws.Dir, "out.txt"), []byte("x"), 0o600)
	if got := ws.Finish(); got != ws.Dir {
		t.Errorf("a written workspace: Finish = %q; want %q", got, ws.Dir)
	}
	mine := Workspace{Dir: t.TempDir()}
	if got := mine.Finish(); got != "" {
		t.Errorf("the caller's workspace: Finish = %q", got)
	}
	if _, err := os.Stat(mine.Dir); err != nil {
		t.Errorf("the caller's workspace was removed")
	}
}
