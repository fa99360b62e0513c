package repl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
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
