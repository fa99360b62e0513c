package limits_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// notLimits are the declarations outside package limits that are named like a default but
// declare no cap, budget or timeout. Keys are "dir.Name", the directory relative to the module's
// root; "dir.*" stands for every such declaration of the package.
var notLimits = map[string]string{
	"sandbox.DefaultUID":     "the worker's uid and gid (nobody): an identity, not a limit",
	"sandbox.DefaultMinimum": "the confinement layers a run requires: a security policy (a set of layers), not a limit",

	"validator.defaultGoImports":            "the policy's allow-list of packages: what code may name, not a size, count or time",
	"validator.defaultGoDeniedSymbols":      "the policy's deny-list of symbols",
	"validator.defaultGoDeniedPackageNames": "the policy's deny-list of package names",
	"validator.defaultJSDeniedGlobals":      "the policy's deny-list of JS globals",
	"validator.defaultJSDeniedMembers":      "the policy's deny-list of JS members",
	"validator.defaultGoSets":               "the Go lists above, as sets",

	"tools.defaultEngineConfig": "the search engine's configuration, which tests vary: its one field is maxDFAStates, a fixed bound of the regexp engine, not a default",

	"monitor.*": "the generation monitor's calibration: detector thresholds tuned together with the per-tier and per-task tables beside them (ForTier, WithTask) and the detectors' internal constants; nothing configures them and no prompt states them, and splitting the table would let it drift",

	"evalset.DefaultSizes": "the input sizes of the evaluation suite, a test kit: what is generated, not a bound",
}

// defaultName is the name of a declaration that declares a default: "DefaultX", "defaultX".
var defaultName = regexp.MustCompile(`^[dD]efault[A-Z0-9_]`)

// resolvers are the functions that fill in defaults; outside package limits they may read
// constants but write no number of their own.
var resolvers = []string{"withDefaults", "WithDefaults", "Effective", "effective", "withLimits", "Defaults"}

// TestOnlyLimitsDeclaresDefaults fails when a package other than limits declares a default: a
// constant or variable named like one (outside notLimits, whose values are not limits; a string
// value is a name or an address, never a limit), or a number written in a function that fills
// in defaults (0 and 1 aside). Its log lists the packages that declare a default, allowed or not.
func TestOnlyLimitsDeclaresDefaults(t *testing.T) {
	found := scan(t, "..")
	var bad []string
	declaring, allowed := map[string]bool{"limits": true}, map[string]bool{}
	for _, d := range found {
		_, ok := notLimits[d.dir+"."+d.name]
		if _, all := notLimits[d.dir+".*"]; ok || all {
			allowed[d.dir] = true
			continue
		}
		if d.dir == "limits" {
			continue
		}
		declaring[d.dir] = true
		bad = append(bad, d.String())
	}
	for key := range notLimits {
		dir, name, _ := strings.Cut(key, ".")
		if !slices.ContainsFunc(found, func(d decl) bool { return d.dir == dir && (name == "*" || d.name == name) }) {
			t.Errorf("notLimits lists %s, which is not declared any more: remove it", key)
		}
	}
	for _, b := range bad {
		t.Errorf("%s: declare the default in package limits and read it from there", b)
	}
	t.Logf("packages that declare a default: %d: %s", len(declaring), strings.Join(sortedKeys(declaring), ", "))
	t.Logf("packages whose declarations named like a default are not limits (notLimits): %d: %s", len(allowed), strings.Join(sortedKeys(allowed), ", "))
}

// decl is a declaration of a default.
type decl struct {
	dir, name, pos, why string
}

func (d decl) String() string { return d.pos + ": " + d.why + " " + d.name }

// scan finds, in the non-test Go files under root, the constants and variables named like a
// default (with other than a string value) and the numbers written in resolvers.
func scan(t *testing.T, root string) []decl {
	t.Helper()
	var out []decl
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || e.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		if dir == "." {
			dir = "rlm"
		}
		out = append(out, declsOf(fset, dir, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func declsOf(fset *token.FileSet, dir string, f *ast.File) []decl {
	var out []decl
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok != token.CONST && n.Tok != token.VAR {
				return true
			}
			for _, s := range n.Specs {
				vs := s.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !defaultName.MatchString(id.Name) || (i < len(vs.Values) && isString(vs.Values[i])) {
						continue
					}
					out = append(out, decl{dir: dir, name: id.Name, pos: fset.Position(id.Pos()).String(), why: "declares"})
				}
			}
		case *ast.FuncDecl:
			if !slices.Contains(resolvers, n.Name.Name) || n.Body == nil {
				return true
			}
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if lit := number(m); lit != "" {
					out = append(out, decl{dir: dir, name: n.Name.Name, pos: fset.Position(m.Pos()).String(), why: "writes " + lit + " in"})
				}
				return true
			})
			return false
		}
		return true
	})
	return out
}

// isString says whether e is a string literal.
func isString(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING
}

// number is the text of a number written in code (a literal other than 0 and 1, or a unit of
// time), or "".
func number(n ast.Node) string {
	switch n := n.(type) {
	case *ast.BasicLit:
		if n.Kind != token.INT && n.Kind != token.FLOAT {
			return ""
		}
		if v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && (v == 0 || v == 1) {
			return ""
		}
		return n.Value
	case *ast.SelectorExpr:
		if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" && slices.Contains([]string{"Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour"}, n.Sel.Name) {
			return "time." + n.Sel.Name
		}
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
