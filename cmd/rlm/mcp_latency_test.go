package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
)

// TestMCPLatency measures, in one run and interleaved, what the MCP layer adds over calling a
// session directly: the session open time through `rlm mcp` over stdio (a real process, the
// go-sdk client) beside rlm.OpenSession, and the sandbox_exec round trip beside
// rlm.Session.Exec (what `rlm repl` runs per cell), for a trivial cell in each language. The
// table is logged (go test ./cmd/rlm -run TestMCPLatency -v); the test fails only if a call
// fails or returns the wrong value.
func TestMCPLatency(t *testing.T) {
	const opens, cells = 9, 200
	ctx := context.Background()
	rlmBin, err := exec.LookPath("rlm")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(rlmBin, "mcp", "--root", t.TempDir())
	cmd.Env = append(cmd.Environ(), "RLM_HOME="+filepath.Join(home, "mcp"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "latency", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var b strings.Builder
	fmt.Fprintf(&b, "\n%-34s %14s %14s %7s\n", "measure", "direct", "MCP stdio", "ratio")
	for _, lang := range []string{"js", "go"} {
		var openDirect, openMCP []time.Duration
		for range opens {
			start := time.Now()
			s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: lang, Home: filepath.Join(home, "direct")})
			if err != nil {
				t.Fatal(err)
			}
			openDirect = append(openDirect, time.Since(start))
			s.Close()
			start = time.Now()
			id := mcpOpen(t, cs, lang)
			openMCP = append(openMCP, time.Since(start))
			mcpCall(t, cs, "sandbox_close", map[string]any{"session": id})
		}
		s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: lang, Home: filepath.Join(home, "direct")})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		id := mcpOpen(t, cs, lang)
		decl, incr := "let x = 0", "x += 1"
		if lang == "go" {
			decl, incr = "x := 0", "x++"
		}
		if r := s.Exec(ctx, decl); r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": decl})
		var execDirect, execMCP []time.Duration
		for range cells {
			start := time.Now()
			if r := s.Exec(ctx, incr); r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			execDirect = append(execDirect, time.Since(start))
			start = time.Now()
			mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": incr})
			execMCP = append(execMCP, time.Since(start))
		}
		// Both sessions counted every cell.
		check := "print(x)"
		if r := s.Exec(ctx, check); strings.TrimSpace(r.Output) != fmt.Sprint(cells) {
			t.Errorf("%s direct: x = %q; want %d", lang, r.Output, cells)
		}
		if out := mcpCall(t, cs, "sandbox_exec", map[string]any{"session": id, "code": check}); strings.TrimSpace(out) != fmt.Sprint(cells) {
			t.Errorf("%s MCP: x = %q; want %d", lang, out, cells)
		}
		mcpCall(t, cs, "sandbox_close", map[string]any{"session": id})
		row(&b, lang+" session open, median of 9", openDirect, openMCP, 50)
		row(&b, lang+" exec round trip p50 (200 cells)", execDirect, execMCP, 50)
		row(&b, lang+" exec round trip p90", execDirect, execMCP, 90)
	}
	t.Log(b.String())
}

func row(b *strings.Builder, name string, direct, viaMCP []time.Duration, p int) {
	d, m := percentile(direct, p), percentile(viaMCP, p)
	fmt.Fprintf(b, "%-34s %14s %14s %6.2fx\n", name, d.Round(time.Microsecond), m.Round(time.Microsecond), float64(m)/float64(d))
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func mcpOpen(t *testing.T, cs *mcp.ClientSession, lang string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sandbox_open", Arguments: map[string]any{"lang": lang}})
	if err != nil || res.IsError {
		t.Fatalf("sandbox_open: %v %+v", err, res)
	}
	return res.StructuredContent.(map[string]any)["session"].(string)
}

// mcpCall calls a tool and returns its output (sandbox_exec's), failing on any error.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %v %+v", name, args, err, res)
	}
	out, _ := res.StructuredContent.(map[string]any)["output"].(string)
	return out
}
