package repl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/sandbox"
)

// TestFileToolsInConfinedWorker: the file tools work inside an allowed root and are denied
// outside it, in a confined worker (uid 65534 under Landlock; the guard is the first layer).
func TestFileToolsInConfinedWorker(t *testing.T) {
	root, err := os.MkdirTemp("", "rlm-repl-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := confinedOptions(t, "js")
	o.Roots = []string{root}
	s := open(t, o)
	r := run(t, s, `print(read_file(`+quote(filepath.Join(root, "notes.txt"))+`).trim().split("\n").length, list_dir(`+quote(root)+`).join(","))`)
	if r.Err != nil || strings.TrimSpace(r.Stdout) != "2 notes.txt" {
		t.Fatalf("inside the root: %q %v", r.Stdout, r.Err)
	}
	for _, p := range []string{"/etc/passwd", filepath.Join(root, "..", "..", "etc", "passwd"), "/proc/self/environ"} {
		r := run(t, s, `print(read_file(`+quote(p)+`))`)
		if !errors.Is(r.Err, fault.Denied) || strings.Contains(r.Stdout, "root:") {
			t.Errorf("read_file(%s): stdout %q err %v; want denied", p, r.Stdout, r.Err)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// privateDir makes a 0700 directory owned by the test's uid (root, when the tests run as root):
// a worker of another uid cannot reach anything below it by name.
func privateDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rlm-private-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// defaultWorkspace makes a workspace the way the CLI makes its default one: a 0700 directory
// under a 0700 directory, handed to the worker's uid.
func defaultWorkspace(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(privateDir(t), "work")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := sandbox.PrepareWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestWorkspaceWriteThenRead: in a confined worker, write_file creates a file (and its directory)
// in a workspace under a 0700 directory, read_file and grep find it through relative paths, and
// the host sees the file. Go's grep results carry the path as JS's do.
func TestWorkspaceWriteThenRead(t *testing.T) {
	cells := map[string]string{
		"js": `write_file("notes/a.txt", "alpha\nbeta\n")
print(read_file("notes/a.txt").split("\n")[1])
const m = grep("beta", "notes")
print(m.length, m[0].path, m[0].line)`,
		"go": `import "strings"
write_file("notes/a.txt", "alpha\nbeta\n")
print(strings.Split(read_file("notes/a.txt"), "\n")[1])
m := grep("beta", "notes")
print(len(m), m[0].Path, m[0].Line)`,
	}
	for _, lang := range []string{"go", "js"} {
		t.Run(lang, func(t *testing.T) {
			o := confinedOptions(t, lang)
			o.Workspace = defaultWorkspace(t)
			s := open(t, o)
			file := filepath.Join(o.Workspace, "notes", "a.txt")
			r := run(t, s, cells[lang])
			if want := "beta\n1 " + file + " 2\n"; r.Err != nil || r.Stdout != want {
				t.Fatalf("stdout %q err %v; want %q", r.Stdout, r.Err, want)
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != "alpha\nbeta\n" {
				t.Fatalf("on the host: %q %v", got, err)
			}
		})
	}
}

// TestReadRootUnderPrivateDir: a read root below a 0700 directory is readable through its
// descriptor, as is the directory of a context file; writing there, or anywhere outside the
// workspace, is denied and leaves nothing behind.
func TestReadRootUnderPrivateDir(t *testing.T) {
	root := filepath.Join(privateDir(t), "docs")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "doc.txt"), []byte("gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := confinedOptions(t, "js")
	o.Roots, o.Workspace = []string{root}, defaultWorkspace(t)
	s := open(t, o)
	r := run(t, s, `print(read_file(`+quote(filepath.Join(root, "doc.txt"))+`).trim(), list_dir(`+quote(root)+`).join(","), read_file(`+quote(o.Contexts[0])+`).length > 0)`)
	if r.Err != nil || r.Stdout != "gamma doc.txt true\n" {
		t.Fatalf("read root and context directory: %q %v", r.Stdout, r.Err)
	}
	outside := filepath.Join(privateDir(t), "pwned.txt")
	for _, p := range []string{filepath.Join(root, "x.txt"), outside, "../pwned.txt", filepath.Join(filepath.Dir(o.Contexts[0]), "x.txt")} {
		r := run(t, s, `write_file(`+quote(p)+`, "x")`)
		if !errors.Is(r.Err, fault.Denied) {
			t.Errorf("write_file(%s): %v; want denied", p, r.Err)
		}
	}
	for _, p := range []string{filepath.Join(root, "x.txt"), outside, filepath.Join(filepath.Dir(o.Workspace), "pwned.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestUnreachableDirs: when the worker runs as another uid (a root parent), DAC applies to every
// open through a descriptor too (EACCES). A workspace the user chose that the worker cannot write
// refuses the session with the reason and is left as it was; a context file's directory it cannot
// read is left out of the roots, with the reason given when a file tool asks for it.
func TestUnreachableDirs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker runs as the test's own uid; DAC lets it in")
	}
	ws := privateDir(t)
	o := confinedOptions(t, "js")
	o.Workspace = ws
	_, err := Open(context.Background(), o)
	if !errors.Is(err, fault.Denied) || !strings.Contains(err.Error(), "may not write in it") || !strings.Contains(err.Error(), "EACCES") {
		t.Fatalf("Open with an unwritable workspace: %v; want denied, with the reason", err)
	}
	if st, err := os.Stat(ws); err != nil || st.Sys().(*syscall.Stat_t).Uid != 0 || st.Mode().Perm() != 0o700 {
		t.Fatalf("the user's workspace was changed: %v %v", st.Mode(), err)
	}
	ctxFile := filepath.Join(privateDir(t), "ctx.txt")
	if err := os.WriteFile(ctxFile, []byte("ERROR one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o = confinedOptions(t, "js")
	o.Contexts = []string{ctxFile}
	s := open(t, o)
	r := run(t, s, `print(count(context, "ERROR")); read_file(`+quote(ctxFile)+`)`)
	if r.Stdout != "1\n" || !errors.Is(r.Err, fault.Denied) || !strings.Contains(r.Err.Error(), "a context file's directory") {
		t.Fatalf("stdout %q err %v; want the count, then a denial that says why", r.Stdout, r.Err)
	}
	r = run(t, s, `grep("ERROR", `+quote(filepath.Dir(ctxFile))+`)`)
	if !errors.Is(r.Err, fault.Denied) || !strings.Contains(r.Err.Error(), "EACCES") {
		t.Fatalf("grep in the unreachable directory: %v; want a denial that says why", r.Err)
	}
}
