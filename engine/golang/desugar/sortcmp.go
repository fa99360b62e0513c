package desugar

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"github.com/rlm-sandbox/rlm/engine/golang/sortspec"
)

// A comparator literal handed to sort.Slice is called through reflect for every comparison
// (100,000 rows: 2.3 s), and one handed to the interpreted slices.SortFunc costs more (16 s).
// When the statement sorts a slice variable S and the literal only compares keys of the two
// elements (their fields, lengths, values in a map variable, the elements themselves) with
// comparison operators, &&, ||, !, if/return, cmp.Compare, strings.Compare, cmp.Or and - on
// ints, the statement
//
//	sort.Slice(S, func(i, j int) bool { … })
//
// becomes
//
//	if !_sortBy(S, "(sort less (keys …) …)", M…) { sort.Slice(S, func(i, j int) bool { … }) }
//
// where the spec (package sortspec) says the same comparison: the host reads each key once and
// sorts with the algorithm the call runs, so the order is the one the literal gives. When the
// host cannot read a key as the spec says, _sortBy changes nothing and the call runs as written.

// sortModes are the sorting calls, by function, and the spec mode of each: sort.Slice and
// slices.SortFunc sort as sort.Slice does, the stable ones as sort.SliceStable (packages.go).
var sortModes = map[string]string{
	"sort.Slice": "less", "sort.SliceStable": "less-stable",
	"slices.SortFunc": "cmp", "slices.SortStableFunc": "cmp-stable",
}

// sortStmt is the statement that sorts natively in front of s, or nil.
func (d *Pass) sortStmt(s *ast.ExprStmt) *ast.IfStmt {
	call, ok := s.X.(*ast.CallExpr)
	if !ok || d.tc == nil || len(call.Args) != 2 || call.Ellipsis.IsValid() || d.preludeObj("_sortBy") == nil {
		return nil
	}
	fn, ok := d.callee(call.Fun).(*types.Func)
	if !ok {
		return nil
	}
	mode := sortModes[pkgPath(fn)+"."+fn.Name()]
	slice, ok := call.Args[0].(*ast.Ident)
	lit, ok2 := call.Args[1].(*ast.FuncLit)
	if mode == "" || !ok || !ok2 {
		return nil
	}
	sv, ok := d.info.Uses[slice].(*types.Var)
	sig, ok2 := d.typeOf(lit).(*types.Signature)
	if !ok || !ok2 || sig.Params().Len() != 2 {
		return nil
	}
	if _, ok := sv.Type().Underlying().(*types.Slice); !ok {
		return nil
	}
	t := &sortTranslator{d: d, slice: sv, lit: lit, spec: &sortspec.Spec{Mode: mode},
		a: sig.Params().At(0), b: sig.Params().At(1), keyIndex: map[string]int{}}
	t.spec.Expr = t.body(lit.Body.List, mode == "less" || mode == "less-stable")
	if t.spec.Expr == nil {
		return nil
	}
	pos := call.Pos()
	args := []ast.Expr{ident(slice.Name, slice.Pos()), &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(t.spec.String())}}
	for _, m := range t.maps {
		args = append(args, ident(m.Name(), pos))
	}
	cond := &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: &ast.CallExpr{Fun: ident("_sortBy", pos), Lparen: pos, Args: args, Rparen: pos}}
	return &ast.IfStmt{If: pos, Cond: cond, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{s}, Rbrace: s.End()}}
}

type sortTranslator struct {
	d        *Pass
	slice    *types.Var
	lit      *ast.FuncLit
	a, b     *types.Var // the literal's parameters: i and j, or the two elements
	spec     *sortspec.Spec
	keyIndex map[string]int // a key's path text → its index
	maps     []*types.Var
}

// body translates the literal's statements: any number of `if C { return X }`, then
// `return X` (or an if with an else that returns).
func (t *sortTranslator) body(list []ast.Stmt, isBool bool) *sortspec.Node {
	if len(list) == 0 {
		return nil
	}
	switch s := list[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) != 1 || len(list) != 1 {
			return nil
		}
		return t.value(s.Results[0], isBool)
	case *ast.IfStmt:
		if s.Init != nil {
			return nil
		}
		c, then := t.boolean(s.Cond), t.body(s.Body.List, isBool)
		var els *sortspec.Node
		switch e := s.Else.(type) {
		case nil:
			els = t.body(list[1:], isBool)
		case *ast.BlockStmt:
			if len(list) == 1 {
				els = t.body(e.List, isBool)
			}
		}
		if c == nil || then == nil || els == nil {
			return nil
		}
		return &sortspec.Node{Op: "if", Args: []*sortspec.Node{c, then, els}}
	}
	return nil
}

func (t *sortTranslator) value(e ast.Expr, isBool bool) *sortspec.Node {
	if isBool {
		return t.boolean(e)
	}
	return t.integer(e)
}

var sortCompares = map[token.Token]string{
	token.EQL: "eq", token.NEQ: "ne", token.LSS: "lt", token.LEQ: "le", token.GTR: "gt", token.GEQ: "ge",
}

// boolean translates a bool expression of keys.
func (t *sortTranslator) boolean(e ast.Expr) *sortspec.Node {
	if tv, ok := t.d.info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() != constant.Bool {
			return nil
		}
		return &sortspec.Node{Op: strconv.FormatBool(constant.BoolVal(tv.Value))}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return t.nodeOf("not", t.boolean(x.X))
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND:
			return t.nodeOf("and", t.boolean(x.X), t.boolean(x.Y))
		case token.LOR:
			return t.nodeOf("or", t.boolean(x.X), t.boolean(x.Y))
		}
		if op, ok := sortCompares[x.Op]; ok {
			return t.nodeOf(op, t.operand(x.X), t.operand(x.Y))
		}
	}
	return nil
}

// integer translates an int expression of keys.
func (t *sortTranslator) integer(e ast.Expr) *sortspec.Node {
	if tv, ok := t.d.info.Types[e]; ok && tv.Value != nil {
		v, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if !exact || v < -1<<20 || v > 1<<20 {
			return nil
		}
		return &sortspec.Node{Op: "int", N: int(v)}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.SUB {
			return t.nodeOf("neg", t.integer(x.X))
		}
	case *ast.BinaryExpr:
		if x.Op == token.SUB && isBasic(t.d.typeOf(x), types.Int) {
			return t.nodeOf("sub", t.operand(x.X), t.operand(x.Y))
		}
	case *ast.CallExpr:
		fn, ok := t.d.callee(x.Fun).(*types.Func)
		if !ok || x.Ellipsis.IsValid() {
			return nil
		}
		switch pkgPath(fn) + "." + fn.Name() {
		case "cmp.Compare", "strings.Compare":
			if len(x.Args) == 2 {
				return t.nodeOf("compare", t.operand(x.Args[0]), t.operand(x.Args[1]))
			}
		case "cmp.Or":
			var args []*sortspec.Node
			for _, a := range x.Args {
				args = append(args, t.integer(a))
			}
			return t.nodeOf("first", args...)
		}
	}
	return nil
}

// nodeOf is a node of op over args, nil if one of them is nil.
func (t *sortTranslator) nodeOf(op string, args ...*sortspec.Node) *sortspec.Node {
	for _, a := range args {
		if a == nil {
			return nil
		}
	}
	return &sortspec.Node{Op: op, Args: args}
}

// operand translates a key of one of the two elements: iN or jN.
func (t *sortTranslator) operand(e ast.Expr) *sortspec.Node {
	kind := keyKind(t.d.typeOf(e))
	if kind == "" {
		return nil
	}
	path, side := t.path(e)
	if path == nil {
		return nil
	}
	text := kind + " " + path.String()
	k, ok := t.keyIndex[text]
	if !ok {
		k = len(t.spec.Keys)
		t.keyIndex[text] = k
		t.spec.Keys = append(t.spec.Keys, sortspec.Key{Kind: kind, Path: path})
	}
	return &sortspec.Node{Op: "opd", Side: side, Key: k}
}

// keyKind is the spec kind of a key of type typ, "" for a type keys cannot have.
func keyKind(typ types.Type) string {
	b, ok := typ.Underlying().(*types.Basic)
	switch {
	case !ok:
		return ""
	case b.Info()&types.IsInteger != 0 && b.Info()&types.IsUnsigned != 0:
		return "uint"
	case b.Info()&types.IsInteger != 0:
		return "int"
	case b.Info()&types.IsFloat != 0:
		return "float"
	case b.Info()&types.IsString != 0:
		return "string"
	}
	return ""
}

// path translates the path of a key from an element, and which element: 'i' or 'j'.
func (t *sortTranslator) path(e ast.Expr) (*sortspec.Node, byte) {
	if side := t.element(e); side != 0 {
		return &sortspec.Node{Op: "x"}, side
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		sel := t.d.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal || len(sel.Index()) != 1 {
			return nil, 0
		}
		st, ok := derefType(sel.Recv()).Underlying().(*types.Struct)
		if !ok {
			return nil, 0
		}
		inner, side := t.path(x.X)
		if inner == nil {
			return nil, 0
		}
		return &sortspec.Node{Op: "field", N: sel.Index()[0], M: st.NumFields(), Args: []*sortspec.Node{inner}}, side
	case *ast.CallExpr:
		if b, ok := t.d.callee(x.Fun).(*types.Builtin); ok && b.Name() == "len" && len(x.Args) == 1 {
			if _, isPtr := t.d.typeOf(x.Args[0]).Underlying().(*types.Pointer); !isPtr {
				if inner, side := t.path(x.Args[0]); inner != nil {
					return &sortspec.Node{Op: "len", Args: []*sortspec.Node{inner}}, side
				}
			}
		}
	case *ast.IndexExpr:
		if m := t.mapVar(x.X); m >= 0 {
			if inner, side := t.path(x.Index); inner != nil {
				return &sortspec.Node{Op: "map", N: m, Args: []*sortspec.Node{inner}}, side
			}
		}
	}
	return nil, 0
}

// element reports which element e is: 'i' for S[i] or the first parameter, 'j' for S[j] or the
// second, 0 for neither.
func (t *sortTranslator) element(e ast.Expr) byte {
	e = ast.Unparen(e)
	if t.spec.Mode == "less" || t.spec.Mode == "less-stable" {
		ix, ok := e.(*ast.IndexExpr)
		if !ok {
			return 0
		}
		if s, ok := ast.Unparen(ix.X).(*ast.Ident); !ok || t.d.info.Uses[s] != t.slice {
			return 0
		}
		e = ix.Index
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	switch {
	case !ok:
		return 0
	case t.d.info.Uses[id] == t.a:
		return 'i'
	case t.d.info.Uses[id] == t.b:
		return 'j'
	}
	return 0
}

// mapVar is the index among the spec's maps of the map variable e, declared outside the
// literal; -1 if e is not one.
func (t *sortTranslator) mapVar(e ast.Expr) int {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return -1
	}
	v, ok := t.d.info.Uses[id].(*types.Var)
	if !ok || v == t.slice || v.Pos() >= t.lit.Pos() && v.Pos() < t.lit.End() {
		return -1
	}
	if _, ok := v.Type().Underlying().(*types.Map); !ok {
		return -1
	}
	for i, m := range t.maps {
		if m == v {
			return i
		}
	}
	t.maps = append(t.maps, v)
	return len(t.maps) - 1
}
