package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMCPHTTPSaysUnauthenticated: rlm mcp --http on a loopback address without a bearer token
// says on stderr, before it serves, that the server is unauthenticated and how to require a
// token; with a token it says nothing of the kind.
func TestMCPHTTPSaysUnauthenticated(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		warned      bool
	}{{"no token", "", true}, {"token", mcpToken, false}} {
		t.Run(tc.name, func(t *testing.T) {
			lines := mcpHTTPStart(t, tc.token)
			text := strings.Join(lines, "\n")
			warned := strings.Contains(text, "rlm mcp: warning: no bearer token")
			if warned != tc.warned {
				t.Fatalf("stderr before serving:\n%s\nwant the unauthenticated warning: %v", text, tc.warned)
			}
			if warned && (!strings.Contains(text, "unauthenticated") || !strings.Contains(text, "RLM_MCP_TOKEN")) {
				t.Errorf("the warning does not say the server is unauthenticated and how to require a token:\n%s", text)
			}
		})
	}
}

// mcpHTTPStart starts `rlm mcp --http 127.0.0.1:0` (token: RLM_MCP_TOKEN, "" for none) and
// returns what it wrote on stderr up to its "serving" line; the server is stopped at the end.
func mcpHTTPStart(t *testing.T, token string) []string {
	t.Helper()
	rlmBin, err := exec.LookPath("rlm") // this test binary, as testscript.Main installed it
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rlmBin, "mcp", "--http", "127.0.0.1:0", "--root", t.TempDir())
	cmd.Env = append(os.Environ(), "RLM_HOME="+filepath.Join(t.TempDir(), "rlm"), envMCPToken+"="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	done := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "serving ") {
				break
			}
		}
		done <- lines
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case lines := <-done:
		return lines
	case <-time.After(30 * time.Second):
		t.Fatal("rlm mcp --http printed no address in 30 s")
	}
	return nil
}
