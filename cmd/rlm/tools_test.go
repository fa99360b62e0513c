package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/source"
)

// TestFrontDoorsGetConfiguredTools: every command that runs model code gets the tools and the
// converters of the user's rlm.toml: rlm run and run --script (runFlags.resolve), batch, its
// workers and eval (baseRunOptions), repl (sessionFlags.options) and mcp (mcpFlags.options).
func TestFrontDoorsGetConfiguredTools(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RLM_HOME", home)
	t.Chdir(t.TempDir()) // no project rlm.toml
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[tools.word_count]\ndescription = \"the words of a file\"\nexec = [\"wc\", \"-w\", \"--\", \"{path}\"]\nparams = { path = \"path\" }\n[convert]\npdf = [\"pdftotext\", \"{path}\", \"-\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	names := func(ts []rlm.Tool) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.Name)
		}
		return out
	}
	want := []string{"word_count"}
	check := func(door string, ts []rlm.Tool, err error) {
		t.Helper()
		if err != nil || !slices.Equal(names(ts), want) {
			t.Errorf("%s: tools %q, %v; want %q", door, names(ts), err, want)
		}
	}
	checkConv := func(door string, c map[string]rlm.Converter) {
		t.Helper()
		if !slices.Equal(c["pdf"].Exec, []string{"pdftotext", "{path}", "-"}) || len(c) != 1 {
			t.Errorf("%s: converters %+v; want the pdf entry", door, c)
		}
	}

	var rf runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	rf.register(fs) // rlm run's defaults
	rf.ask.register(fs)
	err := rf.check(io.Discard)
	if err == nil {
		var o rlm.Options
		o, err = rf.resolve(false)
		check("rlm run", o.Tools, err)
		checkConv("rlm run", o.Convert)
	}
	if err != nil {
		t.Fatal(err)
	}
	o, err := baseRunOptions(io.Discard, nil, false, true, false)
	check("rlm batch, eval", o.Tools, err)
	checkConv("rlm batch, eval", o.Convert)

	var sf sessionFlags
	sf.out = t.TempDir()
	if err := sf.check(io.Discard); err != nil {
		t.Fatal(err)
	}
	so, err := sf.options(source.JS)
	check("rlm repl", so.Tools, err)
	checkConv("rlm repl", so.Convert)

	mo, err := mcpFlags{roots: []string{t.TempDir()}, maxSessions: 1, idleTimeout: time.Minute}.options(io.Discard)
	check("rlm mcp", mo.Tools, err)
	checkConv("rlm mcp", mo.Convert)
}
