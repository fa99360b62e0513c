package sortspec

import (
	"cmp"
	"reflect"
	"sort"
)

// Sort sorts the slice x as the spec's call would with the literal it was written from, maps
// being the map arguments its paths name. It reports false, having changed nothing, when x is
// not a slice or a key cannot be read as the spec says (a nil pointer on the way, a kind other
// than the key's, a struct of another shape, a map key that cannot be hashed): the caller then
// runs the call as written, whose comparator fails, or not, as it does.
func (s *Spec) Sort(x any, maps ...any) bool {
	v := reflect.ValueOf(x)
	if v.Kind() != reflect.Slice {
		return false
	}
	mv := make([]reflect.Value, len(maps))
	for i, m := range maps {
		if mv[i] = reflect.ValueOf(m); mv[i].Kind() != reflect.Map {
			return false
		}
	}
	n := v.Len()
	cols := make([]column, len(s.Keys))
	for k, key := range s.Keys {
		c, ok := key.column(v, n, mv)
		if !ok {
			return false
		}
		cols[k] = c
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var less func(a, b int) bool
	if s.Mode == "less" || s.Mode == "less-stable" {
		f := boolFunc(s.Expr, cols)
		less = func(a, b int) bool { return f(p[a], p[b]) }
	} else {
		f := intFunc(s.Expr, cols)
		less = func(a, b int) bool { return f(p[a], p[b]) < 0 }
	}
	// Sorting p runs the comparisons and the moves sorting x would: the same algorithm, fed the
	// same answers.
	if s.Mode == "less-stable" || s.Mode == "cmp-stable" {
		sort.SliceStable(p, less)
	} else {
		sort.Slice(p, less)
	}
	sorted := reflect.MakeSlice(v.Type(), n, n)
	for i, from := range p {
		sorted.Index(i).Set(v.Index(from))
	}
	reflect.Copy(v, sorted)
	return true
}

// column is one key of every element, in element order, in the slice of its kind.
type column struct {
	kind   string
	ints   []int64
	uints  []uint64
	floats []float64
	strs   []string
}

// column reads the key of each element of v.
func (k Key) column(v reflect.Value, n int, maps []reflect.Value) (column, bool) {
	c := column{kind: k.Kind}
	for i := range n {
		e, ok := read(k.Path, v.Index(i), maps)
		if !ok {
			return c, false
		}
		switch kind := e.Kind(); {
		case k.Kind == "int" && kind >= reflect.Int && kind <= reflect.Int64:
			c.ints = append(c.ints, e.Int())
		case k.Kind == "uint" && kind >= reflect.Uint && kind <= reflect.Uintptr:
			c.uints = append(c.uints, e.Uint())
		case k.Kind == "float" && (kind == reflect.Float32 || kind == reflect.Float64):
			c.floats = append(c.floats, e.Float())
		case k.Kind == "string" && kind == reflect.String:
			c.strs = append(c.strs, e.String())
		default:
			return c, false
		}
	}
	return c, true
}

// read follows a path from the element e.
func read(path *Node, e reflect.Value, maps []reflect.Value) (reflect.Value, bool) {
	if path.Op == "x" {
		return e, true
	}
	v, ok := read(path.Args[0], e, maps)
	if !ok {
		return v, false
	}
	switch path.Op {
	case "field":
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct || v.NumField() != path.M {
			return v, false
		}
		return v.Field(path.N), true
	case "len":
		switch v.Kind() {
		case reflect.String, reflect.Slice, reflect.Map, reflect.Array, reflect.Chan:
			return reflect.ValueOf(v.Len()), true
		}
	case "map":
		if path.N >= len(maps) {
			return v, false
		}
		m := maps[path.N]
		if !v.Type().AssignableTo(m.Type().Key()) || !v.Comparable() {
			return v, false // an unhashable key in an interface: the literal's lookup would panic
		}
		if r := m.MapIndex(v); r.IsValid() {
			return r, true
		}
		return reflect.Zero(m.Type().Elem()), true
	}
	return v, false
}

// boolFunc compiles a bool expression over the columns.
func boolFunc(n *Node, cols []column) func(a, b int) bool {
	switch n.Op {
	case "true":
		return func(int, int) bool { return true }
	case "false":
		return func(int, int) bool { return false }
	case "and":
		x, y := boolFunc(n.Args[0], cols), boolFunc(n.Args[1], cols)
		return func(a, b int) bool { return x(a, b) && y(a, b) }
	case "or":
		x, y := boolFunc(n.Args[0], cols), boolFunc(n.Args[1], cols)
		return func(a, b int) bool { return x(a, b) || y(a, b) }
	case "not":
		x := boolFunc(n.Args[0], cols)
		return func(a, b int) bool { return !x(a, b) }
	case "if":
		c, x, y := boolFunc(n.Args[0], cols), boolFunc(n.Args[1], cols), boolFunc(n.Args[2], cols)
		return func(a, b int) bool {
			if c(a, b) {
				return x(a, b)
			}
			return y(a, b)
		}
	}
	l, r := n.Args[0], n.Args[1]
	x, y := cols[l.Key], cols[r.Key] // of one kind (Parse)
	switch x.kind {
	case "int":
		return compareOp(n.Op, l, r, x.ints, y.ints)
	case "uint":
		return compareOp(n.Op, l, r, x.uints, y.uints)
	case "float":
		return compareOp(n.Op, l, r, x.floats, y.floats)
	}
	return compareOp(n.Op, l, r, x.strs, y.strs)
}

// at picks the element an operand names: a for i, b for j.
func at(o *Node, a, b int) int {
	if o.Side == 'i' {
		return a
	}
	return b
}

// compareOp is the comparison op of two operands with Go's operators (NaN unordered).
func compareOp[T cmp.Ordered](op string, l, r *Node, xs, ys []T) func(a, b int) bool {
	get := func(a, b int) (T, T) { return xs[at(l, a, b)], ys[at(r, a, b)] }
	switch op {
	case "eq":
		return func(a, b int) bool { x, y := get(a, b); return x == y }
	case "ne":
		return func(a, b int) bool { x, y := get(a, b); return x != y }
	case "lt":
		return func(a, b int) bool { x, y := get(a, b); return x < y }
	case "le":
		return func(a, b int) bool { x, y := get(a, b); return x <= y }
	case "gt":
		return func(a, b int) bool { x, y := get(a, b); return x > y }
	}
	return func(a, b int) bool { x, y := get(a, b); return x >= y }
}

// intFunc compiles an int expression over the columns.
func intFunc(n *Node, cols []column) func(a, b int) int {
	switch n.Op {
	case "int":
		v := n.N
		return func(int, int) int { return v }
	case "neg":
		x := intFunc(n.Args[0], cols)
		return func(a, b int) int { return -x(a, b) }
	case "first": // cmp.Or: the first that is not zero
		fs := make([]func(a, b int) int, len(n.Args))
		for i, a := range n.Args {
			fs[i] = intFunc(a, cols)
		}
		return func(a, b int) int {
			for _, f := range fs {
				if v := f(a, b); v != 0 {
					return v
				}
			}
			return 0
		}
	case "if":
		c, x, y := boolFunc(n.Args[0], cols), intFunc(n.Args[1], cols), intFunc(n.Args[2], cols)
		return func(a, b int) int {
			if c(a, b) {
				return x(a, b)
			}
			return y(a, b)
		}
	case "sub":
		l, r := n.Args[0], n.Args[1]
		xs, ys := cols[l.Key].ints, cols[r.Key].ints
		return func(a, b int) int { return int(xs[at(l, a, b)] - ys[at(r, a, b)]) }
	}
	l, r := n.Args[0], n.Args[1]
	x, y := cols[l.Key], cols[r.Key]
	switch x.kind {
	case "int":
		return compareFunc(l, r, x.ints, y.ints)
	case "uint":
		return compareFunc(l, r, x.uints, y.uints)
	case "float":
		return compareFunc(l, r, x.floats, y.floats)
	}
	return compareFunc(l, r, x.strs, y.strs)
}

func compareFunc[T cmp.Ordered](l, r *Node, xs, ys []T) func(a, b int) int {
	return func(a, b int) int { return cmp.Compare(xs[at(l, a, b)], ys[at(r, a, b)]) }
}
