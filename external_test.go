package rlm_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestExternalModule is the acceptance test of the public API: a module of its own
// (testdata/external, which requires this one through a replace directive) that imports only
// package rlm answers the README demo question. It is built with the local toolchain, the
// module cache and this module's go.sum, and run as a user would run it.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: skipped with -short")
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(repo, "testdata", "external")
	checkImports(t, filepath.Join(src, "main.go"))
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = bytes.Replace(mod, []byte("=> ../.."), []byte("=> "+repo), 1)
	copyFile(t, filepath.Join(dir, "go.mod"), mod)
	copyFile(t, filepath.Join(dir, "main.go"), readFile(t, filepath.Join(src, "main.go")))
	copyFile(t, filepath.Join(dir, "go.sum"), readFile(t, filepath.Join(repo, "go.sum")))
	bin := filepath.Join(dir, "rlmdemo")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	run := exec.Command(bin, "-ctx", filepath.Join(repo, demoLog), "-replay", filepath.Join(repo, demoModel), "-home", home, demoQuestion)
	run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("rlmdemo: %v\n%s", err, stderr.String())
	}
	t.Logf("stderr:\n%s", stderr.String())
	if got := stdout.String(); got != demoAnswer+"\n" {
		t.Errorf("stdout = %q; want %q", got, demoAnswer+"\n")
	}
	if !strings.Contains(stderr.String(), "[agent:rlm] starting (task ") || !strings.Contains(stderr.String(), "3 API calls") {
		t.Errorf("stderr lacks the progress lines or the usage")
	}
	for _, p := range []string{"audit.db", "traces", "logs"} {
		if _, err := os.Stat(filepath.Join(home, p)); err != nil {
			t.Errorf("the run left no %s: %v", p, err)
		}
	}
}

// checkImports fails unless the program's only import from this module is package rlm.
func checkImports(t *testing.T, path string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case p == "github.com/rlm-sandbox/rlm":
			found = true
		case strings.HasPrefix(p, "github.com/rlm-sandbox/rlm/"):
			t.Errorf("%s imports %s: the acceptance test allows the public API (package rlm) only", path, p)
		}
	}
	if !found {
		t.Errorf("%s does not import package rlm", path)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
