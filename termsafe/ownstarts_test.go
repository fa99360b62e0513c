package termsafe_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/termsafe"
)

// stderrNames are the writers rlm's code writes its messages on stderr through.
var stderrNames = map[string]bool{"stderr": true, "errw": true, "os.Stderr": true, "sh.err": true}

// notTerminal are the files whose stderr is not rlm's: a worker's, which its parent reads.
var notTerminal = map[string]bool{"../sandbox/degraded.go": true, "../cmd/rlm-worker/main.go": true}

// TestOwnStartsCoverStderr reads rlm's code (the module's Go files but tests, scripts and test
// data) for the lines it writes on stderr (fmt.Fprint* to a writer named as stderr) and for the
// tagged lines it writes anywhere (a format that starts with "[" and a lower-case letter): each
// starts with one of termsafe.OwnStarts, so a line of a cell's output cannot pass for it. A
// line that rlm adds without adding its start to OwnStarts fails here.
func TestOwnStartsCoverStderr(t *testing.T) {
	seen := 0
	for _, w := range writes(t, "..") {
		if !w.stderr && !tagged(w.text) || notTerminal[w.file] {
			continue
		}
		seen++
		own := false
		for _, o := range termsafe.OwnStarts {
			own = own || strings.HasPrefix(w.text, o)
		}
		if !own {
			t.Errorf("%s: %q starts a line on stderr that is none of termsafe.OwnStarts: start it with one, or add its start there", w.pos, w.text)
		}
		if got := termsafe.String(w.text); got == w.text && own {
			t.Errorf("%s: a cell's line %q reads like rlm's, and String leaves it as it is", w.pos, w.text)
		}
	}
	if seen < 10 {
		t.Fatalf("found %d lines written on stderr; the scan no longer sees rlm's code", seen)
	}
}

func tagged(s string) bool {
	return len(s) > 1 && s[0] == '[' && s[1] >= 'a' && s[1] <= 'z'
}

// write is a literal that a fmt.Fprint* call in rlm's code starts a line with.
type write struct {
	pos    string
	file   string
	text   string // up to the first verb or line end
	stderr bool   // the writer is one of stderrNames
}

func writes(t *testing.T, root string) []write {
	var found []write
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "scripts" || d.Name() == "corpus") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if w, ok := fprint(n); ok {
				w.pos, w.file = fset.Position(n.Pos()).String(), path
				found = append(found, w)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// fprint reads a call fmt.Fprint*(w, "literal…", …).
func fprint(n ast.Node) (write, bool) {
	c, ok := n.(*ast.CallExpr)
	if !ok || len(c.Args) < 2 {
		return write{}, false
	}
	if fn := types.ExprString(c.Fun); fn != "fmt.Fprintf" && fn != "fmt.Fprintln" && fn != "fmt.Fprint" {
		return write{}, false
	}
	lit, ok := c.Args[1].(*ast.BasicLit)
	if b, isBin := c.Args[1].(*ast.BinaryExpr); isBin { // "[worker] %s "+format
		lit, ok = b.X.(*ast.BasicLit)
	}
	if !ok || lit.Kind != token.STRING {
		return write{}, false
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || s == "" {
		return write{}, false
	}
	if i := strings.IndexAny(s, "%\n"); i >= 0 {
		s = s[:i]
	}
	return write{text: s, stderr: stderrNames[types.ExprString(c.Args[0])]}, s != ""
}
