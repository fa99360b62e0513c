package sortspec

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
)

var specs = []string{
	"(sort less (keys (int (field 1 2 x))) (gt i0 j0))",
	"(sort less-stable (keys (int (len (field 0 2 x)))) (lt i0 j0))",
	"(sort less (keys (int (map 0 x)) (string x)) (if (ne i0 j0) (gt i0 j0) (lt i1 j1)))",
	"(sort cmp (keys (float (field 1 2 x)) (string (field 0 2 x))) (first (compare j0 i0) (compare i1 j1)))",
	"(sort cmp-stable (keys (int x)) (sub j0 i0))",
	"(sort cmp (keys (uint x)) (if (lt i0 j0) (int -1) (if (gt i0 j0) (int 1) (int 0))))",
	"(sort cmp (keys (int x)) (neg (compare i0 j0)))",
	"(sort less (keys) true)",
	"(sort less (keys (string x)) (or (and (eq i0 j0) false) (not (ge i0 j0))))",
}

// TestParseRoundTrip: Parse reads what String writes.
func TestParseRoundTrip(t *testing.T) {
	for _, src := range specs {
		s, err := Parse(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got := s.String(); got != src {
			t.Errorf("Parse(%s).String() = %s", src, got)
		}
	}
}

// TestParseRefuses: what is not a spec.
func TestParseRefuses(t *testing.T) {
	for _, src := range []string{
		"", "(sort less (keys) true", "(sort fast (keys) true)", "(sort less (keys (bool x)) true)",
		"(sort less (keys (int x)) (gt i0 j1))", "(sort less (keys (int x) (string x)) (lt i0 j1))",
		"(sort cmp (keys (string x)) (sub i0 j0))", "(sort less (keys (int x)) (int 1))",
		"(sort cmp (keys (int x)) true)", "(sort less (keys (int (field 2 2 x))) true)",
		"(sort less (keys (int (frob x))) true)", "(sort less (keys (int y)) true)",
		"(sort less (keys (int x)) (lt i00 j0))", "(sort less (keys (int x)) (lt k0 j0))",
		"(sort less (keys) true) x", strings.Repeat("(not ", 300) + "true" + strings.Repeat(")", 300),
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("Parse(%q) took it", src)
		}
	}
}

// FuzzParse: Parse never panics, and what it reads it writes back the same.
func FuzzParse(f *testing.F) {
	for _, s := range specs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil || again.String() != s.String() {
			t.Errorf("%q: %q then %v", src, s.String(), err)
		}
	})
}

type item struct {
	name  string
	n     int
	score float64
	tags  []string
}

// TestSortAsGo: sorting with a spec gives, element for element, what sort.Slice or
// sort.SliceStable gives with the comparator the spec was written from, over data with ties,
// NaNs, values absent from the map, and an inconsistent comparator.
func TestSortAsGo(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var base []item
	counts := map[string]int{}
	for i := range 2000 {
		it := item{name: string(rune('a'+rng.Intn(26))) + string(rune('a'+rng.Intn(26))), n: rng.Intn(50), score: float64(rng.Intn(40)) / 3, tags: make([]string, rng.Intn(4))}
		if i%97 == 0 {
			it.score = math.NaN()
		}
		if i%3 == 0 {
			counts[it.name] = rng.Intn(9)
		}
		base = append(base, it)
	}
	cases := []struct {
		spec   string
		stable bool
		less   func(x []item) func(i, j int) bool
	}{
		{"(sort less (keys (int (field 1 4 x))) (gt i0 j0))", false, func(x []item) func(i, j int) bool {
			return func(i, j int) bool { return x[i].n > x[j].n }
		}},
		{"(sort less-stable (keys (int (len (field 3 4 x)))) (lt i0 j0))", true, func(x []item) func(i, j int) bool {
			return func(i, j int) bool { return len(x[i].tags) < len(x[j].tags) }
		}},
		{"(sort less (keys (int (map 0 (field 0 4 x))) (string (field 0 4 x))) (if (ne i0 j0) (gt i0 j0) (lt i1 j1)))", false, func(x []item) func(i, j int) bool {
			return func(i, j int) bool {
				if counts[x[i].name] != counts[x[j].name] {
					return counts[x[i].name] > counts[x[j].name]
				}
				return x[i].name < x[j].name
			}
		}},
		{"(sort less (keys (float (field 2 4 x))) (le i0 j0))", false, func(x []item) func(i, j int) bool {
			return func(i, j int) bool { return x[i].score <= x[j].score }
		}},
		{"(sort cmp (keys (float (field 2 4 x)) (string (field 0 4 x))) (first (compare j0 i0) (compare i1 j1)))", false, func(x []item) func(i, j int) bool {
			return func(i, j int) bool {
				return cmp.Or(cmp.Compare(x[j].score, x[i].score), cmp.Compare(x[i].name, x[j].name)) < 0
			}
		}},
		{"(sort cmp-stable (keys (int (field 1 4 x))) (sub j0 i0))", true, func(x []item) func(i, j int) bool {
			return func(i, j int) bool { return x[j].n-x[i].n < 0 }
		}},
	}
	for _, c := range cases {
		s, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, want := slices.Clone(base), slices.Clone(base)
		if !s.Sort(got, counts) {
			t.Errorf("%s: declined", c.spec)
			continue
		}
		if c.stable {
			sort.SliceStable(want, c.less(want))
		} else {
			sort.Slice(want, c.less(want))
		}
		for i := range got {
			if got[i].name != want[i].name || got[i].n != want[i].n || len(got[i].tags) != len(want[i].tags) ||
				got[i].score != want[i].score && !(math.IsNaN(got[i].score) && math.IsNaN(want[i].score)) {
				t.Errorf("%s: element %d is %v, Go's %v", c.spec, i, got[i], want[i])
				break
			}
		}
	}
}

// TestSortDeclines: what Sort leaves alone, unchanged.
func TestSortDeclines(t *testing.T) {
	one := "(sort less (keys (int (field 1 4 x))) (gt i0 j0))"
	x := 1
	for _, c := range []struct {
		spec string
		x    any
		maps []any
	}{
		{one, 5, nil},                                                  // not a slice
		{one, []*item{{n: 1}, nil}, nil},                               // a nil pointer on the way
		{one, []struct{ a, b int }{{1, 2}, {3, 4}}, nil},               // a struct of another shape
		{"(sort less (keys (string x)) (lt i0 j0))", []int{2, 1}, nil}, // another kind
		{"(sort less (keys (int (map 0 x))) (lt i0 j0))", []int{2, 1}, []any{map[string]int{}}},     // key type
		{"(sort less (keys (int (map 0 x))) (lt i0 j0))", []int{2, 1}, []any{&x}},                   // not a map
		{"(sort less (keys (int (map 1 x))) (lt i0 j0))", []int{2, 1}, []any{map[int]int{}}},        // no such map
		{"(sort less (keys (int (len x))) (lt i0 j0))", []int{2, 1}, nil},                           // len of an int
		{"(sort less (keys (int (map 0 x))) (lt i0 j0))", []any{[]int{1}, 2}, []any{map[any]int{}}}, // an unhashable key
	} {
		s, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		before := fmtAny(c.x)
		if s.Sort(c.x, c.maps...) {
			t.Errorf("%s on %s: sorted", c.spec, before)
		}
		if after := fmtAny(c.x); after != before {
			t.Errorf("%s: changed %s to %s", c.spec, before, after)
		}
	}
}

func fmtAny(x any) string { return fmt.Sprintf("%v", x) }
