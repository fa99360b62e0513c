package repl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/sandbox"
)

// TestNamedRootsAndHomeInConfinedWorker: in a confined worker, a context file named through a
// symlink makes its directory a root by that name too (read_file and list_dir of the link's
// paths work, messages name the link), and RLM_HOME inside a root (a context file in ~) is out
// of reach and out of the listing, while the default workspace inside it works.
func TestNamedRootsAndHomeInConfinedWorker(t *testing.T) {
	dir, err := os.MkdirTemp("", "rlm-named-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, link, home := filepath.Join(dir, "data", "real"), filepath.Join(dir, "data", "link"), filepath.Join(dir, "home")
	rlmHome, ws := filepath.Join(home, ".rlm"), filepath.Join(home, ".rlm", "work", "ws")
	for _, d := range []string{dir, real, filepath.Dir(ws), home, rlmHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{filepath.Join(real, "in.txt"): "input\n", filepath.Join(real, "notes.txt"): "notes beside\n",
		filepath.Join(home, "notes.txt"): "my notes\n", filepath.Join(rlmHome, "audit.db"): canarySecret} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := sandbox.PrepareWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	o := confinedOptions(t, "js")
	o.Contexts, o.Home, o.Workspace = []string{filepath.Join(link, "in.txt"), filepath.Join(home, "notes.txt")}, rlmHome, ws
	s := open(t, o)
	r := run(t, s, `const attempt = (f) => { try { return f(); } catch (e) { return "ERR " + e.message; } };
print(attempt(() => read_file(`+quote(link+"/notes.txt")+`).trim()));
print(attempt(() => list_dir(`+quote(link)+`).join(",")));
print(attempt(() => list_dir(`+quote(home)+`).join(",")));
print(attempt(() => read_file(`+quote(rlmHome+"/audit.db")+`)));
write_file("x.txt", "written");
print(read_file("x.txt"));`)
	if r.Err != nil {
		t.Fatalf("cell: %v", r.Err)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	want := []string{"notes beside", "in.txt,notes.txt", "notes.txt", "ERR path " + rlmHome + "/audit.db is outside the allowed roots (", "written"}
	if len(lines) != len(want) {
		t.Fatalf("output %q; want %d lines", r.Stdout, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d = %q; want it to start with %q", i+1, lines[i], want[i])
		}
	}
	if !strings.Contains(lines[3], link) || strings.Contains(lines[3], real+",") || leaked(r) {
		t.Errorf("the refusal %q should name the root as named (%s), not as %s, and leak nothing", lines[3], link, real)
	}
}

// TestContextFifoRefused: a context file that is a fifo is refused at once; its open would
// otherwise block until a writer comes.
func TestContextFifoRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	o := confinedOptions(t, "js")
	o.Contexts = []string{fifo}
	done := make(chan error, 1)
	go func() {
		s, err := Open(context.Background(), o)
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is a named pipe (fifo)") {
			t.Errorf("Open = %v; want the fifo refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked for 10 s on a fifo")
	}
}

// TestRootInsideHomeRefused: a root the user names inside RLM_HOME (as named or through a
// link) is refused when the session opens, with the reason and the fix, instead of being
// accepted and then refusing every read under it; a context file there still opens.
func TestRootInsideHomeRefused(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, ".rlm")
	sub := filepath.Join(home, "traces")
	link := filepath.Join(dir, "traces-link")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(sub, "t.jsonl")
	if err := os.WriteFile(trace, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		roots []string
		ctx   []string
		want  string // "" = opens
	}{
		{"root inside", []string{sub}, nil, "lies inside RLM_HOME"},
		{"root is home", []string{home}, nil, "lies inside RLM_HOME"},
		{"root through a link", []string{link}, nil, "lies inside RLM_HOME"},
		{"root beside", []string{dir}, nil, ""},
		{"context inside", nil, []string{trace}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := confinedOptions(t, "js")
			o.Roots, o.Contexts, o.Home = tc.roots, tc.ctx, home
			s, err := Open(context.Background(), o)
			if s != nil {
				s.Close()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Open: %v; want it to open", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Open: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
