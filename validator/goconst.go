package validator

import (
	"go/ast"
	"go/constant"
	"go/token"

	"github.com/rlm-sandbox/rlm/source"
)

// cval is the value of a constant expression as Go computes it (go/constant): a number or a
// boolean, or a string, of which only the length is kept (a string constant doubles in every
// line, const s1 = s0 + s0, so its text is never built).
type cval struct {
	num constant.Value // an Int, Float, Complex or Bool; nil for a string
	str float64        // a string's length in bytes
	typ string         // the basic type of a typed constant ("uint32"), "" when untyped
}

// maxConstBits bounds the integers the evaluator builds: Go refuses untyped constants over 512
// bits, so nothing larger is a valid size, and 1 << 1e9 is never computed.
const maxConstBits = 1024

// constDecl is one constant as declared: the expression it repeats (iota's value in place) and
// its written type.
// pkgConst is a constant of an allowed package (pkgvars.go): its basic type ("" when untyped)
// and its value, "len:N" for a string of N bytes.
type pkgConst struct{ typ, val string }

type constDecl struct {
	expr ast.Expr
	typ  ast.Expr
	iota int64
}

type constMemo struct {
	v       cval
	ok, run bool
}

// constEval evaluates constant expressions: literals, every unary and binary operator, shifts,
// comparisons, min, max, len of constant strings, real, imag, complex, conversions to basic
// types (and to the cell's and the allowed packages' types with a basic underlying type),
// parentheses, iota, the allowed packages' constants, and the constants the cell declares.
// Scopes are ignored on purpose: where several constants share a name, a use of the name takes
// the largest value (strict mode: a name also declared as something else is not a constant).
// Types likewise: a type name counts the most elements any of its declarations holds, and
// converts to each basic type it is declared with, keeping the largest result.
type constEval struct {
	decls   map[string][]*constDecl
	types   map[string][]ast.Expr // the cell's type declarations, every one of each name
	elems   map[string]float64    // elements per value of each type name (goalloc.go); -1 while computed
	strict  bool                  // names with any non-constant declaration do not evaluate
	other   map[string]bool       // names declared as variables, parameters, functions or types
	inConst map[*ast.ValueSpec]bool
	pkg     func(*ast.SelectorExpr) string
	memo    map[*constDecl]*constMemo
	iota    *int64 // the iota of the constant being evaluated
	steps   int    // evaluations so far (each node once per declaration, thanks to memo)
}

// maxConstSteps bounds one evaluation: each declaration is evaluated once (memo), so only a
// pathological source reaches it, and the expression is then left to the runtime layers.
const maxConstSteps = 1 << 20

func newConstEval(u *source.GoUnit, pkg func(*ast.SelectorExpr) string) *constEval {
	e := &constEval{decls: map[string][]*constDecl{}, types: map[string][]ast.Expr{}, elems: map[string]float64{}, other: map[string]bool{},
		inConst: map[*ast.ValueSpec]bool{}, pkg: pkg, memo: map[*constDecl]*constMemo{}}
	visit := func(n ast.Node) bool {
		e.collect(n)
		return true
	}
	ast.Inspect(u.Decls, visit)
	if u.Body != nil {
		ast.Inspect(u.Body, visit)
	}
	return e
}

// collect records constant and type declarations, and the names declared as anything else.
func (e *constEval) collect(n ast.Node) {
	switch n := n.(type) {
	case *ast.GenDecl:
		if n.Tok == token.CONST {
			e.constSpecs(n)
		}
	case *ast.TypeSpec:
		e.types[n.Name.Name] = append(e.types[n.Name.Name], n.Type)
		e.other[n.Name.Name] = true
	case *ast.ValueSpec:
		if e.isVar(n) {
			for _, id := range n.Names {
				e.other[id.Name] = true
			}
		}
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			for _, l := range n.Lhs {
				e.markOther(l)
			}
		}
	case *ast.RangeStmt:
		e.markOther(n.Key)
		e.markOther(n.Value)
	case *ast.Field:
		for _, id := range n.Names {
			e.other[id.Name] = true
		}
	case *ast.FuncDecl:
		e.other[n.Name.Name] = true
	}
}

func (e *constEval) markOther(x ast.Expr) {
	if id, ok := x.(*ast.Ident); ok {
		e.other[id.Name] = true
	}
}

// isVar tells a var spec from a const spec: a GenDecl is visited before its specs, so its
// const specs are known by then.
func (e *constEval) isVar(s *ast.ValueSpec) bool { return !e.inConst[s] }

// constSpecs records a const block: a spec without values repeats the previous spec's
// expressions and type with its own iota.
func (e *constEval) constSpecs(gd *ast.GenDecl) {
	var values []ast.Expr
	var typ ast.Expr
	for i, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		e.inConst[vs] = true
		if len(vs.Values) > 0 {
			values, typ = vs.Values, vs.Type
		}
		for j, name := range vs.Names {
			if j < len(values) {
				e.decls[name.Name] = append(e.decls[name.Name], &constDecl{expr: values[j], typ: typ, iota: int64(i)})
			}
		}
	}
}
