package golang

// The generic packages cmp, maps and slices cannot be exposed from compiled code (yaegi cannot
// instantiate compiled generics), so the engine compiles these interpreted versions at start.
//
// yaegi v0.16.1 infers type arguments positionally, from the order in which type parameters
// occur in the parameter list, and does not infer them from constraints such as ~[]E. Every
// function below therefore takes plain []E or map[K]V parameters whose type parameters occur in
// declaration order. Iterators are func(yield func(...) bool); ranging over them is rewritten by
// the desugaring pass. A generic function returning a function literal directly does not compile
// in yaegi, so iterators are assigned to a variable first.

const cmpSource = `package cmp

type Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func isNaN[T Ordered](x T) bool { return x != x }

func Less[T Ordered](x, y T) bool { return (isNaN(x) && !isNaN(y)) || x < y }

func Compare[T Ordered](x, y T) int {
	xNaN, yNaN := isNaN(x), isNaN(y)
	if xNaN {
		if yNaN {
			return 0
		}
		return -1
	}
	if yNaN {
		return +1
	}
	if x < y {
		return -1
	}
	if x > y {
		return +1
	}
	return 0
}

func Or[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}
`

const mapsSource = `package maps

func Keys[K comparable, V any](m map[K]V) func(yield func(K) bool) {
	f := func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
	return f
}

func Values[K comparable, V any](m map[K]V) func(yield func(V) bool) {
	f := func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
	return f
}

func All[K comparable, V any](m map[K]V) func(yield func(K, V) bool) {
	f := func(yield func(K, V) bool) {
		for k, v := range m {
			if !yield(k, v) {
				return
			}
		}
	}
	return f
}

func Clone[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func Copy[K comparable, V any](dst map[K]V, src map[K]V) {
	for k, v := range src {
		dst[k] = v
	}
}

func Equal[K comparable, V comparable](m1 map[K]V, m2 map[K]V) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || v1 != v2 {
			return false
		}
	}
	return true
}

func EqualFunc[K comparable, V1 any, V2 any](m1 map[K]V1, m2 map[K]V2, eq func(V1, V2) bool) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || !eq(v1, v2) {
			return false
		}
	}
	return true
}

func DeleteFunc[K comparable, V any](m map[K]V, del func(K, V) bool) {
	for k, v := range m {
		if del(k, v) {
			delete(m, k)
		}
	}
}

func Collect[K comparable, V any](seq func(yield func(K, V) bool)) map[K]V {
	out := map[K]V{}
	seq(func(k K, v V) bool {
		out[k] = v
		return true
	})
	return out
}

func Insert[K comparable, V any](m map[K]V, seq func(yield func(K, V) bool)) {
	seq(func(k K, v V) bool {
		m[k] = v
		return true
	})
}
`

const slicesSource = `package slices

import (
	"cmp"
	"sort"
)

func All[E any](s []E) func(yield func(int, E) bool) {
	f := func(yield func(int, E) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
	return f
}

func Values[E any](s []E) func(yield func(E) bool) {
	f := func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
	return f
}

func Backward[E any](s []E) func(yield func(int, E) bool) {
	f := func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
	return f
}

func Collect[E any](seq func(yield func(E) bool)) []E {
	var out []E
	seq(func(v E) bool {
		out = append(out, v)
		return true
	})
	return out
}

func AppendSeq[E any](s []E, seq func(yield func(E) bool)) []E {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

func Sorted[E cmp.Ordered](seq func(yield func(E) bool)) []E {
	s := Collect(seq)
	Sort(s)
	return s
}

func SortedFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E {
	s := Collect(seq)
	SortFunc(s, cmp)
	return s
}

func Sort[E cmp.Ordered](x []E) {
	switch v := any(x).(type) {
	case []int:
		sort.Ints(v)
	case []string:
		sort.Strings(v)
	case []float64:
		sort.Float64s(v)
	default:
		sort.Slice(x, func(i, j int) bool { return cmp.Less(x[i], x[j]) })
	}
}

// SortFunc runs the algorithm compiled slices.SortFunc runs (sort.Slice's pattern-defeating
// quicksort), so equal elements end where compiled Go puts them.
func SortFunc[E any](x []E, cmp func(a, b E) int) {
	sort.Slice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func SortStableFunc[E any](x []E, cmp func(a, b E) int) {
	sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func IsSorted[E cmp.Ordered](x []E) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp.Less(x[i], x[i-1]) {
			return false
		}
	}
	return true
}

func IsSortedFunc[E any](x []E, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

func BinarySearch[E cmp.Ordered](x []E, target E) (int, bool) {
	i := sort.Search(len(x), func(i int) bool { return cmp.Compare(x[i], target) >= 0 })
	return i, i < len(x) && cmp.Compare(x[i], target) == 0
}

func BinarySearchFunc[E any, T any](x []E, target T, cmp func(E, T) int) (int, bool) {
	i := sort.Search(len(x), func(i int) bool { return cmp(x[i], target) >= 0 })
	return i, i < len(x) && cmp(x[i], target) == 0
}

func Min[E cmp.Ordered](x []E) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v < m || v != v {
			m = v
		}
	}
	return m
}

func Max[E cmp.Ordered](x []E) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v > m || v != v {
			m = v
		}
	}
	return m
}

func MinFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) < 0 {
			m = v
		}
	}
	return m
}

func MaxFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) > 0 {
			m = v
		}
	}
	return m
}

func Index[E comparable](s []E, v E) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}

func IndexFunc[E any](s []E, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

func Contains[E comparable](s []E, v E) bool { return Index(s, v) >= 0 }

func ContainsFunc[E any](s []E, f func(E) bool) bool { return IndexFunc(s, f) >= 0 }

func Equal[E comparable](s1 []E, s2 []E) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

func EqualFunc[E1 any, E2 any](s1 []E1, s2 []E2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	return true
}

func Compare[E cmp.Ordered](s1 []E, s2 []E) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp.Compare(v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

func CompareFunc[E1 any, E2 any](s1 []E1, s2 []E2, cmp func(E1, E2) int) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp(v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

func Reverse[E any](s []E) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func Clone[E any](s []E) []E {
	if s == nil {
		return nil
	}
	return append([]E{}, s...)
}

func Compact[E comparable](s []E) []E {
	if len(s) < 2 {
		return s
	}
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

func CompactFunc[E any](s []E, eq func(E, E) bool) []E {
	if len(s) < 2 {
		return s
	}
	out := s[:1]
	for _, v := range s[1:] {
		if !eq(out[len(out)-1], v) {
			out = append(out, v)
		}
	}
	return out
}

func Insert[E any](s []E, i int, v ...E) []E {
	if i < 0 || i > len(s) {
		panic("slices.Insert: index out of range")
	}
	out := make([]E, 0, len(s)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	return append(out, s[i:]...)
}

func Delete[E any](s []E, i int, j int) []E {
	if i < 0 || j > len(s) || i > j {
		panic("slices.Delete: index out of range")
	}
	return append(s[:i], s[j:]...)
}

func DeleteFunc[E any](s []E, del func(E) bool) []E {
	out := s[:0]
	for _, v := range s {
		if !del(v) {
			out = append(out, v)
		}
	}
	return out
}

func Replace[E any](s []E, i int, j int, v ...E) []E {
	if i < 0 || j > len(s) || i > j {
		panic("slices.Replace: index out of range")
	}
	out := make([]E, 0, len(s)-(j-i)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	return append(out, s[j:]...)
}

func Concat[E any](ss ...[]E) []E {
	var out []E
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

func Repeat[E any](x []E, count int) []E {
	if count < 0 {
		panic("slices.Repeat: negative count")
	}
	out := make([]E, 0, len(x)*count)
	for i := 0; i < count; i++ {
		out = append(out, x...)
	}
	return out
}

func Grow[E any](s []E, n int) []E {
	if n < 0 {
		panic("slices.Grow: negative n")
	}
	if cap(s)-len(s) < n {
		out := make([]E, len(s), len(s)+n)
		copy(out, s)
		return out
	}
	return s
}

func Clip[E any](s []E) []E { return s[:len(s):len(s)] }

func Chunk[E any](s []E, n int) func(yield func([]E) bool) {
	if n < 1 {
		panic("slices.Chunk: n must be at least 1")
	}
	f := func(yield func([]E) bool) {
		for i := 0; i < len(s); i += n {
			end := i + n
			if end > len(s) {
				end = len(s)
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
	return f
}
`

// sourcePackageText holds the sources by import path.
var sourcePackageText = map[string]string{"cmp": cmpSource, "maps": mapsSource, "slices": slicesSource}
