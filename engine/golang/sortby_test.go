package golang

import (
	"bytes"
	"go/format"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine/golang/desugar"
	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// sortCases are sorts as models write them, each with the comparator literal the desugaring
// pass turns into a native sort (desugar/sortcmp.go): by a field either way, by a map's value
// with a tie-break, multi-key if-chains, cmp.Compare, cmp.Or, strings.Compare, subtraction, a
// length, a pointer's field, float keys with NaN, an inconsistent comparator (<=), and slices
// of plain values.
var sortCases = []struct{ slice, call, lit string }{
	{"rows", "sort.Slice", `func(i, j int) bool { return rows[i].n > rows[j].n }`},
	{"rows", "sort.Slice", `func(i, j int) bool { return rows[i].n < rows[j].n }`},
	{"rows", "sort.SliceStable", `func(i, j int) bool { return rows[i].n/1 > rows[j].n/1 }`}, // not translated: stays as written
	{"rows", "sort.SliceStable", `func(i, j int) bool { return rows[i].name < rows[j].name }`},
	{"rows", "sort.Slice", `func(i, j int) bool { return rows[i].n > rows[j].n || (rows[i].n == rows[j].n && rows[i].name < rows[j].name) }`},
	{"rows", "sort.Slice", `func(i, j int) bool {
	if rows[i].n != rows[j].n {
		return rows[i].n > rows[j].n
	}
	return rows[i].name < rows[j].name
}`},
	{"rows", "sort.Slice", `func(i, j int) bool { return rows[i].n <= rows[j].n }`},
	{"rows", "sort.Slice", `func(i, j int) bool { return len(rows[i].name) < len(rows[j].name) }`},
	{"rows", "sort.Slice", `func(i, j int) bool { return rows[i].score > rows[j].score }`},
	{"rows", "slices.SortFunc", `func(a, b row) int { return cmp.Compare(b.n, a.n) }`},
	{"rows", "slices.SortFunc", `func(a, b row) int { return cmp.Compare(a.score, b.score) }`},
	{"rows", "slices.SortFunc", `func(a, b row) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.name, b.name)) }`},
	{"rows", "slices.SortFunc", `func(a, b row) int { return a.n - b.n }`},
	{"rows", "slices.SortStableFunc", `func(a, b row) int { return -cmp.Compare(a.u, b.u) }`},
	{"rows", "slices.SortFunc", `func(a, b row) int {
	if a.n < b.n {
		return -1
	} else {
		return 1
	}
}`},
	{"ptrs", "sort.Slice", `func(i, j int) bool { return ptrs[i].n > ptrs[j].n }`},
	{"ptrs", "slices.SortFunc", `func(a, b *row) int { return cmp.Compare(a.name, b.name) }`},
	{"withNil", "sort.Slice", `func(i, j int) bool { return withNil[i].n > withNil[j].n }`}, // a nil pointer: the literal runs and panics
	{"keys", "sort.Slice", `func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] }`},
	{"keys", "sort.Slice", `func(i, j int) bool {
	if counts[keys[i]] != counts[keys[j]] {
		return counts[keys[i]] > counts[keys[j]]
	}
	return keys[i] < keys[j]
}`},
	{"keys", "slices.SortFunc", `func(a, b string) int { return cmp.Or(counts[b]-counts[a], cmp.Compare(a, b)) }`},
	{"nums", "sort.Slice", `func(i, j int) bool { return nums[i] > nums[j] }`},
	{"floats", "slices.SortFunc", `func(a, b float64) int { return cmp.Compare(b, a) }`},
}

// TestSortByAsInterpreted: each sort gives, element for element, what the same comparator gives
// when held in a variable first (which the pass leaves alone, so the interpreter calls it).
func TestSortByAsInterpreted(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	if r := s.run(`import ("cmp"; "fmt"; "math"; "slices"; "sort"; "strings")
type row struct {
	name  string
	n     int
	u     uint8
	score float64
}
var base []row
for i := range 3000 {
	score := float64(i%97) / 7
	if i%500 == 0 {
		score = math.NaN()
	}
	base = append(base, row{fmt.Sprint("r", i*7919%3001), i * 31 % 101, uint8(i), score})
}
counts := map[string]int{}
for _, r := range base {
	counts[r.name] += r.n % 7
}
var keys0 []string
for k := range counts {
	keys0 = append(keys0, k)
}
sort.Strings(keys0)
keys0 = append(keys0, "absent")`); r.Err != nil {
		t.Fatal(r.Err)
	}
	setup := `rows := slices.Clone(base)
ptrs := []*row{}
for i := range rows {
	ptrs = append(ptrs, &rows[len(rows)-1-i])
}
withNil := []*row{&rows[0], nil, &rows[1]}
keys := slices.Clone(keys0)
nums := []int{}
floats := []float64{}
for _, r := range base {
	nums = append(nums, r.n)
	floats = append(floats, r.score)
}
`
	show := map[string]string{
		"rows": `fmt.Println(rows)`, "ptrs": `for _, p := range ptrs { fmt.Print(*p) }`, "withNil": `fmt.Println(len(withNil))`,
		"keys": `fmt.Println(keys)`, "nums": `fmt.Println(nums)`, "floats": `fmt.Println(floats)`,
	}
	for _, c := range sortCases {
		direct := s.run("{\n" + setup + c.call + "(" + c.slice + ", " + c.lit + ")\n" + show[c.slice] + "\n}")
		viaVar := s.run("{\n" + setup + "f := " + c.lit + "\n" + c.call + "(" + c.slice + ", f)\n" + show[c.slice] + "\n}")
		if c.slice == "withNil" {
			if direct.Err == nil || viaVar.Err == nil || !strings.Contains(direct.Err.Error(), "nil pointer") {
				t.Errorf("%s: rewritten %v, interpreted %v: want both to fail on the nil pointer", c.lit, direct.Err, viaVar.Err)
			}
			continue
		}
		if direct.Err != nil || viaVar.Err != nil || direct.Stdout != viaVar.Stdout || len(direct.Stdout) < 100 {
			t.Errorf("%s(%s, %s):\nrewritten %.200q (%v)\ninterpreted %.200q (%v)", c.call, c.slice, c.lit, direct.Stdout, direct.Err, viaVar.Stdout, viaVar.Err)
		}
	}
}

// TestSortByIsNative: sort.Slice of 20,000 rows with a comparator literal takes at most a tenth
// of what the same comparator called by the interpreter takes (measured: about a fortieth).
func TestSortByIsNative(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	s := newTestSession(t, Config{}, "")
	if r := s.run(`import ("fmt"; "slices"; "sort")
type row struct {
	name string
	n    int
}
var base []row
for i := range 20000 {
	base = append(base, row{fmt.Sprint("r", i), i * 7919 % 20011})
}`); r.Err != nil {
		t.Fatal(r.Err)
	}
	timeIt := func(src string) time.Duration {
		start := time.Now()
		if r := s.run(src); r.Err != nil || r.Stdout != "20010\n" {
			t.Fatalf("%s: %q %v", src, r.Stdout, r.Err)
		}
		return time.Since(start)
	}
	var native, interp time.Duration
	for range 3 {
		native += timeIt(`{ rows := slices.Clone(base); sort.Slice(rows, func(i, j int) bool { return rows[i].n > rows[j].n }); print(rows[0].n) }`)
		interp += timeIt(`{ rows := slices.Clone(base); f := func(i, j int) bool { return rows[i].n > rows[j].n }; sort.Slice(rows, f); print(rows[0].n) }`)
	}
	t.Logf("native %v, interpreted %v", native/3, interp/3)
	if native*10 > interp {
		t.Errorf("the rewritten sort took %v, the interpreted one %v: want at most a tenth", native/3, interp/3)
	}
}

// TestSortByRewrite: which sorts the pass writes as a native sort, and the spec it writes.
func TestSortByRewrite(t *testing.T) {
	const decls = `import ("cmp"; "slices"; "sort"; "strings")
type row struct {
	name string
	n    int
	f    float64
	tags []string
}
var rows []row
var ptrs []*row
var keys []string
counts := map[string]int{}
other := []row{}
`
	for _, c := range []struct{ src, want string }{
		{`sort.Slice(rows, func(i, j int) bool { return rows[i].n > rows[j].n })`,
			`"(sort less (keys (int (field 1 4 x))) (gt i0 j0))"`},
		{`sort.SliceStable(ptrs, func(i, j int) bool { return len(ptrs[i].tags) < len(ptrs[j].tags) })`,
			`"(sort less-stable (keys (int (len (field 3 4 x)))) (lt i0 j0))"`},
		{`sort.Slice(keys, func(i, j int) bool { if counts[keys[i]] != counts[keys[j]] { return counts[keys[i]] > counts[keys[j]] }; return keys[i] < keys[j] })`,
			`"(sort less (keys (int (map 0 x)) (string x)) (if (ne i0 j0) (gt i0 j0) (lt i1 j1)))", counts`},
		{`slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.f, a.f), strings.Compare(a.name, b.name)) })`,
			`"(sort cmp (keys (float (field 2 4 x)) (string (field 0 4 x))) (first (compare j0 i0) (compare i1 j1)))"`},
		{`slices.SortStableFunc(rows, func(a, b row) int { return b.n - a.n })`,
			`"(sort cmp-stable (keys (int (field 1 4 x))) (sub j0 i0))"`},
		{`sort.Slice(rows, func(i, j int) bool { return other[i].n > other[j].n })`, ""}, // another slice
		{`sort.Slice(rows, func(i, j int) bool { return rows[i].n > 0 })`, ""},           // a constant operand
		{`sort.Slice(rows, func(i, j int) bool { return rows[i].n*2 > rows[j].n })`, ""}, // arithmetic
		{`sort.Slice(rows, func(i, j int) bool { println(i); return rows[i].n > rows[j].n })`, ""},
		{`sort.Slice(rows[1:], func(i, j int) bool { return rows[i].n > rows[j].n })`, ""}, // not a variable
		{`slices.SortFunc(rows, func(a, b row) int { return int(a.f - b.f) })`, ""},        // - on floats
		{`less := func(i, j int) bool { return rows[i].n > rows[j].n }; sort.Slice(rows, less)`, ""},
	} {
		got := desugaredBody(t, decls+c.src)
		i := strings.Index(got, "_sortBy(")
		switch {
		case c.want == "" && i >= 0:
			t.Errorf("%s: rewritten:\n%s", c.src, got[i:])
		case c.want != "" && !strings.Contains(got, "_sortBy("+c.src[strings.Index(c.src, "(")+1:strings.Index(c.src, ",")]+", "+c.want+")"):
			t.Errorf("%s: want _sortBy(…, %s), got:\n%s", c.src, c.want, got)
		}
	}
}

// desugaredBody validates, checks and desugars src in a fresh session and formats its body.
func desugaredBody(t *testing.T, src string) string {
	t.Helper()
	fset := token.NewFileSet()
	res, err := validator.Validate(source.Go, "cell.go", []byte(src), validator.Policy{}, validator.GoFileSet(fset))
	if err != nil || res.Go == nil || len(res.Findings) > 0 {
		t.Fatalf("%s: %v %v", src, err, res.Findings)
	}
	tc, err := typecheck.NewSession(library(), allowedImports(), prelude(nil, "ctx0", 2), bridgePath).Check(res.Go)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	d := desugar.New(desugar.NewSession(), res.Go, 1, tc)
	d.File(res.Go.Decls)
	d.Body(res.Go.Body)
	var b bytes.Buffer
	if err := format.Node(&b, fset, res.Go.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSortByUnhashableKey: a map lookup the literal never makes (one element; a tie-break not
// reached) does not fail the rewritten sort either.
func TestSortByUnhashableKey(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for _, src := range []string{
		`import ("fmt"; "sort")
{ S := []any{[]int{1}}; m := map[any]int{}; sort.Slice(S, func(i, j int) bool { return m[S[i]] < m[S[j]] }); fmt.Println(S) }`,
		`import ("fmt"; "sort")
type it struct { n int; k any }
{ S := []it{{2, []int{1}}, {1, 3}, {1, 4}}; m := map[any]int{3: 5}
sort.Slice(S, func(i, j int) bool { if S[i].n != S[j].n { return S[i].n < S[j].n }; return m[S[i].k] < m[S[j].k] }); fmt.Println(S) }`,
	} {
		if r := s.run(src); r.Err != nil || r.Stdout == "" {
			t.Errorf("%s: %q %v", src, r.Stdout, r.Err)
		}
	}
}
