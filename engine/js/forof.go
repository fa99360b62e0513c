package js

import (
	"errors"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// goja runs for…of through the iterator protocol: a result object allocated and a try block
// entered for every element, which makes a loop over an array about 2.4 times slower than an
// indexed loop over it. The rewrite below gives a loop over a plain array the indexed loop and
// keeps for…of for everything else. An innermost loop (one whose body holds no for…of)
//
//	for (const [k, v] of SRC) BODY
//
// becomes
//
//	{ const $s = SRC;
//	  if (__rlm_plainArray($s)) for (let $i = 0; $i < $s.length; $i++) { const [k, v] = $s[$i]; { BODY' } }
//	  else for (const [k, v] of $s) BODY }
//
// where BODY' is a copy of BODY. The indexed loop is what for…of does over such an array
// (ArrayIterator reads the length at every step and the element by index), and
// __rlm_plainArray accepts only arrays whose prototype is the frozen Array.prototype and that
// have no own Symbol.iterator, so the iterator cannot have been replaced; it invokes no getter. A label stays on both loops. $s and $i are names the cell does not use. A loop is left
// as it is when its source mentions a name its head binds (the TDZ error it would raise must
// stay) or when the cell uses the name __rlm_plainArray.

// plainArrayName is the global the rewritten loops call.
const plainArrayName = "__rlm_plainArray"

// arrayIntrinsics are Array.prototype and Object.prototype.hasOwnProperty, as the runtime
// holds them before a cell runs.
func (e *Engine) arrayIntrinsics() (*goja.Object, goja.Callable, error) {
	objectProto := e.vm.Get("Object").ToObject(e.vm).Get("prototype").ToObject(e.vm)
	arrayProto := e.vm.Get("Array").ToObject(e.vm).Get("prototype").ToObject(e.vm)
	hasOwn, ok := goja.AssertFunction(objectProto.Get("hasOwnProperty"))
	if !ok {
		return nil, nil, errors.New("no Object.prototype.hasOwnProperty")
	}
	return arrayProto, hasOwn, nil
}

// installPlainArray defines the global that tells plain arrays (see above) from anything else.
func (e *Engine) installPlainArray() error {
	arrayProto, hasOwn, err := e.arrayIntrinsics()
	if err != nil {
		return err
	}
	iter := e.vm.ToValue(goja.SymIterator)
	return e.vm.Set(plainArrayName, func(call goja.FunctionCall) goja.Value {
		o, ok := call.Argument(0).(*goja.Object)
		if !ok || o.ClassName() != "Array" || o.Prototype() != arrayProto {
			return e.vm.ToValue(false)
		}
		// Own Symbol.iterator, enumerable or not, reads no getter: the frozen Array.prototype's is
		// then the one for…of would call.
		own, err := hasOwn(o, iter)
		return e.vm.ToValue(err == nil && !own.ToBoolean())
	})
}

// rewriteForOf rewrites the innermost for…of loops of body (see above), in place; the caller
// passes a copy of the unit's statements.
func rewriteForOf(body []ast.Statement) {
	used := identNames(reflect.ValueOf(body))
	if used[plainArrayName] {
		return
	}
	r := &forOfRewriter{used: used}
	replaceBelow(reflect.ValueOf(body), statementType, func(n any) any {
		if st := r.rewrite(n.(ast.Statement)); st != nil {
			return st
		}
		return nil
	})
}

type forOfRewriter struct {
	used map[unistring.String]bool
	n    int
}

// fresh is a name the cell does not use.
func (r *forOfRewriter) fresh(base string) unistring.String {
	for {
		r.n++
		name := unistring.String(base + "$" + strconv.Itoa(r.n))
		if !r.used[name] {
			r.used[name] = true
			return name
		}
	}
}

var statementType = reflect.TypeOf((*ast.Statement)(nil)).Elem()

// replaceBelow visits every node below v and replaces each settable interface of type iface
// for which f returns a replacement; f sees a node after the nodes below it.
func replaceBelow(v reflect.Value, iface reflect.Type, f func(any) any) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			replaceBelow(v.Elem(), iface, f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			replaceAt(v.Index(i), iface, f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				replaceAt(v.Field(i), iface, f)
			}
		}
	}
}

// replaceAt walks v, then replaces it when it is a settable, non-nil interface of type iface
// for which f returns a replacement.
func replaceAt(v reflect.Value, iface reflect.Type, f func(any) any) {
	replaceBelow(v, iface, f)
	if v.Kind() != reflect.Interface || v.Type() != iface || !v.CanSet() || v.IsNil() {
		return
	}
	if n := f(v.Interface()); n != nil {
		v.Set(reflect.ValueOf(n))
	}
}

// rewrite returns the rewrite of st, or nil when it does not apply.
func (r *forOfRewriter) rewrite(st ast.Statement) ast.Statement {
	var label *ast.LabelledStatement
	if l, ok := st.(*ast.LabelledStatement); ok {
		label, st = l, l.Statement
	}
	loop, ok := st.(*ast.ForOfStatement)
	if !ok || holdsForOf(reflect.ValueOf(loop.Body)) {
		return nil
	}
	bound := boundNames(loop.Into)
	if bound == nil || mentionsAny(reflect.ValueOf(loop.Source), bound) {
		return nil
	}
	at := loop.For
	s, i := r.fresh("s"), r.fresh("i")
	elem := &ast.BracketExpression{Left: ident(s, at), Member: ident(i, at), LeftBracket: at, RightBracket: at}
	bind := bindElement(loop.Into, elem, at)
	if bind == nil {
		return nil
	}
	fast := &ast.ForStatement{
		For: at,
		Initializer: &ast.ForLoopInitializerLexicalDecl{LexicalDeclaration: ast.LexicalDeclaration{
			Idx: at, Token: token.LET, List: []*ast.Binding{{Target: ident(i, at), Initializer: &ast.NumberLiteral{Idx: at, Literal: "0", Value: int64(0)}}}}},
		Test:   &ast.BinaryExpression{Operator: token.LESS, Left: ident(i, at), Right: &ast.DotExpression{Left: ident(s, at), Identifier: ast.Identifier{Name: "length", Idx: at}}},
		Update: &ast.UnaryExpression{Operator: token.INCREMENT, Idx: at, Operand: ident(i, at), Postfix: true},
		Body:   &ast.BlockStatement{LeftBrace: at, List: []ast.Statement{bind, deepCopy(loop.Body).(ast.Statement)}, RightBrace: at},
	}
	slow := &ast.ForOfStatement{For: at, Into: loop.Into, Source: ident(s, at), Body: loop.Body}
	test := &ast.CallExpression{Callee: ident(plainArrayName, at), LeftParenthesis: at, ArgumentList: []ast.Expression{ident(s, at)}, RightParenthesis: at}
	decl := &ast.LexicalDeclaration{Idx: at, Token: token.CONST, List: []*ast.Binding{{Target: ident(s, at), Initializer: loop.Source}}}
	branch := &ast.IfStatement{If: at, Test: test, Consequent: relabel(label, fast), Alternate: relabel(label, slow)}
	return &ast.BlockStatement{LeftBrace: at, List: []ast.Statement{decl, branch}, RightBrace: at}
}

func ident(name unistring.String, at file.Idx) *ast.Identifier {
	return &ast.Identifier{Name: name, Idx: at}
}

func relabel(label *ast.LabelledStatement, st ast.Statement) ast.Statement {
	if label == nil {
		return st
	}
	return &ast.LabelledStatement{Label: label.Label, Colon: label.Colon, Statement: st}
}

// bindElement is the statement that binds the loop's head to elem for one iteration, as the
// head declares or assigns it; nil for heads the rewrite leaves alone.
func bindElement(into ast.ForInto, elem ast.Expression, at file.Idx) ast.Statement {
	switch into := into.(type) {
	case *ast.ForDeclaration:
		tok := token.LET
		if into.IsConst {
			tok = token.CONST
		}
		return &ast.LexicalDeclaration{Idx: at, Token: tok, List: []*ast.Binding{{Target: deepCopy(into.Target).(ast.BindingTarget), Initializer: elem}}}
	case *ast.ForIntoVar:
		if into.Binding == nil || into.Binding.Initializer != nil {
			return nil
		}
		return &ast.VariableStatement{Var: at, List: []*ast.Binding{{Target: deepCopy(into.Binding.Target).(ast.BindingTarget), Initializer: elem}}}
	case *ast.ForIntoExpression:
		if _, ok := into.Expression.(*ast.Identifier); !ok {
			return nil
		}
		return &ast.ExpressionStatement{Expression: &ast.AssignExpression{Operator: token.ASSIGN, Left: deepCopy(into.Expression).(ast.Expression), Right: elem}}
	}
	return nil
}

// boundNames are the names a loop head binds (nil when the rewrite does not handle the head).
func boundNames(into ast.ForInto) map[unistring.String]bool {
	switch into := into.(type) {
	case *ast.ForDeclaration:
		return identNames(reflect.ValueOf(into.Target))
	case *ast.ForIntoVar:
		if into.Binding != nil {
			return identNames(reflect.ValueOf(into.Binding.Target))
		}
	case *ast.ForIntoExpression:
		return identNames(reflect.ValueOf(into.Expression))
	}
	return nil
}

// identNames collects the names of every identifier below v.
func identNames(v reflect.Value) map[unistring.String]bool {
	names := map[unistring.String]bool{}
	each(v, func(x reflect.Value) bool {
		if id, ok := x.Interface().(ast.Identifier); ok {
			names[id.Name] = true
		}
		return true
	})
	return names
}

func mentionsAny(v reflect.Value, names map[unistring.String]bool) bool {
	found := false
	each(v, func(x reflect.Value) bool {
		if id, ok := x.Interface().(ast.Identifier); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

func holdsForOf(v reflect.Value) bool {
	found := false
	each(v, func(x reflect.Value) bool {
		if _, ok := x.Interface().(ast.ForOfStatement); ok {
			found = true
		}
		return !found
	})
	return found
}

// each calls f on every struct value below v (exported fields only) until f returns false.
func each(v reflect.Value, f func(reflect.Value) bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || each(v.Elem(), f)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if !each(v.Index(i), f) {
				return false
			}
		}
	case reflect.Struct:
		if !f(v) {
			return false
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && !each(v.Field(i), f) {
				return false
			}
		}
	}
	return true
}

var fileType = reflect.TypeOf((*file.File)(nil))

// deepCopy copies an AST below x: every pointer, slice and interface of the ast package anew
// (a node reached twice is copied once), unexported fields and the source file as they are.
func deepCopy(x any) any {
	c := copier{seen: map[uintptr]reflect.Value{}}
	return c.copy(reflect.ValueOf(x)).Interface()
}

type copier struct{ seen map[uintptr]reflect.Value }

func (c *copier) copy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return v
		}
		if p, ok := c.seen[v.Pointer()]; ok {
			return p
		}
		p := reflect.New(v.Type().Elem())
		c.seen[v.Pointer()] = p
		p.Elem().Set(c.copy(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(c.copy(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(c.copy(v.Index(i)))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(c.copy(v.Field(i)))
			}
		}
		return out
	}
	return v
}
