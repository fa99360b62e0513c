package validator

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/rlm-sandbox/rlm/source"
)

// goChecker walks a parsed Go unit once.
type goChecker struct {
	c *checker
	u *source.GoUnit
	*goSets
	imported map[string]bool // names imported by this source
	extra    map[string]bool // names imported by this source that the policy does not know
	handled  map[*ast.SelectorExpr]bool
	readOK   map[ast.Expr]bool          // host values in a read-only position (gohost.go)
	called   map[*ast.SelectorExpr]bool // functions called directly (gocalled.go)
	labels   map[*ast.ForStmt]string    // the label of a labeled for statement
	ev       *constEval                 // constants, scopes merged (largest value wins)
	strictEv *constEval                 // constants whose names mean nothing else anywhere in the cell
}

func (c *checker) goCheck(u *source.GoUnit) {
	g := &goChecker{
		c: c, u: u, goSets: c.pol.goSets(),
		imported: map[string]bool{}, extra: map[string]bool{}, handled: map[*ast.SelectorExpr]bool{},
		readOK: map[ast.Expr]bool{}, labels: map[*ast.ForStmt]string{}, called: map[*ast.SelectorExpr]bool{},
	}
	g.imports(u.Decls)
	g.ev = newConstEval(u, g.pkgPath)
	strict := *g.ev
	strict.strict, strict.memo = true, map[*constDecl]*constMemo{}
	g.strictEv = &strict
	g.constStrings()
	ast.Inspect(u.Decls, g.visit)
	if u.Body != nil {
		ast.Inspect(u.Body, g.visit)
	}
}

// isPkg reports whether a name refers to a package: allowed, denied, or imported here.
func (g *goChecker) isPkg(name string) bool { return g.pkgNames[name] || g.extra[name] }

func (g *goChecker) off(p token.Pos) int { return g.u.Position(p).Offset }

func (g *goChecker) imports(f *ast.File) {
	for _, spec := range f.Imports {
		off := g.off(spec.Pos())
		raw := spec.Path.Value
		p, err := strconv.Unquote(raw)
		if err == nil {
			g.imported[path.Base(p)], g.extra[path.Base(p)] = true, true
		}
		if spec.Name != nil {
			g.c.report(off, ImportForm, importNameDetail(spec.Name.Name, raw))
		}
		switch {
		case err != nil:
			g.c.report(off, ImportForm, fmt.Sprintf("import path %s is not a plain string", raw))
		case raw[0] == '`' || strings.Contains(raw, `\`):
			g.c.report(off, ImportForm, fmt.Sprintf("import path %s is spelled with escapes or backquotes", raw))
		case p == "C":
			g.c.report(off, ImportForm, `import "C" (cgo)`)
		case strings.HasPrefix(p, "github.com/traefik/yaegi"):
			g.c.report(off, ImportForm, fmt.Sprintf("import of the interpreter's own package %q", p))
		case !canonicalImport(p):
			g.c.report(off, ImportForm, fmt.Sprintf("import path %q is relative or not canonical", p))
		}
		if err == nil && !g.allowed[p] {
			g.c.report(off, ImportDenied, fmt.Sprintf("package %q is not allowed%s", p, deniedHint(p)))
		}
	}
}

func importNameDetail(name, raw string) string {
	switch name {
	case ".":
		return "dot import of " + raw
	case "_":
		return "blank import of " + raw
	}
	return fmt.Sprintf("import of %s under the name %s", raw, name)
}

// canonicalImport reports whether p is a clean, absolute-style import path.
func canonicalImport(p string) bool {
	if p == "" || path.Clean(p) != p || strings.HasPrefix(p, "/") || strings.HasPrefix(p, ".") ||
		strings.HasPrefix(p, "vendor/") || strings.Contains(p, "/vendor/") {
		return false
	}
	for _, r := range p {
		if r <= ' ' || r > '~' || r == '\\' {
			return false
		}
	}
	return true
}

func (g *goChecker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.Ident:
		if len(n.Name) > 1 && n.Name[0] == '_' {
			g.c.report(g.off(n.Pos()), Underscore, fmt.Sprintf("identifier %s", n.Name))
		}
	case *ast.GoStmt:
		g.c.report(g.off(n.Pos()), Goroutine, "go statement")
	case *ast.FuncDecl:
		if n.Recv == nil && n.Name.Name == "init" {
			g.c.report(g.off(n.Pos()), InitFunc, "func init runs before any check of the cell's result")
		}
	case *ast.CallExpr:
		g.markCalled(n)
		g.call(n)
		g.readOnlyArgs(n)
		g.hostCall(n)
	case *ast.BinaryExpr:
		if n.Op == token.EQL || n.Op == token.NEQ {
			g.markRead(n.X)
			g.markRead(n.Y)
		}
	case *ast.CaseClause:
		for _, e := range n.List {
			g.markRead(e)
		}
		g.gotoLoops(n.Body)
	case *ast.SelectorExpr:
		g.selector(n)
	case *ast.LabeledStmt:
		if f, ok := n.Stmt.(*ast.ForStmt); ok {
			g.labels[f] = n.Label.Name
		}
	case *ast.BlockStmt:
		g.gotoLoops(n.List)
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE {
			for _, lhs := range n.Lhs {
				g.packageVar(lhs, "assignment to")
			}
		}
	case *ast.IncDecStmt:
		g.packageVar(n.X, "assignment to")
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN {
			g.packageVar(n.Key, "assignment to")
			g.packageVar(n.Value, "assignment to")
		}
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			g.packageVar(n.X, "address of")
		}
	case *ast.ArrayType:
		g.arrayType(n)
	case *ast.StructType:
		g.structType(n)
	case *ast.CompositeLit:
		g.literalIndexes(n)
	case *ast.ForStmt:
		if g.isTrue(n.Cond) && !hasGoExit(n.Body, g.labels[n]) {
			g.c.report(g.off(n.Pos()), Hang, "this for loop has no condition and no break, return, goto or panic")
		}
	case *ast.SelectStmt:
		if len(n.Body.List) == 0 {
			g.c.report(g.off(n.Pos()), Hang, "select {} blocks forever")
		}
	}
	return true
}

// call checks denied functions called directly, and allocation sizes.
func (g *goChecker) call(n *ast.CallExpr) {
	switch fun := ast.Unparen(n.Fun).(type) {
	case *ast.SelectorExpr:
		if sym, ok := g.deniedSymbol(fun); ok {
			g.handled[fun] = true
			g.c.report(g.off(fun.Pos()), DeniedCall, fmt.Sprintf("call of %s", sym))
		}
	}
	g.allocCall(n)
}

// selector checks references to denied symbols and denied packages that are not calls.
func (g *goChecker) selector(n *ast.SelectorExpr) {
	if g.handled[n] {
		return
	}
	g.checkedUse(n)
	if sym, ok := g.deniedSymbol(n); ok {
		g.c.report(g.off(n.Pos()), DeniedSymbol, fmt.Sprintf("use of %s", sym))
		return
	}
	if v := g.packageVarName(n); v != "" && !g.readOK[n] {
		g.c.report(g.off(n.Pos()), PackageVar, fmt.Sprintf("use of package variable %s as a value (a copy would alias host state)", v))
		return
	}
	if x, ok := n.X.(*ast.Ident); ok && g.banned[x.Name] && !g.imported[x.Name] {
		g.c.report(g.off(n.Pos()), PackageDenied, fmt.Sprintf("reference to %s.%s: package %s is not allowed%s", x.Name, n.Sel.Name, x.Name, deniedHint(x.Name)))
	}
}

// qualified returns "pkg.Sel" when n's operand names a package, else "".
func (g *goChecker) qualified(n *ast.SelectorExpr) string {
	if x, ok := n.X.(*ast.Ident); ok && g.isPkg(x.Name) {
		return x.Name + "." + n.Sel.Name
	}
	return ""
}

// pkgPath returns "path.Sel" when n's operand names an allowed package, else "".
func (g *goChecker) pkgPath(n *ast.SelectorExpr) string {
	if x, ok := n.X.(*ast.Ident); ok {
		if p, ok := g.paths[x.Name]; ok {
			return p + "." + n.Sel.Name
		}
	}
	return ""
}

func (g *goChecker) deniedSymbol(n *ast.SelectorExpr) (string, bool) {
	sym, ok := g.denied[g.qualified(n)]
	return sym, ok
}

// packageVar reports e when it is, or reaches through fields, indexes or dereferences, a variable
// of an imported package.
func (g *goChecker) packageVar(e ast.Expr, what string) {
	for e != nil {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.SelectorExpr:
			if name := g.qualified(x); name != "" {
				g.c.report(g.off(x.Pos()), PackageVar, fmt.Sprintf("%s package variable %s", what, name))
				g.handled[x] = true
				return
			}
			e = x.X
		default:
			return
		}
	}
}
