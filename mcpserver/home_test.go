package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

const homeCanary = "OTHER-CLIENTS-RECORDS"

// TestHomeOutOfReach reproduces rlm mcp started in ~ (the default root: the current directory)
// with RLM_HOME ~/.rlm: a client that names RLM_HOME, a file in it or a path through a symlink
// into it is refused up front; a session whose root holds RLM_HOME works, but its code can
// neither read into RLM_HOME nor see it in a listing.
func TestHomeOutOfReach(t *testing.T) {
	dir, err := os.MkdirTemp("", "rlm-mcp-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, ".rlm")
	_, model := fakeModel(t) // never asked: every rlm_ask here is refused before a run starts
	_, cs := start(t, mcpserver.Options{Home: home, Roots: []string{dir}, Model: model})
	// Readable by every uid: what keeps a session out is rlm, not the file modes.
	for p, mode := range map[string]os.FileMode{dir: 0o755, home: 0o755} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{filepath.Join(dir, "notes.txt"): "my notes\n", filepath.Join(home, "other.txt"): homeCanary + "\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".rlm", filepath.Join(dir, "to-rlm")); err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"roots": []string{".rlm"}},
		{"roots": []string{home}},
		{"roots": []string{".rlm/work"}},
		{"roots": []string{"to-rlm"}},
		{"files": []string{".rlm/other.txt"}},
		{"files": []string{".rlm/audit.db"}},
		{"files": []string{"to-rlm/other.txt"}},
		{"files": []string{".rlm/no-such-file"}}, // refused as inside, not as missing
	} {
		res := call(t, cs, "sandbox_open", args, nil)
		if !res.IsError || !strings.Contains(text(res), "inside this server's RLM_HOME") {
			t.Errorf("sandbox_open %v: %q; want refused as inside RLM_HOME", args, text(res))
		}
		res = call(t, cs, "rlm_ask", map[string]any{"question": "q", "files": args["files"], "roots": args["roots"]}, nil)
		if !res.IsError || !strings.Contains(text(res), "inside this server's RLM_HOME") {
			t.Errorf("rlm_ask %v: %q; want refused as inside RLM_HOME", args, text(res))
		}
	}
	o := open(t, cs, map[string]any{"lang": "js", "files": []string{"notes.txt"}, "roots": []string{"."}})
	var r execOut
	code := `const attempt = (f) => { try { return f(); } catch (e) { return "ERR " + e.message; } };
print(attempt(() => list_dir(` + quote(dir) + `).join(",")));
print(attempt(() => read_file(` + quote(home+"/other.txt") + `)));
print(attempt(() => read_file(` + quote(dir+"/to-rlm/other.txt") + `)));
print(attempt(() => grep("RECORDS", ` + quote(dir) + `).length));
print(attempt(() => read_file("../../other.txt")));`
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": code}, &r)
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	if r.Error != nil || len(lines) != 5 || strings.Contains(r.Output, homeCanary) {
		t.Fatalf("exec: %q %+v", r.Output, r.Error)
	}
	if strings.Contains(lines[0], ".rlm") || !strings.Contains(lines[0], "notes.txt") {
		t.Errorf("list_dir of the root = %q; want notes.txt and no .rlm", lines[0])
	}
	for _, l := range lines[1:3] {
		if !strings.HasPrefix(l, "ERR path ") || !strings.Contains(l, "is outside the allowed roots") {
			t.Errorf("read into RLM_HOME = %q; want the message of a path outside the roots", l)
		}
	}
	if lines[3] != "0" {
		t.Errorf("grep of the root found %s matches; want RLM_HOME skipped", lines[3])
	}
	if !strings.HasPrefix(lines[4], "ERR ") {
		t.Errorf("a relative path from the workspace (under RLM_HOME/work) into RLM_HOME = %q; want refused", lines[4])
	}
	call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestServerRootsAsNamed: a server root given through a symlink (/tmp on macOS) is named so in
// refusals, and a client's relative paths resolve under it.
func TestServerRootsAsNamed(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "in.txt"), []byte("input\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	_, cs := start(t, mcpserver.Options{Roots: []string{link}})
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{"/etc/passwd"}, "is outside the directories this server may read (" + link + ")"},
		{[]string{"missing.txt"}, "relative paths are relative to " + link + ")"},
	} {
		res := call(t, cs, "sandbox_open", map[string]any{"files": tc.files}, nil)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("sandbox_open %v: %q; want %q", tc.files, text(res), tc.want)
		}
	}
	o := open(t, cs, map[string]any{"files": []string{"in.txt"}, "lang": "js"})
	call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
}
