package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpUserConfig is the user file of TestMCPUserConfig: a command as a tool, and a converter.
const mcpUserConfig = `[tools.head_lines]
description = "the first n lines of a file"
exec = ["head", "-n", "{n}", "--", "{path}"]
params = { path = "path", n = "int" }

[convert]
dat = ["tail", "-n", "1", "{path}"]
`

// TestMCPUserConfig: `rlm mcp`, driven over stdio by the go-sdk client, offers the user's
// [tools.NAME] to its sandbox sessions (sandbox_open lists it in the session's API; a Go cell
// and a JS cell call it through sandbox_exec and get the command's output), and its [convert]
// entries turn a file that is not text into the session's context (sandbox_open says so).
func TestMCPUserConfig(t *testing.T) {
	rlmBin, err := exec.LookPath("rlm") // this test binary, as testscript.Main installed it
	if err != nil {
		t.Fatal(err)
	}
	home, root := t.TempDir(), t.TempDir()
	notes, invoice := filepath.Join(root, "notes.txt"), filepath.Join(root, "invoice.dat")
	for name, body := range map[string]string{filepath.Join(home, "config.toml"): mcpUserConfig, notes: "alpha\nbeta\ngamma\n",
		invoice: "\x00\x01 a binary header\nTotal due: 4,210 EUR\n"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(rlmBin, "mcp", "--root", root)
	cmd.Dir = root // no project rlm.toml
	cmd.Env = append(cmd.Environ(), "RLM_HOME="+home)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "user-config", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cells := map[string]string{"go": fmt.Sprintf("fmt.Print(head_lines(2, %q))", notes), "js": fmt.Sprintf("print(head_lines(1, %q).trim())", notes)}
	wants := map[string]string{"go": "alpha\nbeta\n", "js": "alpha\n"}
	for _, lang := range []string{"go", "js"} {
		open := mcpOpenWith(t, cs, map[string]any{"lang": lang, "files": []string{notes}})
		api, _ := open["api"].([]any)
		if !slices.ContainsFunc(api, func(l any) bool { s, _ := l.(string); return strings.HasPrefix(s, "head_lines(") }) {
			t.Errorf("%s: sandbox_open's api lists no head_lines: %q", lang, api)
		}
		id := open["session"].(string)
		if out := mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": cells[lang]}); out != wants[lang] {
			t.Errorf("%s: %s printed %q; want %q", lang, cells[lang], out, wants[lang])
		}
		mcpCall(t, cs, "sandbox_close", map[string]any{"session": id})
	}
	open := mcpOpenWith(t, cs, map[string]any{"lang": "js", "files": []string{"invoice.dat"}})
	if conv, _ := open["converted"].([]any); len(conv) != 1 || !strings.Contains(conv[0].(string), "invoice.dat: converted to text by tail") {
		t.Errorf("sandbox_open over invoice.dat: converted %q; want the line of its conversion by tail", conv)
	}
	id := open["session"].(string)
	if out := mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": `print(peek(context, 0, 9))`}); out != "Total due\n" {
		t.Errorf("the converted context starts %q; want %q", out, "Total due\n")
	}
}

// mcpOpenWith opens a session with args and returns sandbox_open's structured result.
func mcpOpenWith(t *testing.T, cs *mcp.ClientSession, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sandbox_open", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("sandbox_open %v: %v %s", args, err, mcpText(res))
	}
	return structured(res)
}
