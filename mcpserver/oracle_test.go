package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestPathOracle: the answer to a path outside the roots or in RLM_HOME is the same whatever
// exists there: for each argument, every probe's answer, with the probe replaced by PATH, is
// byte for byte the same, and names no target. The probes reach outside by name, by ".." and
// through symlinks inside the root (to a directory, to files that exist and do not, upwards),
// and into RLM_HOME (inside the root) by name and through symlinks. Before, the server resolved
// them with realpath, outside the roots too: "does not exist" for a missing file behind a
// symlink, "outside" for an existing one, "inside RLM_HOME" for one reached by name.
func TestPathOracle(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "outside")
	root := filepath.Join(dir, "root")
	home := filepath.Join(root, ".rlm")
	for _, d := range []string{filepath.Join(out, "sub"), filepath.Join(home, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(out, "secret.txt"), filepath.Join(home, "notes.txt"), filepath.Join(root, "in.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"out": out, "up": "..", "homelink": home, "rel-home": ".rlm",
		"live": filepath.Join(out, "secret.txt"), "dangling": filepath.Join(out, "missing.txt"),
		"home-live": filepath.Join(home, "notes.txt"), "home-dangling": filepath.Join(home, "missing.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	_, model := fakeModel(t) // never asked: every rlm_ask here is refused before a run starts
	_, cs := start(t, mcpserver.Options{Home: home, Roots: []string{root}, Model: model})
	probes := []string{
		// outside, by name and by ".."
		filepath.Join(out, "secret.txt"), filepath.Join(out, "missing.txt"), out, filepath.Join(out, "sub"), filepath.Join(out, "no", "such"),
		"../outside/secret.txt", "../outside/missing.txt", "../outside/sub", root + "/../outside/secret.txt", "/etc/passwd", "/etc/no-such",
		// outside, through symlinks in the root
		"out", "out/secret.txt", "out/missing.txt", "out/sub", "out/sub/missing", "out/secret.txt/x",
		"out/../outside/secret.txt", "out/../outside/missing.txt", "up/outside/secret.txt", "up/outside/missing.txt",
		"live", "dangling",
		// RLM_HOME, by name and through symlinks
		".rlm", ".rlm/notes.txt", ".rlm/missing.txt", ".rlm/work", ".rlm/audit.db", home + "/notes.txt", home + "/missing.txt",
		"homelink/notes.txt", "homelink/missing.txt", "homelink/work", "rel-home/notes.txt", "rel-home/missing.txt",
		"home-live", "home-dangling", "out/../root/.rlm/notes.txt", "out/../root/.rlm/missing.txt",
	}
	for _, arg := range []struct{ tool, name string }{{"sandbox_open", "files"}, {"sandbox_open", "roots"}, {"rlm_ask", "files"}} {
		answers := map[string][]string{} // answer with PATH -> the probes that got it
		for _, p := range probes {
			args := map[string]any{arg.name: []string{p}}
			if arg.tool == "rlm_ask" {
				args["question"] = "q"
			}
			res := call(t, cs, arg.tool, args, nil)
			got := strings.Replace(text(res), arg.name+": "+p+" ", arg.name+": PATH ", 1)
			if !res.IsError || strings.Contains(got, out) {
				t.Errorf("%s %s %s: %q; want refused, naming no target", arg.tool, arg.name, p, got)
			}
			answers[got] = append(answers[got], p)
		}
		if len(answers) != 1 {
			for a, ps := range answers {
				t.Errorf("%s %s: %q for %q", arg.tool, arg.name, a, ps)
			}
			t.Errorf("%s %s: %d different answers; want one for every path outside the roots or in RLM_HOME", arg.tool, arg.name, len(answers))
		}
	}
	// Inside, what the answers tell is the client's to know; a path that leaves the root and
	// comes back in reaches its file.
	tests := []struct{ file, want string }{
		{"missing.txt", "does not exist"},
		{"out/../root/missing.txt", "does not exist"},
		{"out/../root/in.txt", ""},
		{"up/root/in.txt", ""},
	}
	for _, tt := range tests {
		var o openOut
		res := call(t, cs, "sandbox_open", map[string]any{"files": []string{tt.file}, "lang": "js"}, &o)
		switch {
		case tt.want == "" && (res.IsError || len(o.Files) != 1 || o.Files[0] != filepath.Join(root, "in.txt")):
			t.Errorf("sandbox_open %s: %q, files %q; want %s opened", tt.file, text(res), o.Files, filepath.Join(root, "in.txt"))
		case tt.want != "" && (!res.IsError || !strings.Contains(text(res), tt.want)):
			t.Errorf("sandbox_open %s: %q; want %q", tt.file, text(res), tt.want)
		}
		if o.Session != "" {
			call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
		}
	}
}
