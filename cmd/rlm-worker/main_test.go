package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// forbidden are the packages (a path, or a prefix ending in /) that the worker's entry point
// must not link: what the trusted parent needs and model code never does. Each would put its
// init code, its memory and its attack surface into every confined worker.
var forbidden = []string{
	"github.com/nats-io/",                   // NATS server and client (rlm batch)
	"modernc.org/",                          // SQLite (the audit trail) and its libc
	"github.com/modelcontextprotocol/",      // the MCP SDK (rlm mcp)
	"github.com/openai/",                    // the model client
	"github.com/spf13/",                     // cobra and pflag (the CLI)
	"github.com/reeflective/",               // readline (rlm repl on a terminal)
	"github.com/BurntSushi/toml",            // configuration files
	"github.com/rlm-sandbox/rlm",            // the root package: Ask, OpenSession
	"github.com/rlm-sandbox/rlm/repl",       // the parent's Session
	"github.com/rlm-sandbox/rlm/config",     // configuration
	"github.com/rlm-sandbox/rlm/controller", // the root loop
	"github.com/rlm-sandbox/rlm/batch",      // many tasks
	"github.com/rlm-sandbox/rlm/mcpserver",  // rlm mcp
	"github.com/rlm-sandbox/rlm/audit",      // the audit trail
	"github.com/rlm-sandbox/rlm/llm",        // the model client
	"github.com/rlm-sandbox/rlm/llm/",
	"github.com/rlm-sandbox/rlm/internal/guard", // the run's phases; internal/home (RLM_HOME's layout) is data the tools hide
	"github.com/rlm-sandbox/rlm/internal/files",
	"github.com/rlm-sandbox/rlm/internal/record",
	"github.com/rlm-sandbox/rlm/internal/subrun",
	"github.com/rlm-sandbox/rlm/trace", // the run's records
	"github.com/rlm-sandbox/rlm/traceview",
	"github.com/rlm-sandbox/rlm/logfile",
	"github.com/rlm-sandbox/rlm/monitor",
	"github.com/rlm-sandbox/rlm/termsafe",
	"github.com/rlm-sandbox/rlm/evalset", // test kits
	"github.com/rlm-sandbox/rlm/taskset",
	"github.com/rlm-sandbox/rlm/corpus",
}

// TestLinksOnlyWhatRunsConfined lists what the worker's entry point depends on, for Linux and
// for macOS, and fails on any forbidden package. It also logs the packages outside the
// standard library that it links.
func TestLinksOnlyWhatRunsConfined(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		deps := goList(t, goos, "github.com/rlm-sandbox/rlm/cmd/rlm-worker")
		var bad []string
		for _, d := range deps {
			if isForbidden(d) {
				bad = append(bad, d)
			}
		}
		if len(bad) > 0 {
			t.Errorf("GOOS=%s: the worker's entry point links %d forbidden packages (go list -deps ./cmd/rlm-worker); it must link only what runs confined:\n%s", goos, len(bad), strings.Join(bad, "\n"))
		}
		t.Logf("GOOS=%s: %d packages outside the standard library: %s", goos, len(deps), strings.Join(deps, " "))
	}
}

func isForbidden(pkg string) bool {
	for _, f := range forbidden {
		if pkg == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(pkg, f)) {
			return true
		}
	}
	return false
}

// goList returns the packages outside the standard library that pkg depends on, for goos.
func goList(t *testing.T, goos, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
	out, err := cmd.Output()
	if err != nil {
		if _, lookErr := exec.LookPath("go"); lookErr != nil {
			t.Skip("no go command to list the dependencies")
		}
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}
