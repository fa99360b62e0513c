package js

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/unistring"
)

// sortKey is one difference of a comparator F = (a, b) => D1 || D2 || …: Di is a.K - b.K
// (dir 1) or b.K - a.K (dir -1), where K reads the element itself (kind 0), its property name
// (kind '.') or its element idx (kind '[').
type sortKey struct {
	dir   int
	kind  byte
	name  string
	uname unistring.String // name as goja keys its properties
	idx   int
}

// maxSortKeys bounds the differences of one comparator.
const maxSortKeys = 8

// String is the key as parseSortKeys reads it: a sign, then nothing, .name or [idx].
func (k sortKey) String() string {
	sign := "+"
	if k.dir < 0 {
		sign = "-"
	}
	switch k.kind {
	case '.':
		return sign + "." + k.name
	case '[':
		return sign + "[" + strconv.Itoa(k.idx) + "]"
	}
	return sign
}

// parseSortKeys reads the keys the rewrite writes, separated by commas; the element itself
// only alone.
func parseSortKeys(spec string) ([]sortKey, bool) {
	var keys []sortKey
	for _, item := range strings.Split(spec, ",") {
		if item == "" || (item[0] != '+' && item[0] != '-') || len(keys) == maxSortKeys {
			return nil, false
		}
		k := sortKey{dir: 1}
		if item[0] == '-' {
			k.dir = -1
		}
		switch rest := item[1:]; {
		case rest == "":
		case rest[0] == '.' && len(rest) > 1:
			k.kind, k.name, k.uname = '.', rest[1:], unistring.NewFromString(rest[1:])
		case rest[0] == '[' && strings.HasSuffix(rest, "]"):
			n, err := strconv.Atoi(rest[1 : len(rest)-1])
			if err != nil || n < 0 || n > 1<<20 {
				return nil, false
			}
			k.kind, k.idx = '[', n
		default:
			return nil, false
		}
		keys = append(keys, k)
	}
	if len(keys) > 1 && slices.ContainsFunc(keys, func(k sortKey) bool { return k.kind == 0 }) {
		return nil, false
	}
	return keys, true
}

// numSort is goja's arraySortCtx over a copy of the elements, with F computed in Go from the
// keys of each element, read once (nums holds element i's keys at i*len(keys)).
type numSort struct {
	vals []goja.Value
	keys []sortKey
	nums []num
}

// num is a key as the comparison sees it: undefined, a primitive integer or float as goja
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

// read reads element i's keys, reporting false for one that cannot be read without running JS
// or is not a primitive number (undefined only as the element itself, which sorts last).
func (s *numSort) read(i int) bool {
	for t, k := range s.keys {
		v, ok := keyValue(s.vals[i], k)
		if !ok {
			return false
		}
		x := numOf(v)
		if x.kind == 0 || x.kind == 'u' && k.kind != 0 {
			return false
		}
		s.nums[i*len(s.keys)+t] = x
	}
	return true
}

// keyValue reads a key of the element v where reading it runs no JS: v itself; an own data
// property of a plain object (no getter, no proxy); an element of a dense plain array.
func keyValue(v goja.Value, k sortKey) (goja.Value, bool) {
	if k.kind == 0 {
		return v, true
	}
	o, ok := v.(*goja.Object)
	switch {
	case !ok:
		return nil, false
	case k.kind == '.' && ownDataProperty(o, k.uname):
		return o.Get(k.name), true
	case k.kind == '[' && stdArray(o) && o.Get("length").ToInteger() > int64(k.idx):
		return o.Get(strconv.Itoa(k.idx)), true
	}
	return nil, false
}

// ownDataProperty reports whether o is an ordinary object (goja's baseObject: an object literal,
// JSON.parse's, a class instance) with an own property name holding a plain value, not an
// accessor. It reads goja's fields, and reports false when they are not where this version of
// goja keeps them.
func ownDataProperty(o *goja.Object, name unistring.String) bool {
	b, ok := gojaSelf(o, "baseObject")
	if !ok {
		return false
	}
	values := field(b, "values")
	if !values.IsValid() || values.Kind() != reflect.Map || values.Type().Key() != unistringType {
		return false
	}
	p := values.MapIndex(reflect.ValueOf(name))
	if !p.IsValid() || p.Kind() != reflect.Interface || p.IsNil() {
		return false
	}
	return p.Elem().Type().String() != "*goja.valueProperty"
}

var unistringType = reflect.TypeOf(unistring.String(""))

func (s *numSort) Len() int { return len(s.vals) }
func (s *numSort) Swap(i, j int) {
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
	k := len(s.keys)
	for t := range k {
		s.nums[i*k+t], s.nums[j*k+t] = s.nums[j*k+t], s.nums[i*k+t]
	}
}

// Less is goja's sortCompare(x, y) < 0: undefined elements last, else F's result, negative or -0.
func (s *numSort) Less(i, j int) bool {
	k := len(s.keys)
	if k == 1 && s.keys[0].kind == 0 {
		xu, yu := s.nums[i].kind == 'u', s.nums[j].kind == 'u'
		if xu || yu {
			return !xu
		}
	}
	var d float64
	for t, key := range s.keys {
		x, y := s.nums[i*k+t], s.nums[j*k+t]
		if key.dir < 0 {
			x, y = y, x
		}
		if d = numDiff(x, y); d != 0 && !math.IsNaN(d) {
			break // D1 || D2: the first that is truthy, else the last
		}
	}
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

// plain reports whether every key is a number whose order a - b decides consistently: not
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

// sortPlain sorts elements whose comparison is a strict weak order (F's sign is that of the
// first key that differs): any stable sort gives the one order sort.Stable gives, and sorting by
// (keys, index) with pdqsort is one, in O(n log n) comparisons where sort.Stable moves elements
// O(n log² n) times.
func (s *numSort) sortPlain() {
	k := len(s.keys)
	vs := make([]float64, len(s.nums))
	for i, x := range s.nums {
		vs[i] = x.f
		if x.kind == 'i' {
			vs[i] = float64(x.i)
		}
		if s.keys[i%k].dir < 0 {
			vs[i] = -vs[i]
		}
	}
	order := make([]int, len(s.vals))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		for t := range k {
			if c := cmp.Compare(vs[a*k+t], vs[b*k+t]); c != 0 {
				return c
			}
		}
		return a - b
	})
	vals := make([]goja.Value, len(order))
	for i, from := range order {
		vals[i] = s.vals[from]
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
