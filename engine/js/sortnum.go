package js

import (
	"cmp"
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// goja sorts with a comparator by calling it through the VM for every comparison, and moves
// array elements one swap at a time: xs.sort((a, b) => a - b) over 100,000 numbers took 780 ms
// (node: about 10 ms). The rewrite below turns X.sort(F), where F is a function literal of two
// parameters that returns a - b or b - a, into __rlm_sortNum(X, F, 1 or -1). The native
// function sorts in Go only what goja would sort in place without running any JS: an array
// whose sort is Array.prototype.sort, that goja holds as a dense array of plain values (its
// checkStdArrayObj, see stdArray), and whose elements are all primitive numbers or undefined,
// so that F would only ever compute a - b of two numbers. It sorts the elements as goja does
// (arraySortCtx: undefined last, the sign of a - b, a -0 result counting as negative) and
// writes them back. Anything else (a typed array, Number objects, strings, holes, accessors,
// an array with its own sort, a longer array than the bounds below) calls X.sort(F).

// sortNumName is the JS wrapper the rewritten calls call.
const sortNumName = "__rlm_sortNum"

// The longest arrays sorted in Go, where a cell's deadline cannot stop the sort (longer ones go
// to goja, whose calls of F check the deadline): numbers that sort by value (about 0.2 s at the
// bound), and those that need goja's own algorithm (NaN, -0, infinities: about 0.1 s).
const (
	maxSortNum       = 1 << 20
	maxSortNumStable = 1 << 16
)

// installSortNum defines __rlm_sortNum.
func (e *Engine) installSortNum() error {
	objectProto := e.vm.Get("Object").ToObject(e.vm).Get("prototype").ToObject(e.vm)
	arrayProto := e.vm.Get("Array").ToObject(e.vm).Get("prototype").ToObject(e.vm)
	hasOwn, ok := goja.AssertFunction(objectProto.Get("hasOwnProperty"))
	if !ok {
		return errors.New("no Object.prototype.hasOwnProperty")
	}
	sortKey := e.vm.ToValue("sort")
	native := e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		o, ok := call.Argument(0).(*goja.Object)
		if !ok || o.ClassName() != "Array" || !stdArray(o) || o.Prototype() != arrayProto {
			return goja.Undefined()
		}
		if own, err := hasOwn(o, sortKey); err != nil || own.ToBoolean() {
			return goja.Undefined()
		}
		n := o.Get("length").ToInteger()
		if n > maxSortNum {
			return goja.Undefined()
		}
		s := &numSort{dir: call.Argument(2).ToInteger(), vals: make([]goja.Value, n), nums: make([]num, n)}
		for i := range n {
			s.vals[i] = o.Get(strconv.FormatInt(i, 10)) // a plain value: no getter runs
			if s.nums[i] = numOf(s.vals[i]); s.nums[i].kind == 0 {
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
	})
	fn, err := e.wrap(`(native) => (x, f, dir) => { const r = native(x, f, dir); return r !== undefined ? r : x.sort(f) }`, native)
	if err != nil {
		return err
	}
	return e.vm.Set(sortNumName, fn)
}

// throwIf rethrows a JS exception a write or a delete raised.
func throwIf(err error) {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex.Value())
	}
	if err != nil {
		panic(err)
	}
}

// numSort is goja's arraySortCtx over a copy of the elements, with a - b (dir 1) or b - a
// (dir -1) computed in Go.
type numSort struct {
	vals []goja.Value
	nums []num // vals[i] read once
	dir  int64
}

// num is an element as the comparison sees it: undefined, a primitive integer or float as goja
// holds them, or any other value (kind 0).
type num struct {
	kind byte // 'u', 'i', 'f', or 0 for other
	i    int64
	f    float64
}

func numOf(v goja.Value) num {
	if v == nil {
		return num{}
	}
	if goja.IsUndefined(v) {
		return num{kind: 'u'}
	}
	if _, ok := v.(*goja.Object); ok { // a Number object has its own valueOf
		return num{}
	}
	switch x := v.Export().(type) {
	case int64:
		return num{kind: 'i', i: x}
	case float64:
		return num{kind: 'f', f: x}
	}
	return num{}
}

func (s *numSort) Len() int { return len(s.vals) }
func (s *numSort) Swap(i, j int) {
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
	s.nums[i], s.nums[j] = s.nums[j], s.nums[i]
}

func (s *numSort) Less(i, j int) bool {
	x, y := s.nums[i], s.nums[j]
	xu, yu := x.kind == 'u', y.kind == 'u'
	switch {
	case xu || yu:
		return !xu
	case s.dir < 0:
		x, y = y, x
	}
	d := numDiff(x, y)
	return d < 0 || d == 0 && math.Signbit(d)
}

// sort sorts the elements, and reports false for an array too long for the algorithm it needs.
func (s *numSort) sort() bool {
	switch {
	case s.plain():
		s.sortPlain()
	case len(s.vals) <= maxSortNumStable:
		sort.Stable(s) // goja's algorithm: the comparison is not a strict weak order
	default:
		return false
	}
	return true
}

// plain reports whether every element is a number whose order a - b decides consistently: not
// undefined, not NaN, not infinite (Infinity - Infinity is NaN), not -0 (goja counts a -0
// result as negative), an integer within ±2^53 (where int64 and float64 agree).
func (s *numSort) plain() bool {
	for _, x := range s.nums {
		switch {
		case x.kind == 'i' && (x.i > 1<<53 || x.i < -(1<<53)):
			return false
		case x.kind == 'f' && (math.IsNaN(x.f) || math.IsInf(x.f, 0) || x.f == 0 && math.Signbit(x.f)):
			return false
		case x.kind != 'i' && x.kind != 'f':
			return false
		}
	}
	return true
}

// sortPlain sorts numbers whose comparison is a strict weak order: any stable sort gives the one
// order sort.Stable gives, and sorting by (value, index) with pdqsort is one, in O(n log n)
// comparisons where sort.Stable moves elements O(n log² n) times.
func (s *numSort) sortPlain() {
	type key struct {
		v float64
		i int
	}
	keys := make([]key, len(s.nums))
	for i, x := range s.nums {
		keys[i] = key{x.f, i}
		if x.kind == 'i' {
			keys[i].v = float64(x.i)
		}
	}
	dir := 1.0
	if s.dir < 0 {
		dir = -1
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(dir*a.v, dir*b.v), a.i-b.i) })
	vals := make([]goja.Value, len(keys))
	for i, k := range keys {
		vals[i] = s.vals[k.i]
	}
	s.vals = vals
}

// numDiff is x - y for two numbers, as goja's subtraction computes it: in int64 for two
// integers (in float64 if that overflows), else in float64.
func numDiff(x, y num) float64 {
	switch {
	case x.kind == 'i' && y.kind == 'i':
		d := x.i - y.i
		if (x.i >= 0 && y.i < 0 && d < 0) || (x.i < 0 && y.i >= 0 && d >= 0) {
			return float64(x.i) - float64(y.i)
		}
		return float64(d)
	case x.kind == 'i':
		return float64(x.i) - y.f
	case y.kind == 'i':
		return x.f - float64(y.i)
	}
	return x.f - y.f
}

// stdArray reports whether goja holds o as it requires to sort an array in place
// (checkStdArrayObj in goja's builtin_array.go): an arrayObject with no accessor or
// non-default property among its elements and no holes. It reads goja's fields, and reports
// false when they are not where this version of goja keeps them.
func stdArray(o *goja.Object) bool {
	self := reflect.ValueOf(o).Elem().FieldByName("self")
	if !self.IsValid() || self.Kind() != reflect.Interface || self.IsNil() {
		return false
	}
	a := self.Elem()
	if a.Kind() != reflect.Pointer || a.Type().Elem().Name() != "arrayObject" {
		return false
	}
	a = a.Elem()
	values := a.FieldByName("values")
	props, okP := intField(a, "propValueCount")
	length, okL := intField(a, "length")
	objs, okO := intField(a, "objCount")
	return okP && okL && okO && values.IsValid() && values.Kind() == reflect.Slice &&
		props == 0 && length == int64(values.Len()) && objs == length
}

// intField reads an integer field of a struct by name.
func intField(v reflect.Value, name string) (int64, bool) {
	f := v.FieldByName(name)
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
// b - a of its two parameters into __rlm_sortNum(X, F, 1 or -1).
func rewriteSortNum(body []ast.Statement) {
	replaceBelow(reflect.ValueOf(body), expressionType, func(e any) any {
		c, ok := e.(*ast.CallExpression)
		if !ok || len(c.ArgumentList) != 1 {
			return nil
		}
		dot, ok := c.Callee.(*ast.DotExpression)
		if !ok || dot.Identifier.Name != "sort" {
			return nil
		}
		dir := numComparator(c.ArgumentList[0])
		if dir == 0 || !plainReceiver(dot.Left) {
			return nil
		}
		at := dot.Left.Idx0()
		return callOf(sortNumName, at, dot.Left, c.ArgumentList[0], number(dir, at))
	})
}

// numComparator is 1 for a function literal (a, b) => a - b, -1 for one returning b - a, and
// 0 for any other expression.
func numComparator(e ast.Expression) int {
	var params *ast.ParameterList
	var body ast.ConciseBody
	switch f := e.(type) {
	case *ast.ArrowFunctionLiteral:
		if f.Async {
			return 0
		}
		params, body = f.ParameterList, f.Body
	case *ast.FunctionLiteral:
		if f.Async || f.Generator {
			return 0
		}
		params, body = f.ParameterList, f.Body
	default:
		return 0
	}
	if params == nil || len(params.List) != 2 || params.Rest != nil {
		return 0
	}
	var names [2]string
	for i, p := range params.List {
		id, ok := p.Target.(*ast.Identifier)
		if !ok || p.Initializer != nil {
			return 0
		}
		names[i] = string(id.Name)
	}
	var ret ast.Expression
	switch b := body.(type) {
	case *ast.ExpressionBody:
		ret = b.Expression
	case *ast.BlockStatement:
		if len(b.List) != 1 {
			return 0
		}
		if r, ok := b.List[0].(*ast.ReturnStatement); ok {
			ret = r.Argument
		}
	}
	sub, ok := ret.(*ast.BinaryExpression)
	if !ok || sub.Operator != token.MINUS || names[0] == names[1] {
		return 0
	}
	l, ok1 := sub.Left.(*ast.Identifier)
	r, ok2 := sub.Right.(*ast.Identifier)
	switch {
	case !ok1 || !ok2:
		return 0
	case string(l.Name) == names[0] && string(r.Name) == names[1]:
		return 1
	case string(l.Name) == names[1] && string(r.Name) == names[0]:
		return -1
	}
	return 0
}
