package home

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// names are the names this package places under RLM_HOME (and ProjectFile).
var names = map[string]bool{
	ProjectFile: true, configFile: true, trustFile: true, auditFile: true, emergencyFile: true,
	historyFile: true, logsDir: true, tracesDir: true, indexDir: true, runDir: true, workDir: true,
	natsDir: true, cacheDir: true, evalDir: true,
}

// wholeNames may not appear as a string literal anywhere outside this package: a file name
// that only RLM_HOME's layout (or the project file) uses.
var wholeNames = map[string]bool{ProjectFile: true, configFile: true, trustFile: true, auditFile: true, emergencyFile: true}

// TestLayoutSpelledOnce: no production file outside this package spells a path under
// RLM_HOME: no filepath.Join with one of the layout's names as an element, and none of its
// file names as a literal. A package that needs such a path asks this one.
func TestLayoutSpelledOnce(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == filepath.Join("internal", "home") || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		found = append(found, spelled(t, p, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: spell it through package home", f)
	}
}

// spelled lists the places in one file that spell a path of the layout.
func spelled(t *testing.T, path, rel string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Join" && isIdent(sel.X, "filepath") {
				for _, a := range n.Args[1:] {
					if s, ok := literal(a); ok && names[s] {
						out = append(out, rel+":"+strconv.Itoa(fset.Position(a.Pos()).Line)+": filepath.Join(..., "+strconv.Quote(s)+")")
					}
				}
			}
		case *ast.BasicLit:
			if s, ok := literal(n); ok && wholeNames[s] {
				out = append(out, rel+":"+strconv.Itoa(fset.Position(n.Pos()).Line)+": "+strconv.Quote(s))
			}
		}
		return true
	})
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func literal(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
