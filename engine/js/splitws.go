package js

import (
	"reflect"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// goja splits on a regexp by running it once per piece through Go's regexp package, over UTF-16
// for non-ASCII text: line.split(/\s+/), the way models split a line into fields, cost about
// 2.5 µs a line. The rewrite below turns a call X.split(/\s+/), with exactly that literal and no
// limit, into a call of __rlm_splitWS (see rewriteSplitWS): for a string goja holds in UTF-8 the pieces between runs
// of JavaScript's white space and line terminators are cut in Go, and for anything else it calls
// X.split with the same RegExp, so the result is what split gives.

// The globals the rewritten calls call: the native function, and the JS wrapper that falls
// back to split.
const (
	splitWSName   = "__rlm_splitWS"
	splitWSOfName = "__rlm_splitWSOf"
)

// installSplitWS defines __rlm_splitWS.
func (e *Engine) installSplitWS() error {
	native := e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		s, ok := call.Argument(0).(goja.String)
		if !ok {
			return goja.Undefined()
		}
		text, _, ok := exactUTF8(s)
		if !ok {
			return goja.Undefined()
		}
		return e.vm.NewArray(splitWS(text, e.vm)...)
	})
	fn, err := e.wrap(`(native) => (x, re) => { if (typeof x === "string") { const r = native(x); if (r !== undefined) return r } return x.split(re) }`, native)
	if err != nil {
		return err
	}
	if err := e.vm.Set(splitWSName, native); err != nil {
		return err
	}
	return e.vm.Set(splitWSOfName, fn)
}

// splitWS cuts text at every run of JavaScript white space (\s): as String.prototype.split does
// with /\s+/, an empty text gives one empty piece and a run at either end an empty piece there.
func splitWS(text string, vm *goja.Runtime) []any {
	var out []any
	start, inSpace := 0, false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		space := jsSpace(r)
		switch {
		case space && !inSpace: // a run of white space starts: the piece before it ends
			out = append(out, vm.ToValue(text[start:i]))
		case !space && inSpace: // a run ends: the next piece starts
			start = i
		}
		inSpace = space
		i += size
	}
	if inSpace {
		start = len(text)
	}
	return append(out, vm.ToValue(text[start:]))
}

// jsSpace reports whether r is white space or a line terminator in a JavaScript regexp (\s).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// rewriteSplitWS rewrites, in place, the calls X.split(/\s+/) below body: into
// __rlm_splitWS(X) ?? X.split(/\s+/) when X is a name (reading a name twice has no effect, and
// the native function returns undefined for what it does not cut), else into a call of the JS
// wrapper __rlm_splitWSOf(X, /\s+/), which does the same with X read once.
func rewriteSplitWS(body []ast.Statement) {
	rewriteMethodCalls(body, "split", func(c *ast.CallExpression, recv ast.Expression, at file.Idx) ast.Expression {
		re, ok := c.ArgumentList[0].(*ast.RegExpLiteral)
		if !ok || re.Pattern != `\s+` || re.Flags != "" {
			return nil
		}
		if id, ok := recv.(*ast.Identifier); ok {
			native := callOf(splitWSName, at, ident(id.Name, id.Idx))
			return &ast.BinaryExpression{Operator: token.COALESCE, Left: native, Right: c}
		}
		return callOf(splitWSOfName, at, recv, re)
	})
}

// rewriteMethodCalls replaces, in place, each call X.name(A) below body, of one argument and a
// receiver that plainReceiver accepts, with what f returns for it (nil: left as it is); at is
// X's position, where goja reports an error on X.
func rewriteMethodCalls(body []ast.Statement, name unistring.String, f func(c *ast.CallExpression, recv ast.Expression, at file.Idx) ast.Expression) {
	replaceBelow(reflect.ValueOf(body), expressionType, func(e any) any {
		c, ok := e.(*ast.CallExpression)
		if !ok || len(c.ArgumentList) != 1 {
			return nil
		}
		dot, ok := c.Callee.(*ast.DotExpression)
		if !ok || dot.Identifier.Name != name || !plainReceiver(dot.Left) {
			return nil
		}
		return f(c, dot.Left, dot.Left.Idx0()) // a nil ast.Expression converts to a nil any
	})
}

var expressionType = reflect.TypeOf((*ast.Expression)(nil)).Elem()

// plainReceiver reports whether x, the receiver of a method call a rewrite moves into an
// argument, means the same there: not super, and no optional chain (x?.y), whose short circuit
// would skip the call.
func plainReceiver(x ast.Expression) bool {
	if _, ok := x.(*ast.SuperExpression); ok {
		return false
	}
	return each(reflect.ValueOf(x), func(v reflect.Value) bool {
		switch v.Interface().(type) {
		case ast.Optional, ast.OptionalChain:
			return false
		}
		return true
	})
}
