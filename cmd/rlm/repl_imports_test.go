package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReplGoesThroughTheLibrary: `rlm repl` opens its sessions through rlm.OpenSession, like the
// MCP server and library users, so none of its files (repl*.go) imports package repl (nor a
// package below it): the shell sees the library's Session and ExecResult only.
func TestReplGoesThroughTheLibrary(t *testing.T) {
	const forbidden = "github.com/rlm-sandbox/rlm/repl"
	names, err := filepath.Glob("repl*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if path == forbidden || strings.HasPrefix(path, forbidden+"/") {
				t.Errorf("%s imports %s: the REPL must go through rlm.OpenSession", fset.Position(imp.Pos()), path)
			}
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d files (%v); want repl.go, repl_meta.go and repl_tty.go at least", checked, names)
	}
}
