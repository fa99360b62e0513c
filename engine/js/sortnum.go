package js

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// goja sorts with a comparator by calling it through the VM for every comparison, and moves
// array elements one swap at a time: xs.sort((a, b) => a - b) over 100,000 numbers took 780 ms
// (node: about 10 ms). The rewrite below turns X.sort(F), where F is a function literal of two
// parameters that returns a - b or b - a, or differences of one property or element of each
// joined by || (b.qty - a.qty || a.id - b.id, b[1] - a[1]), into __rlm_sortNum(X, F, "keys")
// (sortkeys.go). The native function sorts in Go only what goja would sort in place without
// running any JS: an array whose sort is Array.prototype.sort, that goja holds as a dense array
// of plain values (its checkStdArrayObj, see stdArray), whose keys are all primitive numbers
// read without running JS (the elements themselves, undefined allowed; own data properties of
// ordinary objects; elements of dense arrays), so that F would only ever compute differences
// of numbers. It sorts the elements as goja does (arraySortCtx: undefined last, the sign of
// F's result, a -0 result counting as negative) and writes them back. Anything else (a typed
// array, Number objects, strings, holes, getters, an array with its own sort, arrays longer
// than the bounds below) calls X.sort(F).

// sortNumName is the JS wrapper the rewritten calls call.
const sortNumName = "__rlm_sortNum"

// The longest arrays sorted in Go, where a cell's deadline cannot stop the sort (longer ones go
// to goja, whose calls of F check the deadline): numbers that sort by value (about 0.2 s at the
// bound), and those that need goja's own algorithm (NaN, -0, infinities: about 0.1 s).
const (
	maxSortNum       = 1 << 20
	maxSortNumStable = 1 << 16
)

// maxSortKeyReads bounds elements × keys for keys of properties and elements, each read
// through reflect (about 0.15 s at the bound, and 8 MB of keys).
const maxSortKeyReads = 1 << 18

// installSortNum defines __rlm_sortNum.
func (e *Engine) installSortNum() error {
	native, err := e.sortNum()
	if err != nil {
		return err
	}
	fn, err := e.wrap(`(native) => (x, f, keys) => { const r = native(x, f, keys); return r !== undefined ? r : x.sort(f) }`, e.vm.ToValue(native))
	if err != nil {
		return err
	}
	return e.vm.Set(sortNumName, fn)
}

// sortNum is the native function behind __rlm_sortNum: (x, f, keys) sorts x and returns it,
// or returns undefined, having read only plain values, for what it leaves to x.sort(f).
func (e *Engine) sortNum() (func(goja.FunctionCall) goja.Value, error) {
	arrayProto, hasOwn, err := e.arrayIntrinsics()
	if err != nil {
		return nil, err
	}
	sortName := e.vm.ToValue("sort")
	return func(call goja.FunctionCall) goja.Value {
		o, ok := call.Argument(0).(*goja.Object)
		if !ok || o.ClassName() != "Array" || !stdArray(o) || o.Prototype() != arrayProto {
			return goja.Undefined()
		}
		if own, err := hasOwn(o, sortName); err != nil || own.ToBoolean() {
			return goja.Undefined()
		}
		n := o.Get("length").ToInteger()
		keys, ok := parseSortKeys(call.Argument(2).String())
		if !ok || n > maxSortNum || keys[0].kind != 0 && n*int64(len(keys)) > maxSortKeyReads {
			return goja.Undefined()
		}
		s := &numSort{keys: keys, vals: make([]goja.Value, n), nums: make([]num, int(n)*len(keys))}
		for i := range n {
			s.vals[i] = o.Get(strconv.FormatInt(i, 10)) // a plain value: no getter runs
			if !s.read(int(i)) {
				return goja.Undefined()
			}
		}
		if !s.sort() {
			return goja.Undefined()
		}
		for i, v := range s.vals {
			throwIf(o.Set(strconv.Itoa(i), v))
		}
		return o
	}, nil
}

// throwIf rethrows a JS exception a write raised.
func throwIf(err error) {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex.Value())
	}
	if err != nil {
		panic(err)
	}
}

// stdArray reports whether goja holds o as it requires to sort an array in place
// (checkStdArrayObj in goja's builtin_array.go): an arrayObject with no accessor or
// non-default property among its elements and no holes. It reads goja's fields, and reports
// false when they are not where this version of goja keeps them.
func stdArray(o *goja.Object) bool {
	a, ok := gojaSelf(o, "arrayObject")
	if !ok {
		return false
	}
	values := field(a, "values")
	props, okP := intField(a, "propValueCount")
	length, okL := intField(a, "length")
	objs, okO := intField(a, "objCount")
	return okP && okL && okO && values.IsValid() && values.Kind() == reflect.Slice &&
		props == 0 && length == int64(values.Len()) && objs == length
}

// gojaSelf is the struct goja implements o with, when it is the one of that type name.
func gojaSelf(o *goja.Object, typeName string) (reflect.Value, bool) {
	i := objectSelf()
	if i < 0 {
		return reflect.Value{}, false
	}
	self := reflect.ValueOf(o).Elem().Field(i)
	if !self.IsValid() || self.Kind() != reflect.Interface || self.IsNil() {
		return reflect.Value{}, false
	}
	p := self.Elem()
	if p.Kind() != reflect.Pointer || p.Type().Elem().Name() != typeName {
		return reflect.Value{}, false
	}
	return p.Elem(), true
}

// field is the field of the struct v by name, invalid if it has none; where each type keeps
// each name is looked up once.
func field(v reflect.Value, name string) reflect.Value {
	type at struct {
		t    reflect.Type
		name string
	}
	k := at{v.Type(), name}
	i, ok := fieldIndexes.Load(k)
	if !ok {
		f, found := v.Type().FieldByName(name)
		idx := -1
		if found && len(f.Index) == 1 {
			idx = f.Index[0]
		}
		i, _ = fieldIndexes.LoadOrStore(k, idx)
	}
	if i.(int) < 0 {
		return reflect.Value{}
	}
	return v.Field(i.(int))
}

var fieldIndexes sync.Map // {type, name} → field index, -1 for none

// objectSelf is the index of goja.Object's field self, -1 if it has none.
var objectSelf = sync.OnceValue(func() int {
	f, ok := reflect.TypeOf(goja.Object{}).FieldByName("self")
	if !ok || len(f.Index) != 1 {
		return -1
	}
	return f.Index[0]
})

// intField reads an integer field of a struct by name.
func intField(v reflect.Value, name string) (int64, bool) {
	f := field(v, name)
	switch {
	case !f.IsValid():
		return 0, false
	case f.CanInt():
		return f.Int(), true
	case f.CanUint():
		return int64(f.Uint()), true
	}
	return 0, false
}

// rewriteSortNum rewrites, in place, the calls X.sort(F) below body whose F returns a - b or
// b - a of its two parameters, or such differences of their properties or elements joined by
// ||, into __rlm_sortNum(X, F, "keys").
func rewriteSortNum(body []ast.Statement) {
	rewriteMethodCalls(body, "sort", func(c *ast.CallExpression, recv ast.Expression, at file.Idx) ast.Expression {
		keys := comparatorKeys(c.ArgumentList[0])
		if keys == "" {
			return nil
		}
		return callOf(sortNumName, at, recv, c.ArgumentList[0], stringLit(keys, at))
	})
}

// comparatorKeys is the keys (parseSortKeys) of a function literal (a, b) => D1 || D2 || …,
// each Di being a - b, a.name - b.name or a[N] - b[N], or with a and b swapped; "" for any other
// expression.
func comparatorKeys(e ast.Expression) string {
	var params *ast.ParameterList
	var body ast.ConciseBody
	switch f := e.(type) {
	case *ast.ArrowFunctionLiteral:
		if f.Async {
			return ""
		}
		params, body = f.ParameterList, f.Body
	case *ast.FunctionLiteral:
		if f.Async || f.Generator {
			return ""
		}
		params, body = f.ParameterList, f.Body
	default:
		return ""
	}
	if params == nil || len(params.List) != 2 || params.Rest != nil {
		return ""
	}
	var names [2]unistring.String
	for i, p := range params.List {
		id, ok := p.Target.(*ast.Identifier)
		if !ok || p.Initializer != nil {
			return ""
		}
		names[i] = id.Name
	}
	if names[0] == names[1] {
		return ""
	}
	var ret ast.Expression
	switch b := body.(type) {
	case *ast.ExpressionBody:
		ret = b.Expression
	case *ast.BlockStatement:
		if len(b.List) != 1 {
			return ""
		}
		if r, ok := b.List[0].(*ast.ReturnStatement); ok {
			ret = r.Argument
		}
	}
	var keys []string
	for _, d := range orChain(ret) {
		k, ok := difference(d, names)
		if !ok {
			return ""
		}
		keys = append(keys, k.String())
	}
	spec := strings.Join(keys, ",")
	if _, ok := parseSortKeys(spec); !ok {
		return ""
	}
	return spec
}

// orChain is the operands of D1 || D2 || …, in order.
func orChain(e ast.Expression) []ast.Expression {
	if b, ok := e.(*ast.BinaryExpression); ok && b.Operator == token.LOGICAL_OR {
		return append(orChain(b.Left), b.Right)
	}
	return []ast.Expression{e}
}

// difference reads x - y where x and y read the same key of the two parameters.
func difference(e ast.Expression, params [2]unistring.String) (sortKey, bool) {
	sub, ok := e.(*ast.BinaryExpression)
	if !ok || sub.Operator != token.MINUS {
		return sortKey{}, false
	}
	l, lp, ok1 := keyOf(sub.Left, params)
	r, rp, ok2 := keyOf(sub.Right, params)
	if !ok1 || !ok2 || lp == rp || l.kind != r.kind || l.name != r.name || l.idx != r.idx {
		return sortKey{}, false
	}
	l.dir = 1
	if lp == 1 {
		l.dir = -1
	}
	return l, true
}

// keyOf reads p, p.name or p[N] for a parameter p, and which parameter.
func keyOf(e ast.Expression, params [2]unistring.String) (sortKey, int, bool) {
	var k sortKey
	switch x := e.(type) {
	case *ast.Identifier:
		e = x
	case *ast.DotExpression:
		k.kind, k.name, e = '.', x.Identifier.Name.String(), x.Left
	case *ast.BracketExpression:
		n, ok := x.Member.(*ast.NumberLiteral)
		if !ok {
			return k, 0, false
		}
		v, isInt := n.Value.(int64)
		if !isInt || v < 0 || v > 1<<20 {
			return k, 0, false
		}
		k.kind, k.idx, e = '[', int(v), x.Left
	default:
		return k, 0, false
	}
	id, ok := e.(*ast.Identifier)
	switch {
	case !ok:
		return k, 0, false
	case id.Name == params[0]:
		return k, 0, true
	case id.Name == params[1]:
		return k, 1, true
	}
	return k, 0, false
}
