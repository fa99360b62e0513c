package js

import (
	"reflect"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// goja reads an array pattern through the iterator protocol, a result object allocated and a
// try block entered per element: `const [, , , product, , qty] = row.split(",")` costs six
// times what six index reads cost, and `.sort(([, a], [, b]) => b - a)` pays it twice per
// comparison. The rewrite below reads a plain array (forof.go's __rlm_plainArray) by index and
// anything else through the protocol, as before, in a helper. A declaration in a block or a
// function (a top-level one runs once)
//
//	const [a, , b = 0, ...r] = E
//
// becomes
//
//	const $t = E, $a = (__rlm_plainArray($t) && __rlm_rest($t, 3)) || __rlm_take($t, 3, true),
//	      a = $a[0], b = $a[2] === undefined ? 0 : $a[2], r = $a[3]
//
// where, without a rest element, $a is $t itself for a plain array and __rlm_take($t, 3, false)
// otherwise. __rlm_take is a JS function that reads the values with for…of, as destructuring
// does, and stops (closing the iterator) after the last one it needs; __rlm_rest copies a plain
// array's first elements and the rest, as the protocol would read them. A for…of head with a
// pattern, `for (const [k, v] of m) BODY`, becomes `for (const $e of m) { const [k, v] = $e;
// BODY }`, and a function's pattern parameter `([k, v]) => E` becomes `($p) => { const [k, v]
// = $p; return E }`, whose declarations are then rewritten as above.
//
// Only patterns of names, holes, names with a literal default and a rest name are rewritten:
// the defaults have no effects, so reading every value first is not observable. A parameter is
// rewritten only in a function that is not a generator, has no parameter defaults, no "use
// strict" of its own, and declares none of the pattern's names in its body or other parameters.
// A loop whose source mentions a name its head binds keeps its head (its TDZ error stays).

// Names of the helpers the rewritten code calls.
const (
	takeName = "__rlm_take"
	restName = "__rlm_rest"
)

// takeSource is __rlm_take(v, n, rest): the first n values destructuring reads from v, then,
// when rest is true, an array of the others at index n.
const takeSource = `(v, n, rest) => {
	const out = [];
	if (rest) {
		for (const x of v) out.push(x);
		const r = out.slice(n);
		out.length = n;
		out.push(r);
		return out;
	}
	for (const x of v) if (out.push(x) === n) break;
	return out;
}`

// installDestructure defines __rlm_take and __rlm_rest.
func (e *Engine) installDestructure() error {
	take, err := e.wrap("() => " + takeSource)
	if err != nil {
		return err
	}
	if err := e.vm.Set(takeName, take); err != nil {
		return err
	}
	return e.vm.Set(restName, func(call goja.FunctionCall) goja.Value {
		a, ok := call.Argument(0).(*goja.Object)
		n := call.Argument(1).ToInteger()
		if !ok || a.ClassName() != "Array" || n < 0 || n > maxPattern {
			return goja.Undefined()
		}
		l := a.Get("length").ToInteger()
		if l > maxRest {
			return goja.Undefined() // read through the protocol, where a cell can be stopped
		}
		head := make([]any, n+1)
		for i := range int(n) {
			head[i] = elem(a, i)
		}
		var rest []any
		for i := int(n); i < int(l); i++ {
			rest = append(rest, elem(a, i))
		}
		head[n] = e.vm.NewArray(rest...)
		return e.vm.NewArray(head...)
	})
}

// __rlm_rest declines (returns undefined, and the rewritten code calls __rlm_take) a pattern of
// more than maxPattern elements, which no cell writes, and an array longer than maxRest, whose
// copy would take long in a loop a deadline cannot stop.
const (
	maxPattern = 1 << 10
	maxRest    = 1 << 20
)

// elem is a[i], undefined for a hole.
func elem(a *goja.Object, i int) goja.Value {
	if v := a.Get(strconv.Itoa(i)); v != nil {
		return v
	}
	return goja.Undefined()
}

// rewriteDestructure rewrites, in place, the array patterns below body that it applies to (see
// above); body's own statements are the top level, whose declarations are left alone.
func rewriteDestructure(body []ast.Statement) {
	r := &forOfRewriter{used: identNames(reflect.ValueOf(body))}
	top := map[*ast.LexicalDeclaration]bool{}
	for _, st := range body {
		if d, ok := st.(*ast.LexicalDeclaration); ok {
			top[d] = true
		}
	}
	each(reflect.ValueOf(body), func(x reflect.Value) bool {
		if !x.CanAddr() {
			return true
		}
		switch n := x.Addr().Interface().(type) {
		case *ast.LexicalDeclaration:
			if !top[n] {
				n.List = r.bindings(n.List)
			}
		case *ast.ForOfStatement:
			r.forOfHead(n)
		case *ast.ArrowFunctionLiteral:
			if blk := r.params(n.ParameterList, conciseBlock(n.Body), false); blk != nil {
				n.Body = blk
			}
		case *ast.FunctionLiteral:
			if blk := r.params(n.ParameterList, n.Body, n.Generator); blk != nil {
				n.Body = blk
			}
		}
		return true
	})
}

// simplePattern reports whether p is an array pattern the rewrite reads by index, and returns
// the names it binds.
func simplePattern(t ast.BindingTarget) (*ast.ArrayPattern, map[unistring.String]bool) {
	p, ok := t.(*ast.ArrayPattern)
	if !ok || len(p.Elements) == 0 {
		return nil, nil
	}
	names := map[unistring.String]bool{}
	for _, el := range p.Elements {
		switch el := el.(type) {
		case nil:
		case *ast.Identifier:
			names[el.Name] = true
		case *ast.AssignExpression:
			id, ok := el.Left.(*ast.Identifier)
			if !ok || el.Operator != token.ASSIGN || !literal(el.Right) {
				return nil, nil
			}
			names[id.Name] = true
		default:
			return nil, nil
		}
	}
	if p.Rest != nil {
		id, ok := p.Rest.(*ast.Identifier)
		if !ok {
			return nil, nil
		}
		names[id.Name] = true
	}
	return p, names
}

// literal reports whether e is a literal whose evaluation has no effect.
func literal(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.StringLiteral, *ast.NumberLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return true
	case *ast.TemplateLiteral:
		return e.Tag == nil && len(e.Expressions) == 0
	case *ast.Identifier:
		return e.Name == "undefined"
	case *ast.UnaryExpression:
		_, num := e.Operand.(*ast.NumberLiteral)
		return num && (e.Operator == token.MINUS || e.Operator == token.PLUS) && !e.Postfix
	case *ast.ArrayLiteral:
		return len(e.Value) == 0
	case *ast.ObjectLiteral:
		return len(e.Value) == 0
	}
	return false
}

// bindings rewrites the bindings of one declaration whose target is a simple pattern.
func (r *forOfRewriter) bindings(list []*ast.Binding) []*ast.Binding {
	var out []*ast.Binding
	for i, b := range list {
		p, _ := simplePattern(b.Target)
		if p == nil || b.Initializer == nil {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append([]*ast.Binding(nil), list[:i]...)
		}
		out = append(out, r.expand(p, b.Initializer)...)
	}
	if out == nil {
		return list
	}
	return out
}

// expand is the list of bindings that reads pattern p from init.
func (r *forOfRewriter) expand(p *ast.ArrayPattern, init ast.Expression) []*ast.Binding {
	at := p.LeftBracket
	t, a := r.fresh("t"), r.fresh("a")
	n := len(p.Elements)
	fast := ast.Expression(ident(t, at))
	slow := callOf(takeName, at, ident(t, at), number(n, at), &ast.BooleanLiteral{Idx: at, Literal: "false", Value: false})
	if p.Rest != nil {
		fast = callOf(restName, at, ident(t, at), number(n, at))
		slow = callOf(takeName, at, ident(t, at), number(n, at), &ast.BooleanLiteral{Idx: at, Literal: "true", Value: true})
	}
	pick := ast.Expression(&ast.ConditionalExpression{Test: callOf(plainArrayName, at, ident(t, at)), Consequent: fast, Alternate: slow})
	if p.Rest != nil { // __rlm_rest may decline: (plain && __rlm_rest(…)) || __rlm_take(…)
		plainRest := &ast.BinaryExpression{Operator: token.LOGICAL_AND, Left: callOf(plainArrayName, at, ident(t, at)), Right: fast}
		pick = &ast.BinaryExpression{Operator: token.LOGICAL_OR, Left: plainRest, Right: slow}
	}
	out := []*ast.Binding{
		{Target: ident(t, at), Initializer: init},
		{Target: ident(a, at), Initializer: pick},
	}
	item := func(i int) ast.Expression {
		return &ast.BracketExpression{Left: ident(a, at), Member: number(i, at), LeftBracket: at, RightBracket: at}
	}
	for i, el := range p.Elements {
		switch el := el.(type) {
		case *ast.Identifier:
			out = append(out, &ast.Binding{Target: ident(el.Name, el.Idx), Initializer: item(i)})
		case *ast.AssignExpression:
			id := el.Left.(*ast.Identifier)
			isUndef := &ast.BinaryExpression{Operator: token.STRICT_EQUAL, Left: item(i), Right: ident("undefined", at)}
			out = append(out, &ast.Binding{Target: ident(id.Name, id.Idx), Initializer: &ast.ConditionalExpression{Test: isUndef, Consequent: el.Right, Alternate: item(i)}})
		}
	}
	if p.Rest != nil {
		id := p.Rest.(*ast.Identifier)
		out = append(out, &ast.Binding{Target: ident(id.Name, id.Idx), Initializer: item(n)})
	}
	return out
}

func callOf(name unistring.String, at file.Idx, args ...ast.Expression) *ast.CallExpression {
	return &ast.CallExpression{Callee: ident(name, at), LeftParenthesis: at, ArgumentList: args, RightParenthesis: at}
}

func number(n int, at file.Idx) *ast.NumberLiteral {
	return &ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(n), Value: int64(n)}
}

// forOfHead moves a simple pattern out of a for…of head into the loop's body.
func (r *forOfRewriter) forOfHead(loop *ast.ForOfStatement) {
	d, ok := loop.Into.(*ast.ForDeclaration)
	if !ok {
		return
	}
	p, names := simplePattern(d.Target)
	if p == nil || mentionsAny(reflect.ValueOf(loop.Source), names) {
		return
	}
	at := p.LeftBracket
	e := r.fresh("e")
	tok := token.LET
	if d.IsConst {
		tok = token.CONST
	}
	decl := &ast.LexicalDeclaration{Idx: at, Token: tok, List: []*ast.Binding{{Target: p, Initializer: ident(e, at)}}}
	loop.Into = &ast.ForDeclaration{Idx: d.Idx, IsConst: d.IsConst, Target: ident(e, at)}
	loop.Body = &ast.BlockStatement{LeftBrace: at, List: []ast.Statement{decl, loop.Body}, RightBrace: at}
}

// conciseBlock is an arrow function's body as a block.
func conciseBlock(b ast.ConciseBody) *ast.BlockStatement {
	switch b := b.(type) {
	case *ast.BlockStatement:
		return b
	case *ast.ExpressionBody:
		at := b.Expression.Idx0()
		return &ast.BlockStatement{LeftBrace: at, List: []ast.Statement{&ast.ReturnStatement{Return: at, Argument: b.Expression}}, RightBrace: at}
	}
	return nil
}

// params moves the simple patterns of a function's parameters into its body, and returns the new
// body, or nil when it leaves the function alone.
func (r *forOfRewriter) params(pl *ast.ParameterList, body *ast.BlockStatement, generator bool) *ast.BlockStatement {
	if pl == nil || body == nil || generator || directive(body) {
		return nil
	}
	bound := map[unistring.String]int{}
	var pats []int
	for i, b := range pl.List {
		if b.Initializer != nil {
			return nil
		}
		for name := range identNames(reflect.ValueOf(b.Target)) {
			bound[name]++
		}
		if p, _ := simplePattern(b.Target); p != nil {
			pats = append(pats, i)
		}
	}
	for name := range identNames(reflect.ValueOf(pl.Rest)) {
		bound[name]++
	}
	if len(pats) == 0 {
		return nil
	}
	declared := declaredNames(reflect.ValueOf(body))
	for name, k := range bound {
		if k > 1 || declared[name] || name == "arguments" || name == "eval" {
			return nil
		}
	}
	var decls []ast.Statement
	for _, i := range pats {
		b := pl.List[i]
		at := b.Target.Idx0()
		p := r.fresh("p")
		decls = append(decls, &ast.LexicalDeclaration{Idx: at, Token: token.CONST, List: []*ast.Binding{{Target: b.Target, Initializer: ident(p, at)}}})
		pl.List[i] = &ast.Binding{Target: ident(p, at)}
	}
	return &ast.BlockStatement{LeftBrace: body.LeftBrace, List: append(decls, body.List...), RightBrace: body.RightBrace}
}

// directive reports whether a function body starts with a string literal (a directive prologue).
func directive(body *ast.BlockStatement) bool {
	if len(body.List) == 0 {
		return false
	}
	st, ok := body.List[0].(*ast.ExpressionStatement)
	if !ok {
		return false
	}
	_, ok = st.Expression.(*ast.StringLiteral)
	return ok
}

// declaredNames are the names declared anywhere below v: by var, let, const, function, class,
// a catch clause or a for…in/of head.
func declaredNames(v reflect.Value) map[unistring.String]bool {
	names := map[unistring.String]bool{}
	add := func(x any) {
		for n := range identNames(reflect.ValueOf(x)) {
			names[n] = true
		}
	}
	each(v, func(x reflect.Value) bool {
		switch n := x.Interface().(type) {
		case ast.Binding:
			add(n.Target)
		case ast.FunctionLiteral:
			if n.Name != nil {
				names[n.Name.Name] = true
			}
		case ast.ClassLiteral:
			if n.Name != nil {
				names[n.Name.Name] = true
			}
		case ast.ForDeclaration:
			add(n.Target)
		case ast.TryStatement:
			if n.Catch != nil {
				add(n.Catch.Parameter)
			}
		}
		return true
	})
	return names
}
