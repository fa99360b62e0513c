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
		{write("blob.bin2", []byte("abc\x00def")), `name a converter for .bin2 files in $RLM_HOME/config.toml: [convert] bin2 = ["PROGRAM", "{path}"] (README: Your own tools)`},
		{write("Contract.PDF", []byte("%PDF-1.4\n1 0 obj\n")), `Contract.PDF is a binary file (a PDF); rlm reads text: pass a text file, extract its text first (such as strings ` +
			filepath.Join(dir, "Contract.PDF") + ` > ` + filepath.Join(dir, "Contract.PDF") + `.txt), or name a converter for .pdf files in $RLM_HOME/config.toml: [convert] pdf = ["pdftotext", "-layout", "{path}", "-"] (README: Your own tools)`},
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
	if _, err := Dir(filepath.Join(home, "none"), "", "workspace"); err == nil || !strings.Contains(err.Error(), "create the directory first") {
		t.Errorf("missing: %v", err)
	}
	f := filepath.Join(home, "f")
	os.WriteFile(f, nil, 0o600)
	if _, err := Dir(f, "", "--out"); err == nil || !strings.HasPrefix(err.Error(), "--out "+f+" is not a directory") {
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

// TestDirOutsideHome: a workspace is never RLM_HOME, never holds it, and never lies inside it but
// below its work directory (rlm's own per-task workspaces), however it is named: through a
// symbolic link, with "..", or before RLM_HOME exists.
func TestDirOutsideHome(t *testing.T) {
	top := t.TempDir()
	home := filepath.Join(top, "u", ".rlm")
	for _, d := range []string{filepath.Join(home, "work", "task1"), filepath.Join(home, "logs"), filepath.Join(top, "elsewhere")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, home string
		want            string // a phrase of the error; "" = accepted
	}{
		{"RLM_HOME", home, home, "is RLM_HOME or holds it"},
		{"its parent", filepath.Join(top, "u"), home, "is RLM_HOME or holds it"},
		{"the root of it all", top, home, "is RLM_HOME or holds it"},
		{"a link to it", filepath.Join(top, "link"), home, "is RLM_HOME or holds it"},
		{"by ..", filepath.Join(home, "logs", ".."), home, "is RLM_HOME or holds it"},
		{"inside it", filepath.Join(home, "logs"), home, "lies inside RLM_HOME"},
		{"inside it through the link", filepath.Join(top, "link", "logs"), home, "lies inside RLM_HOME"},
		{"its work directory", filepath.Join(home, "work"), home, "lies inside RLM_HOME"},
		{"a per-task workspace", filepath.Join(home, "work", "task1"), home, ""},
		{"elsewhere", filepath.Join(top, "elsewhere"), home, ""},
		{"a home not made yet, inside the directory", filepath.Join(top, "elsewhere"), filepath.Join(top, "elsewhere", "new", ".rlm"), "is RLM_HOME or holds it"},
		{"a home not made yet, elsewhere", filepath.Join(top, "elsewhere"), filepath.Join(top, "u", "new"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dir(tt.dir, tt.home, "--out")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "pass a directory outside "+tt.home)):
				t.Errorf("got %q, %v; want an error with %q", got, err, tt.want)
			}
		})
	}
}
