package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// The official TypeScript MCP client, at the exact versions of testdata/mcpclient's lock file.
const mcpClientDir = "testdata/mcpclient"

// tsClient returns a directory holding client.mjs and the installed packages of
// testdata/mcpclient/package-lock.json: npm ci into a cache directory ($RLM_TEST_CACHE, else
// the user's cache directory) keyed by the lock file's hash, so it installs once. Without node
// or npm the test skips, naming what is missing; under CI=true it fails instead.
func tsClient(t *testing.T) (node, dir string) {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing = append(missing, "npm")
	}
	if len(missing) > 0 {
		msg := strings.Join(missing, " and ") + " not found: install Node.js 18 or later with npm (Debian: apt-get install nodejs npm) to run the TypeScript MCP client test"
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but " + msg + "; .ci/run installs them")
		}
		t.Skip(msg)
	}
	lock, err := os.ReadFile(filepath.Join(mcpClientDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	cache := os.Getenv("RLM_TEST_CACHE")
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			cache = os.TempDir()
		}
		cache = filepath.Join(cache, "rlm-test")
	}
	dir = filepath.Join(cache, "mcpclient-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		install(t, npm, cache, dir)
	}
	src, err := os.ReadFile(filepath.Join(mcpClientDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script sits beside node_modules, where node's ESM resolution looks; a fresh copy per
	// test, so that an edit of the script is what runs.
	run := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(run, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "client.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return node, run
}

// install runs npm ci in a new directory under cache, then renames it to dir, so that a
// concurrent or interrupted install never leaves a half-filled dir.
func install(t *testing.T, npm, cache, dir string) {
	t.Helper()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(mcpClientDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci of %s (the registry must be reachable once; the packages are cached in %s): %v\n%s", mcpClientDir, cache, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil { // not another install that won the race
			t.Fatal(err)
		}
	}
}

// fakeRLMModel serves the README demo's model replies over real HTTP and returns the
// environment that points rlm at it.
func fakeRLMModel(t *testing.T) []string {
	t.Helper()
	sc, err := llmtest.Load("../../examples/demo/model.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New()
	if err := srv.Push(sc...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return []string{"RLM_BASE_URL=" + srv.URL(), "RLM_API_KEY=" + fakeKey, "RLM_MODEL=fake-root"}
}

// runClient runs client.mjs with env added and checks its summary line.
func runClient(t *testing.T, node, dir string, env []string) {
	t.Helper()
	demo, err := filepath.Abs("../../examples/demo")
	if err != nil {
		t.Fatal(err)
	}
	rlmBin, err := exec.LookPath("rlm") // this test binary, as testscript.Main installed it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), append(env, "RLM_BIN="+rlmBin, "DEMO_DIR="+demo, "RLM_HOME="+filepath.Join(home, "rlm"), "HOME="+home)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	var sum struct {
		Tools    []string
		Rejected int
		LoopMS   int `json:"loop_ms"`
		Answer   string
		TaskID   string `json:"task_id"`
		Progress int
	}
	if !strings.HasPrefix(last, "OK ") || json.Unmarshal([]byte(strings.TrimPrefix(last, "OK ")), &sum) != nil {
		t.Fatalf("client.mjs ended without its summary line:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if len(sum.Tools) != 5 || sum.Rejected != 4 || sum.LoopMS < 2000 || !strings.HasPrefix(sum.Answer, "13 payment errors") || sum.TaskID == "" || sum.Progress < 4 {
		t.Errorf("summary %+v", sum)
	}
	t.Logf("TypeScript client: %s", last)
}

// TestMCPTypeScriptClient drives `rlm mcp` with the official TypeScript client
// (@modelcontextprotocol/sdk), over stdio and over streamable HTTP with a bearer token: it
// lists the tools, keeps a session's state across calls, stops a runaway loop, sees escapes
// rejected, and runs rlm_ask with the fake model over real HTTP.
func TestMCPTypeScriptClient(t *testing.T) {
	node, dir := tsClient(t)
	t.Run("stdio", func(t *testing.T) {
		runClient(t, node, dir, fakeRLMModel(t))
	})
	t.Run("http", func(t *testing.T) {
		url := startHTTPServer(t, fakeRLMModel(t))
		runClient(t, node, dir, []string{"MCP_URL=" + url, "MCP_TOKEN=" + mcpToken})
	})
}

const mcpToken = "e2e-0123456789abcdef0123456789abcdef"

// startHTTPServer starts `rlm mcp --http 127.0.0.1:0` with env and the token, and returns its
// URL from the line it prints.
func startHTTPServer(t *testing.T, env []string) string {
	t.Helper()
	demo, err := filepath.Abs("../../examples/demo")
	if err != nil {
		t.Fatal(err)
	}
	rlmBin, err := exec.LookPath("rlm")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rlmBin, "mcp", "--http", "127.0.0.1:0", "--root", demo, "--cell-timeout", "10s")
	cmd.Env = append(os.Environ(), append(env, "RLM_HOME="+filepath.Join(t.TempDir(), "rlm"), envMCPToken+"="+mcpToken)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("rlm mcp --http after SIGTERM: %v", err)
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "serving "); ok {
				lines <- strings.Fields(url)[0]
			}
		}
	}()
	select {
	case url := <-lines:
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("rlm mcp --http printed no address in 30 s")
	}
	return ""
}
