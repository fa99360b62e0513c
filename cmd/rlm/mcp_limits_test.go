package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPClientTimeouts: `rlm mcp --cell-timeout 3s --timeout 6s` over stdio, driven by the
// go-sdk client. A client's cell_timeout_seconds or timeout_seconds of 1e10 or 1e308 (which
// once wrapped around to a negative duration, that is no deadline: a busy cell ran to its end)
// is refused with the allowed range, and a busy cell of a session opened without one stops at
// 3 s.
func TestMCPClientTimeouts(t *testing.T) {
	rlmBin, err := exec.LookPath("rlm")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := filepath.Abs("../../examples/demo")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rlmBin, "mcp", "--root", demo, "--cell-timeout", "3s", "--timeout", "6s", "--replay", filepath.Join(demo, "model.json"))
	cmd.Env = append(cmd.Environ(), "RLM_HOME="+filepath.Join(t.TempDir(), "rlm"))
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "limits", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	busy := "const t0 = Date.now(); while (Date.now() - t0 < 12000) {}"
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 1e10}, "cell_timeout_seconds 1e+10 is above this server's cap of 3 seconds"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 1e308}, "cell_timeout_seconds 1e+308 is above this server's cap of 3 seconds"},
		{"rlm_ask", map[string]any{"question": "q", "files": []string{"app.log"}, "limits": map[string]any{"timeout_seconds": 1e10}}, "limits.timeout_seconds 1e+10 is above this server's cap of 6 seconds"},
		{"rlm_ask", map[string]any{"question": "q", "files": []string{"app.log"}, "limits": map[string]any{"cell_timeout_seconds": 1e308}}, "limits.cell_timeout_seconds 1e+308 is above this server's cap of 3 seconds"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		got := mcpText(res)
		if !res.IsError || !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: %.300q; want refused with %q", tt.tool, tt.args, got, tt.want)
		}
		if id, ok := structured(res)["session"].(string); ok && id != "" {
			start := time.Now()
			mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": busy})
			t.Errorf("%v opened session %s, and a busy cell ran %v under --cell-timeout 3s", tt.args, id, time.Since(start).Round(100*time.Millisecond))
			mcpCall(t, cs, "sandbox_close", map[string]any{"session": id})
		}
	}
	id := mcpOpen(t, cs, "js")
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_exec", Arguments: map[string]any{"session": id, "code": busy}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); !res.IsError || !strings.Contains(mcpText(res), "error (timeout)") || took < 3*time.Second || took > 6*time.Second {
		t.Errorf("a busy cell under --cell-timeout 3s ended after %v: %.300q; want a timeout at 3 s", took, mcpText(res))
	}
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(res *mcp.CallToolResult) map[string]any {
	m, _ := res.StructuredContent.(map[string]any)
	return m
}
