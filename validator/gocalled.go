package validator

import (
	"fmt"
	"go/ast"
)

// The functions and methods whose calls the checks read where they stand (the counts of
// sizeFuncs and sizeMethods, the results of hostCalls and hostMethods) may only be called
// directly. A function or method value, or a method expression, carries the call past the
// check: r := strings.Repeat; r("ab", 1<<36), g := b.Grow, f := t.Location, and
// time.Time.Location(t), whose receiver is its first argument. Any use of one that is not a
// direct call is rejected, which closes the aliasing without following values around.

// checkedFunc names the check a package function ("path.Name") is under, or "".
func checkedFunc(name string) Rule {
	if _, ok := sizeFuncs[name]; ok {
		return AllocSize
	}
	if _, ok := hostCalls[name]; ok {
		return PackageVar
	}
	return ""
}

// checkedMethod names the check a method, known by name only, is under, or "".
func checkedMethod(name string) Rule {
	if _, ok := sizeMethods[name]; ok {
		return AllocSize
	}
	if _, ok := hostMethods[name]; ok {
		return PackageVar
	}
	return ""
}

// callee is the function a call calls directly: f in f(x), (f)(x) and f[T](x).
func callee(n *ast.CallExpr) ast.Expr {
	fun := ast.Unparen(n.Fun)
	if x, _ := typeArgs(fun); x != fun {
		return ast.Unparen(x)
	}
	return fun
}

// markCalled records the function a call calls directly.
func (g *goChecker) markCalled(n *ast.CallExpr) {
	if sel, ok := callee(n).(*ast.SelectorExpr); ok {
		g.called[sel] = true
	}
}

// checkedUse reports a checked function or method used other than by a direct call.
func (g *goChecker) checkedUse(n *ast.SelectorExpr) {
	if name := g.pkgPath(n); name != "" {
		if r := checkedFunc(name); r != "" && !g.called[n] {
			q := g.qualified(n)
			g.c.report(g.off(n.Pos()), r, fmt.Sprintf("%s used as a value: it is checked only where it is called; call %s(...) directly", q, q))
		}
		return
	}
	r := checkedMethod(n.Sel.Name)
	switch {
	case r == "" || g.qualified(n) != "":
	case g.typeExpr(n.X):
		g.c.report(g.off(n.Pos()), r, fmt.Sprintf("method expression of %s: it is checked only where it is called on a value; call x.%s(...) directly", n.Sel.Name, n.Sel.Name))
	case !g.called[n]:
		g.c.report(g.off(n.Pos()), r, fmt.Sprintf(".%s used as a value: it is checked only where it is called; call x.%s(...) directly (a field of that name: rename it)", n.Sel.Name, n.Sel.Name))
	}
}

// typeExpr reports whether x may denote a type, which makes x.M a method expression: a type
// literal, a pointer to a type, a name the cell declares as a type, an instantiated generic type,
// or a package's exported name (no package variable has one of the checked methods).
func (g *goChecker) typeExpr(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.StarExpr:
		return g.typeExpr(x.X)
	case *ast.Ident:
		return g.ev.types[x.Name] != nil || isBasicType(x.Name)
	case *ast.SelectorExpr:
		return g.qualified(x) != ""
	case *ast.IndexExpr, *ast.IndexListExpr:
		t, _ := typeArgs(x)
		return g.typeExpr(t)
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
		return true
	}
	return false
}
