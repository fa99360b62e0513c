package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteRefusesNamesRLMReads: write_file refuses rlm.toml in any letter case and at any
// depth, and every name with a component that begins with ".", however the path reaches it
// (absolute, through "..", through a directory the same call would create); the refusal says
// why and what to write instead, and nothing is created. Names that only look alike are written.
func TestWriteRefusesNamesRLMReads(t *testing.T) {
	bothModes(t, func(t *testing.T, ft fileTree, fs *Files) {
		for _, tc := range []struct{ path, why, instead string }{
			{"rlm.toml", "rlm's own configuration file", "rlm.toml.txt"},
			{"RLM.TOML", "rlm's own configuration file", "RLM.TOML.txt"},
			{"Rlm.Toml", "rlm's own configuration file", "Rlm.Toml.txt"},
			{"sub/deeper/rlm.toml", "rlm's own configuration file", "sub/deeper/rlm.toml.txt"},
			{ft.ws + "/rlm.toml", "rlm's own configuration file", "rlm.toml.txt"},
			{"new/../rlm.toml", "rlm's own configuration file", "rlm.toml.txt"},
			{"made/now/../../rlm.toml", "rlm's own configuration file", "rlm.toml.txt"},
			{"./rlm.toml", "rlm's own configuration file", "rlm.toml.txt"},
			{"rlm.toml/x.txt", "rlm's own configuration file", "rlm.toml.txt/x.txt"},
			{".envrc", `names beginning with "."`, "envrc"},
			{".git/hooks/pre-commit", `names beginning with "."`, "git/hooks/pre-commit"},
			{".rlm/config.toml", `names beginning with "."`, "rlm/config.toml"},
			{"a/.hidden/b.txt", `names beginning with "."`, "a/hidden/b.txt"},
			{"new/../.envrc", `names beginning with "."`, "envrc"},
			{"...", `names beginning with "."`, "dots"},
			{ft.ws + "/.git/config", `names beginning with "."`, "git/config"},
		} {
			warn, err := fs.Write(tc.path, "[backends.evil]\n")
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if !errors.Is(err, ErrDenied) || !strings.Contains(msg, tc.why) || !strings.Contains(msg, "instead") && !strings.Contains(msg, "such as") ||
				!strings.HasSuffix(msg, " "+tc.instead) {
				t.Errorf("Write(%q) = %q, %v; want ErrDenied saying %q and naming %s", tc.path, warn, err, tc.why, tc.instead)
			}
		}
		for _, gone := range []string{"rlm.toml", "RLM.TOML", "sub", "new", "made", ".envrc", ".git", ".rlm", "a", "..."} {
			if _, err := os.Lstat(filepath.Join(ft.ws, gone)); err == nil {
				t.Errorf("%s was created", gone)
			}
		}
		for _, ok := range []string{"rlm.toml.txt", "my.rlm.toml", "rlm-toml", "notes.txt.", "a.b/c", "x/rlm.tom"} {
			if _, err := fs.Write(ok, "x"); err != nil {
				t.Errorf("Write(%q): %v; want it written", ok, err)
			}
		}
	})
}
