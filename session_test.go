package rlm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

// TestSession: cells keep state; results carry output, FINAL, errors with their kind and
// position, variables and the truncation mark; a runaway cell times out and the session lives on.
func TestSession(t *testing.T) {
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "go", Files: []string{demoLog}, Home: t.TempDir(),
		CellTimeout: 2 * time.Second, Limits: engine.Limits{OutputChars: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.Isolation().Verdict; v == "" || v == "none" {
		t.Errorf("isolation verdict %q", v)
	}
	tests := []struct {
		code      string
		output    string
		final     string
		kind      fault.Kind
		pos       string
		truncated bool
	}{
		{code: `n := count(context, "ERROR svc=payment")` + "\nfmt.Println(n)", output: "13\n"},
		{code: `FINAL(n + 1)`, final: "14"},
		{code: "xs := []int{1}\nfmt.Println(xs[3])", kind: fault.Code, pos: "cell.go:2:"}, // in the message: Go's engine reports no Pos
		{code: `import "os"`, kind: fault.Rejected},
		{code: `fmt.Print(strings.Repeat("ab", 2000))`, truncated: true},
		{code: "t0 := time.Now()\nfor time.Since(t0) < time.Minute {\n}", kind: fault.Timeout},
		{code: `fmt.Println(n * 2)`, output: "26\n"}, // the state outlived the timeout
	}
	for _, tt := range tests {
		r := s.Exec(ctx, tt.code)
		if tt.kind == "" && r.Error != nil {
			t.Errorf("%q: %+v", tt.code, r.Error)
			continue
		}
		if tt.kind != "" && (r.Error == nil || r.Error.Kind != tt.kind || !strings.HasPrefix(r.Error.Message, tt.pos)) {
			t.Errorf("%q: error %+v; want kind %s at %s", tt.code, r.Error, tt.kind, tt.pos)
		}
		if tt.output != "" && r.Output != tt.output {
			t.Errorf("%q: output %q; want %q", tt.code, r.Output, tt.output)
		}
		if tt.final != "" && (r.Final == nil || *r.Final != tt.final) {
			t.Errorf("%q: final %v; want %q", tt.code, r.Final, tt.final)
		}
		if r.Truncated != tt.truncated || tt.truncated && !strings.Contains(r.Output, "characters in total, the first 1000 shown") {
			t.Errorf("%q: truncated %v, output %d chars; want %v, the true length stated", tt.code, r.Truncated, len(r.Output), tt.truncated)
		}
	}
	r := s.Exec(ctx, `fmt.Println(len(xs))`)
	if len(r.Vars) < 2 || r.Vars[0].Name == "" {
		t.Errorf("vars = %+v", r.Vars)
	}
}

// TestSessionCancel: cancelling a cell's context stops it; the session goes on.
func TestSessionCancel(t *testing.T) {
	s, err := rlm.OpenSession(context.Background(), rlm.SessionOptions{Lang: "js", Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Exec(ctx, `const t0 = Date.now(); while (Date.now() - t0 < 60000) {}`)
	if r.Error == nil || r.Error.Kind != fault.Timeout || time.Since(start) > 10*time.Second {
		t.Fatalf("got %+v after %v; want the cell stopped with a timeout", r.Error, time.Since(start))
	}
	if r := s.Exec(context.Background(), `print(6 * 7)`); r.Output != "42\n" {
		t.Errorf("after the cancel: %+v", r)
	}
	if r := s.Exec(context.Background(), "let o = null\no.x"); r.Error == nil || r.Error.Kind != fault.Code || r.Error.Pos != "cell.js:2:3" {
		t.Errorf("a JS exception: %+v; want its position", r.Error)
	}
}

// TestSessionWorkspace: the default workspace goes with Close when nothing was written to it,
// and stays, named, when something was; a workspace the caller names is never removed.
func TestSessionWorkspace(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Home: home})
	if err != nil {
		t.Fatal(err)
	}
	empty := s.Workspace()
	if filepath.Dir(empty) != filepath.Join(home, "work") {
		t.Fatalf("workspace %s is not under %s/work", empty, home)
	}
	s.Close()
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) || s.Workspace() != "" {
		t.Errorf("the empty default workspace is still there (%v), named %q", err, s.Workspace())
	}
	s, err = rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Exec(ctx, `write_file("notes.txt", "hello")`); r.Error != nil {
		t.Fatal(r.Error)
	}
	s.Close()
	if b, err := os.ReadFile(filepath.Join(s.Workspace(), "notes.txt")); err != nil || string(b) != "hello" {
		t.Errorf("the written workspace: %q, %v", b, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	mine := t.TempDir()
	if err := os.Chmod(mine, 0o777); err != nil { // the worker's uid must get in
		t.Fatal(err)
	}
	s, err = rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Workspace: mine})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(mine); err != nil || s.Workspace() != mine {
		t.Errorf("the caller's workspace: %v, named %q", err, s.Workspace())
	}
}

func TestSessionOptionErrors(t *testing.T) {
	tests := []struct {
		opts   rlm.SessionOptions
		option string
	}{
		{rlm.SessionOptions{Lang: "python"}, "Lang"},
		{rlm.SessionOptions{Files: []string{"no-such.txt"}}, "Files"},
		{rlm.SessionOptions{Workspace: "no-such-dir"}, "Workspace"},
	}
	for _, tt := range tests {
		_, err := rlm.OpenSession(context.Background(), tt.opts)
		var oe *rlm.OptionError
		if !errors.As(err, &oe) || oe.Option != tt.option || !errors.Is(err, fault.Schema) {
			t.Errorf("%+v: got %v; want an OptionError for %s", tt.opts, err, tt.option)
		}
	}
}

// TestSessionFrontDoor: what `rlm repl` needs of a session beyond Exec. ExecFile names the file
// in a cell's error (message and position) and keeps the session's state; Vars lists the
// variables between cells; Limits are the caps in effect, the options' over the defaults; Warn
// hears that the index cache under Home cannot be written, and the session runs all the same.
func TestSessionFrontDoor(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "index"), nil, 0o600); err != nil { // no directory can be made there
		t.Fatal(err)
	}
	var warnings []error
	ctx := context.Background()
	// demoLog has not changed for a while (limits.IndexSettle): its index would be cached on disk.
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "go", Files: []string{demoLog}, Home: home,
		Limits: engine.Limits{PeekChars: 777}, Warn: func(err error) { warnings = append(warnings, err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "index cache") {
		t.Errorf("warnings %v; want one about the index cache", warnings)
	}
	if lim := s.Limits(); lim.PeekChars != 777 || lim.OutputChars != limits.OutputChars {
		t.Errorf("Limits() = %+v; want PeekChars 777 and the default OutputChars", lim)
	}
	if v := s.Vars(); len(v) != 0 {
		t.Errorf("Vars() before any cell = %v", v)
	}
	r := s.ExecFile(ctx, "solve.go", "n := count(context, \"ERROR svc=payment\")\nxs := []int{n}\nfmt.Println(xs[3])")
	if r.Error == nil || r.Error.Kind != fault.Code || !strings.HasPrefix(r.Error.Message, "solve.go:3:") || strings.Contains(r.Error.Message, "cell.go") {
		t.Errorf("ExecFile's error %+v; want a code error at solve.go:3", r.Error)
	}
	r = s.ExecFile(ctx, "more.go", "fmt.Println(n + 1)")
	if r.Error != nil || r.Output != "14\n" {
		t.Errorf("a second file: %+v; want the first one's variables", r)
	}
	var labels []string
	for _, v := range s.Vars() {
		labels = append(labels, v.Label())
	}
	if got := strings.Join(labels, ", "); got != "n int, xs []int(1)" {
		t.Errorf("Vars() = %s; want n int, xs []int(1)", got)
	}
}
