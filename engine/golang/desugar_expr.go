package golang

import (
	"go/ast"
	"go/constant"
	"go/token"
	"path"
	"reflect"
)

func (d *desugarer) expr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.CallExpr:
		return d.call(x)
	case *ast.FuncLit:
		d.push()
		d.declareFields(x.Type.Params)
		d.declareFields(x.Type.Results)
		d.stmtList(x.Body.List)
		d.pop()
	case *ast.BinaryExpr:
		x.X, x.Y = d.expr(x.X), d.expr(x.Y)
	case *ast.UnaryExpr:
		x.X = d.expr(x.X)
	case *ast.ParenExpr:
		x.X = d.expr(x.X)
	case *ast.SelectorExpr:
		x.X = d.expr(x.X)
	case *ast.IndexExpr:
		x.X, x.Index = d.expr(x.X), d.expr(x.Index)
		e = d.instantiate(x, x.X, []ast.Expr{x.Index}, x.Lbrack, x.Rbrack)
	case *ast.IndexListExpr:
		x.X = d.expr(x.X)
		d.exprs(x.Indices)
		e = d.instantiate(x, x.X, x.Indices, x.Lbrack, x.Rbrack)
	case *ast.SliceExpr:
		x.X = d.expr(x.X)
		for _, p := range []*ast.Expr{&x.Low, &x.High, &x.Max} {
			if *p != nil {
				*p = d.expr(*p)
			}
		}
	case *ast.StarExpr:
		x.X = d.expr(x.X)
	case *ast.TypeAssertExpr:
		x.X = d.expr(x.X)
	case *ast.KeyValueExpr:
		x.Value = d.expr(x.Value)
	case *ast.CompositeLit:
		d.exprs(x.Elts)
	}
	return e
}

// instantiate rewrites explicit type arguments of a generic function whose type parameters the
// pass duplicated (see rewriteGeneric): F[A, B] becomes F[A, A, B].
func (d *desugarer) instantiate(e, fun ast.Expr, args []ast.Expr, lbrack, rbrack token.Pos) ast.Expr {
	id, ok := fun.(*ast.Ident)
	if !ok {
		return e
	}
	var out []ast.Expr
	for _, orig := range d.genericMap(id.Name) {
		if orig < len(args) {
			out = append(out, args[orig])
		}
	}
	if len(out) <= len(args) {
		return e
	}
	return &ast.IndexListExpr{X: fun, Lbrack: lbrack, Indices: out, Rbrack: rbrack}
}

func (d *desugarer) genericMap(name string) []int {
	if _, declared := d.lookupLocal(name); declared {
		return nil
	}
	if m, ok := d.generics[name]; ok {
		return m
	}
	return d.s.generics[name]
}

// lookupLocal reports a name declared in a scope inside the unit's top level.
func (d *desugarer) lookupLocal(name string) (kind, bool) {
	for i := len(d.scopes) - 1; i >= 1; i-- {
		if k, ok := d.scopes[i][name]; ok {
			return k, true
		}
	}
	return kUnknown, false
}

// fmtBoxFrom gives, for fmt's printing functions, the index of the first value argument.
var fmtBoxFrom = map[string]int{
	"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0,
	"Printf": 1, "Sprintf": 1, "Errorf": 1, "Fprint": 1, "Fprintln": 1, "Append": 1, "Appendln": 1,
	"Fprintf": 2, "Appendf": 2,
}

func (d *desugarer) call(x *ast.CallExpr) ast.Expr {
	x.Fun = d.expr(x.Fun)
	d.exprs(x.Args)
	switch fun := x.Fun.(type) {
	case *ast.Ident:
		if !d.isBuiltin(fun.Name) {
			if d.genericMap(fun.Name) != nil {
				d.wrapCompiledFuncArgs(x)
			}
			return x
		}
		switch fun.Name {
		case "min", "max":
			return minMax(x, "_"+fun.Name)
		case "clear":
			fun.Name = "_clear"
		case "print":
			d.boxArgs(x, 0)
		}
	case *ast.SelectorExpr:
		pkg, ok := fun.X.(*ast.Ident)
		if !ok || !d.isPackage(pkg.Name) {
			return x
		}
		switch pkg.Name {
		case "fmt":
			if from, ok := fmtBoxFrom[fun.Sel.Name]; ok {
				d.boxArgs(x, from)
			}
		case "errors":
			if fun.Sel.Name == "As" || fun.Sel.Name == "Is" {
				x.Fun = ident("_errors"+fun.Sel.Name, fun.Pos())
			}
		}
	}
	return x
}

// boxArgs boxes the value arguments of a printing call whose static type is an interpreted
// interface with a String or Error method: yaegi passes such values to compiled code without
// their methods. The box calls the method through the interface, which works.
func (d *desugarer) boxArgs(x *ast.CallExpr, from int) {
	if x.Ellipsis.IsValid() {
		return
	}
	for i := from; i < len(x.Args); i++ {
		a := x.Args[i]
		if !pure(a) {
			continue
		}
		switch k := d.kindOf(a); k {
		case kStringer, kErrorer:
			x.Args[i] = boxIface(a, k)
		case kStringers, kErrorers:
			x.Args[i] = boxEach(a, elemKind(k), d.temp("i"))
		}
	}
}

// boxIface is _boxIface(a, func() string { return a.String() }, false) (or Error, true).
func boxIface(a ast.Expr, k kind) ast.Expr {
	method, isErr := "String", "false"
	if k == kErrorer {
		method, isErr = "Error", "true"
	}
	pos := a.Pos()
	str := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: ident("string", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
			&ast.CallExpr{Fun: &ast.SelectorExpr{X: copyExpr(a), Sel: ident(method, pos)}, Lparen: pos, Rparen: pos}}}}, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: ident("_boxIface", pos), Lparen: pos, Args: []ast.Expr{a, str, ident(isErr, pos)}, Rparen: a.End()}
}

// boxEach is _boxEach(len(a), func(i int) any { return <boxIface(a[i])> }): a []any of boxes,
// which fmt prints as it would print the slice.
func boxEach(a ast.Expr, k kind, i string) ast.Expr {
	pos := a.Pos()
	elem := &ast.IndexExpr{X: copyExpr(a), Lbrack: pos, Index: ident(i, pos), Rbrack: pos}
	f := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{ident(i, pos)}, Type: ident("int", pos)}}},
			Results: &ast.FieldList{List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{boxIface(elem, k)}}}, Rbrace: pos},
	}
	n := &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{a}, Rparen: pos}
	return &ast.CallExpr{Fun: ident("_boxEach", pos), Lparen: pos, Args: []ast.Expr{n, f}, Rparen: a.End()}
}

// pure reports expressions that can be evaluated twice: names, and index and field reads of them.
func pure(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return true
	case *ast.IndexExpr:
		return pure(x.X) && (pure(x.Index) || constValue(x.Index) != nil)
	case *ast.SelectorExpr:
		return pure(x.X)
	case *ast.ParenExpr:
		return pure(x.X)
	}
	return false
}

func copyExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Ident:
		c := *x
		return &c
	case *ast.IndexExpr:
		return &ast.IndexExpr{X: copyExpr(x.X), Lbrack: x.Lbrack, Index: copyExpr(x.Index), Rbrack: x.Rbrack}
	case *ast.SelectorExpr:
		return &ast.SelectorExpr{X: copyExpr(x.X), Sel: copyExpr(x.Sel).(*ast.Ident)}
	case *ast.ParenExpr:
		return &ast.ParenExpr{Lparen: x.Lparen, X: copyExpr(x.X), Rparen: x.Rparen}
	case *ast.BasicLit:
		c := *x
		return &c
	}
	return e
}

// minMax folds min and max of constants (Go makes them constants) and calls the prelude's
// generic helper otherwise, with a non-constant argument first so that inference picks its type.
func minMax(x *ast.CallExpr, helper string) ast.Expr {
	vals := make([]constant.Value, len(x.Args))
	first := -1
	for i, a := range x.Args {
		vals[i] = constValue(a)
		if vals[i] == nil && first < 0 {
			first = i
		}
	}
	if first < 0 && len(vals) > 0 {
		if folded := foldMinMax(x.Args, vals, helper == "_min"); folded != nil {
			return folded
		}
	}
	if first > 0 {
		x.Args[0], x.Args[first] = x.Args[first], x.Args[0]
	}
	x.Fun = ident(helper, x.Fun.Pos())
	return x
}

func foldMinMax(args []ast.Expr, vals []constant.Value, isMin bool) (out ast.Expr) {
	defer func() {
		if recover() != nil { // mixed kinds (a string and a number): let the compiler report it
			out = nil
		}
	}()
	best, anyFloat := 0, false
	for i, v := range vals {
		anyFloat = anyFloat || v.Kind() == constant.Float
		op := token.GTR
		if isMin {
			op = token.LSS
		}
		if constant.Compare(v, op, vals[best]) {
			best = i
		}
	}
	if anyFloat && vals[best].Kind() == constant.Int {
		return &ast.BasicLit{ValuePos: args[best].Pos(), Kind: token.FLOAT, Value: constant.ToFloat(vals[best]).ExactString() + ".0"}
	}
	return args[best]
}

// constValue returns the value of a literal, possibly signed, or nil.
func constValue(e ast.Expr) constant.Value {
	switch x := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil
		}
		return v
	case *ast.ParenExpr:
		return constValue(x.X)
	case *ast.UnaryExpr:
		if v := constValue(x.X); v != nil && (x.Op == token.SUB || x.Op == token.ADD) && v.Kind() != constant.String {
			return constant.UnaryOp(x.Op, v, 0)
		}
	}
	return nil
}

// packageKeys maps an allowed package's name to its key in symbolTable.
var packageKeys = func() map[string]string {
	m := map[string]string{}
	for k := range symbolTable {
		m[path.Base(k)] = k
	}
	return m
}()

// wrapCompiledFuncArgs replaces compiled functions passed to a generic function (strings.ToUpper)
// by function literals calling them: yaegi cannot infer type arguments from compiled functions.
func (d *desugarer) wrapCompiledFuncArgs(x *ast.CallExpr) {
	for i, a := range x.Args {
		sel, ok := a.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !d.isPackage(pkg.Name) {
			continue
		}
		v, ok := symbolsOf(packageKeys[pkg.Name])[sel.Sel.Name]
		if !ok || v.Kind() != reflect.Func {
			continue
		}
		if lit := funcLitFor(sel, v.Type()); lit != nil {
			x.Args[i] = lit
		}
	}
}

// funcLitFor builds func(_a0 T0, ...) (R...) { return sel(_a0, ...) } when every parameter and
// result type is predeclared (or a slice of one).
func funcLitFor(sel *ast.SelectorExpr, t reflect.Type) *ast.FuncLit {
	if t.IsVariadic() {
		return nil
	}
	pos := sel.Pos()
	ft := &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{}}
	call := &ast.CallExpr{Fun: sel, Lparen: pos, Rparen: pos}
	for i := 0; i < t.NumIn(); i++ {
		te := typeExprOf(t.In(i), pos)
		if te == nil {
			return nil
		}
		name := ident("_a"+string(rune('0'+i)), pos)
		ft.Params.List = append(ft.Params.List, &ast.Field{Names: []*ast.Ident{name}, Type: te})
		call.Args = append(call.Args, ident(name.Name, pos))
	}
	for i := 0; i < t.NumOut(); i++ {
		te := typeExprOf(t.Out(i), pos)
		if te == nil {
			return nil
		}
		ft.Results.List = append(ft.Results.List, &ast.Field{Type: te})
	}
	var body ast.Stmt = &ast.ExprStmt{X: call}
	if t.NumOut() > 0 {
		body = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
	}
	return &ast.FuncLit{Type: ft, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{body}, Rbrace: pos}}
}

func typeExprOf(t reflect.Type, pos token.Pos) ast.Expr {
	if t.Kind() == reflect.Slice {
		if elt := typeExprOf(t.Elem(), pos); elt != nil {
			return &ast.ArrayType{Lbrack: pos, Elt: elt}
		}
		return nil
	}
	if t.PkgPath() != "" || t.Name() == "" || t.Kind() == reflect.Interface && t.Name() != "error" {
		return nil
	}
	return ident(t.Name(), pos)
}

// kindOf guesses the kind of an expression.
func (d *desugarer) kindOf(e ast.Expr) kind {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.INT || x.Kind == token.CHAR {
			return kInt
		}
		return kOther
	case *ast.Ident:
		k, _ := d.lookup(x.Name)
		return k
	case *ast.ParenExpr:
		return d.kindOf(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.SUB || x.Op == token.ADD || x.Op == token.XOR {
			return d.kindOf(x.X)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.SHL, token.SHR, token.AND, token.OR, token.XOR, token.AND_NOT:
			if d.kindOf(x.X) == kInt || d.kindOf(x.Y) == kInt {
				return kInt
			}
		}
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) == 1 {
			if k, ok := d.ifaceKind(id.Name); ok { // a conversion
				return k
			}
		}
		if ks := d.resultKinds(x); len(ks) > 0 {
			return ks[0]
		}
	case *ast.FuncLit:
		return iterKind(x.Type)
	case *ast.CompositeLit:
		return d.typeKind(x.Type)
	case *ast.IndexExpr:
		return elemKind(d.kindOf(x.X))
	}
	return kUnknown
}

func (d *desugarer) ifaceKind(name string) (kind, bool) {
	if k, ok := d.ifaces[name]; ok {
		return k, true
	}
	k, ok := d.s.ifaces[name]
	return k, ok
}

// sourceIterators are the iterator functions of the interpreted maps and slices packages.
var sourceIterators = map[string]kind{
	"maps.Keys": kIter1, "maps.Values": kIter1, "maps.All": kIter2,
	"slices.Values": kIter1, "slices.All": kIter2, "slices.Backward": kIter2, "slices.Chunk": kIter1,
}

// resultKinds guesses the kinds of a call's results.
func (d *desugarer) resultKinds(e ast.Expr) []kind {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil
	}
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		if d.isBuiltin(fun.Name) && (fun.Name == "len" || fun.Name == "cap") {
			return []kind{kInt}
		}
		if k := typeNameKind(fun.Name); k == kInt && d.isBuiltin(fun.Name) {
			return []kind{kInt} // a conversion
		}
		if _, local := d.lookupLocal(fun.Name); !local {
			if k, ok := d.funcs[fun.Name]; ok {
				return []kind{k}
			}
			if k, ok := d.s.funcs[fun.Name]; ok {
				return []kind{k}
			}
		}
	case *ast.IndexExpr:
		return d.resultKinds(&ast.CallExpr{Fun: fun.X})
	case *ast.IndexListExpr:
		return d.resultKinds(&ast.CallExpr{Fun: fun.X})
	case *ast.SelectorExpr:
		pkg, ok := fun.X.(*ast.Ident)
		if !ok || !d.isPackage(pkg.Name) {
			return nil
		}
		if k, ok := sourceIterators[pkg.Name+"."+fun.Sel.Name]; ok {
			return []kind{k}
		}
		if v, ok := symbolsOf(packageKeys[pkg.Name])[fun.Sel.Name]; ok && v.Kind() == reflect.Func {
			return compiledResultKinds(v.Type())
		}
	}
	return nil
}

var (
	stringSeq = reflect.TypeOf(func(func(string) bool) {})
	bytesSeq  = reflect.TypeOf(func(func([]byte) bool) {})
)

func compiledResultKinds(t reflect.Type) []kind {
	ks := make([]kind, t.NumOut())
	for i := range ks {
		o := t.Out(i)
		switch {
		case o.Kind() >= reflect.Int && o.Kind() <= reflect.Uintptr:
			ks[i] = kInt
		case o.ConvertibleTo(stringSeq) && o.Kind() == reflect.Func:
			ks[i] = kIterString
		case o.ConvertibleTo(bytesSeq) && o.Kind() == reflect.Func:
			ks[i] = kIterBytes
		default:
			ks[i] = kOther
		}
	}
	return ks
}

// typeKind is the kind of values of a type expression.
func (d *desugarer) typeKind(t ast.Expr) kind {
	switch x := t.(type) {
	case nil:
		return kUnknown
	case *ast.Ident:
		if k, ok := d.ifaceKind(x.Name); ok {
			return k
		}
		return typeNameKind(x.Name)
	case *ast.FuncType:
		return iterKind(x)
	case *ast.ParenExpr:
		return d.typeKind(x.X)
	case *ast.ArrayType:
		return collectionOf(d.typeKind(x.Elt), false)
	case *ast.MapType:
		return collectionOf(d.typeKind(x.Value), true)
	}
	return kOther
}

func typeNameKind(name string) kind {
	switch name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return kInt
	}
	return kOther
}

// iterKind recognises func(yield func(...) bool) with one or two yielded values.
func iterKind(ft *ast.FuncType) kind {
	if ft.Results != nil && len(ft.Results.List) > 0 || ft.Params == nil || ft.Params.NumFields() != 1 {
		return kOther
	}
	y, ok := ft.Params.List[0].Type.(*ast.FuncType)
	if !ok || y.Results == nil || y.Results.NumFields() != 1 {
		return kOther
	}
	if r, ok := y.Results.List[0].Type.(*ast.Ident); !ok || r.Name != "bool" {
		return kOther
	}
	switch y.Params.NumFields() {
	case 1:
		return kIter1
	case 2:
		return kIter2
	}
	return kOther
}

// resultKind is the kind of a function's first result.
func (d *desugarer) resultKind(ft *ast.FuncType) kind {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return kOther
	}
	return d.typeKind(ft.Results.List[0].Type)
}

// registerTypes records the unit's interface types that have a String or Error method.
func (d *desugarer) registerTypes(decl ast.Decl) {
	g, ok := decl.(*ast.GenDecl)
	if !ok || g.Tok != token.TYPE {
		return
	}
	for _, s := range g.Specs {
		ts := s.(*ast.TypeSpec)
		it, ok := ts.Type.(*ast.InterfaceType)
		if !ok {
			continue
		}
		k := kUnknown
		for _, m := range it.Methods.List {
			switch t := m.Type.(type) {
			case *ast.FuncType:
				for _, n := range m.Names {
					k = strongest(k, map[string]kind{"Error": kErrorer, "String": kStringer}[n.Name])
				}
			case *ast.Ident:
				if t.Name == "error" {
					k = kErrorer
				} else if ik, ok := d.ifaceKind(t.Name); ok {
					k = strongest(k, ik)
				}
			case *ast.SelectorExpr:
				if x, ok := t.X.(*ast.Ident); ok && x.Name == "fmt" && t.Sel.Name == "Stringer" {
					k = strongest(k, kStringer)
				}
			}
		}
		if k != kUnknown {
			d.ifaces[ts.Name.Name] = k
		}
	}
}

// strongest prefers Error to String, as fmt does.
func strongest(a, b kind) kind {
	if a == kErrorer || b == kErrorer {
		return kErrorer
	}
	if a == kStringer || b == kStringer {
		return kStringer
	}
	return kUnknown
}

// genericTyped reports right-hand sides whose type yaegi would take from a generic function's
// result type (see define.go).
func (d *desugarer) genericTyped(rhs []ast.Expr) bool {
	for _, e := range rhs {
		if d.typedByGeneric(e) {
			return true
		}
	}
	return false
}

func (d *desugarer) typedByGeneric(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CallExpr:
		return d.isGenericCall(x)
	case *ast.BinaryExpr:
		return d.typedByGeneric(x.X) || d.typedByGeneric(x.Y)
	case *ast.UnaryExpr:
		return d.typedByGeneric(x.X)
	case *ast.ParenExpr:
		return d.typedByGeneric(x.X)
	case *ast.StarExpr:
		return d.typedByGeneric(x.X)
	case *ast.IndexExpr:
		return d.typedByGeneric(x.X)
	case *ast.SliceExpr:
		return d.typedByGeneric(x.X)
	case *ast.SelectorExpr:
		return d.typedByGeneric(x.X)
	}
	return false
}

// preludeGenerics are the prelude's generic helpers the pass calls.
var preludeGenerics = map[string]bool{"_min": true, "_max": true, "_seq1": true, "_seq2": true}

func (d *desugarer) isGenericCall(x *ast.CallExpr) bool {
	switch fun := x.Fun.(type) {
	case *ast.Ident:
		return preludeGenerics[fun.Name] || d.genericMap(fun.Name) != nil
	case *ast.SelectorExpr:
		pkg, ok := fun.X.(*ast.Ident)
		if !ok {
			return false
		}
		_, src := sourcePackages[pkg.Name]
		return src && d.isPackage(pkg.Name)
	case *ast.IndexExpr:
		id, ok := fun.X.(*ast.Ident)
		return ok && d.genericMap(id.Name) != nil
	case *ast.IndexListExpr:
		id, ok := fun.X.(*ast.Ident)
		return ok && d.genericMap(id.Name) != nil
	}
	return false
}
