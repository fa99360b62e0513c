package desugar

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"github.com/rlm-sandbox/rlm/engine/golang/runepred"
)

// A func literal handed to a compiled function of strings or bytes as a func(rune) bool
// (FieldsFunc, IndexFunc, TrimFunc, …) is called back once per character, each call a reflect
// call into the interpreter: splitting 2 MB of text into words took 2 s where compiled Go takes
// 20 ms. When the literal only computes a predicate of its parameter that runepred can say
// (comparisons with constants, the unicode classes, strings.ContainsRune of a constant, !, &&,
// ||), it becomes _runePred("…"), a prelude helper that returns the native predicate: the
// same answer for every rune, without the interpreter.

// runePredPackages are the packages whose functions are compiled and take func(rune) bool.
var runePredPackages = map[string]bool{"strings": true, "bytes": true}

// runePredArgs replaces the arguments of a call of a compiled strings or bytes function that
// are func literals runepred can say.
func (d *Pass) runePredArgs(x *ast.CallExpr, obj types.Object) {
	if d.tc == nil || obj == nil || !runePredPackages[pkgPath(obj)] || d.preludeObj("_runePred") == nil {
		return
	}
	for i, a := range x.Args {
		lit, ok := a.(*ast.FuncLit)
		if !ok {
			continue
		}
		if n := d.runePred(lit); n != nil {
			pos := lit.Pos()
			x.Args[i] = &ast.CallExpr{Fun: ident("_runePred", pos), Lparen: pos, Rparen: pos,
				Args: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(n.String())}}}
		}
	}
}

// runePred is the predicate lit computes, or nil when runepred cannot say it.
func (d *Pass) runePred(lit *ast.FuncLit) *runepred.Node {
	sig, ok := d.typeOf(lit).(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 1 || len(lit.Body.List) != 1 {
		return nil
	}
	if !isBasic(sig.Params().At(0).Type(), types.Int32) || !isBasic(sig.Results().At(0).Type(), types.Bool) {
		return nil
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	t := &predTranslator{d: d, param: sig.Params().At(0)}
	return t.pred(ret.Results[0])
}

func isBasic(t types.Type, k types.BasicKind) bool {
	b, ok := t.(*types.Basic) // rune, int32 or bool themselves, not a named type
	return ok && b.Kind() == k
}

type predTranslator struct {
	d     *Pass
	param types.Object
}

var predOps = map[token.Token]string{
	token.EQL: "eq", token.NEQ: "ne", token.LSS: "lt", token.LEQ: "le", token.GTR: "gt", token.GEQ: "ge",
}

func (t *predTranslator) pred(e ast.Expr) *runepred.Node {
	if tv, ok := t.d.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		if constant.BoolVal(tv.Value) {
			return &runepred.Node{Op: "true"}
		}
		return &runepred.Node{Op: "false"}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return t.node("not", x.X)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LOR:
			return t.node("or", x.X, x.Y)
		case token.LAND:
			return t.node("and", x.X, x.Y)
		}
		if op, ok := predOps[x.Op]; ok {
			a, b := t.val(x.X), t.val(x.Y)
			if a == nil || b == nil {
				return nil
			}
			return &runepred.Node{Op: op, Args: []*runepred.Node{a, b}}
		}
	case *ast.CallExpr:
		return t.call(x)
	}
	return nil
}

// node is a node of op over the predicates es, nil if one of them is not one.
func (t *predTranslator) node(op string, es ...ast.Expr) *runepred.Node {
	n := &runepred.Node{Op: op}
	for _, e := range es {
		a := t.pred(e)
		if a == nil {
			return nil
		}
		n.Args = append(n.Args, a)
	}
	return n
}

// call translates unicode.IsX(v) and strings.ContainsRune("…", v).
func (t *predTranslator) call(x *ast.CallExpr) *runepred.Node {
	fn, ok := t.d.callee(x.Fun).(*types.Func)
	if !ok || x.Ellipsis.IsValid() {
		return nil
	}
	name := pkgPath(fn) + "." + fn.Name()
	switch {
	case runepred.Classes[name] != nil && len(x.Args) == 1:
		if v := t.val(x.Args[0]); v != nil {
			return &runepred.Node{Op: name, Args: []*runepred.Node{v}}
		}
	case name == "strings.ContainsRune" && len(x.Args) == 2:
		tv := t.d.info.Types[x.Args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return nil
		}
		if v := t.val(x.Args[1]); v != nil {
			return &runepred.Node{Op: "contains", Text: constant.StringVal(tv.Value), Args: []*runepred.Node{v}}
		}
	}
	return nil
}

// val translates the parameter or an integer constant.
func (t *predTranslator) val(e ast.Expr) *runepred.Node {
	if tv, ok := t.d.info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() != constant.Int {
			return nil
		}
		v, exact := constant.Int64Val(tv.Value)
		if !exact {
			return nil
		}
		return &runepred.Node{Op: "int", Int: v}
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && t.d.info.Uses[id] == t.param {
		return &runepred.Node{Op: "r"}
	}
	return nil
}
