package golang

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

// TestModelConstructs runs constructs as models write them, each in a fresh session, and checks
// the exact output of the last cell (notices of added imports included). Every want here is
// what the same code prints compiled by Go (checked with go run when the table was written;
// the API's print is fmt.Println). On main before the typed front end, most failed: see the
// report of issue 10.
func TestModelConstructs(t *testing.T) {
	cases := []struct {
		name  string
		cells []string
		want  string
		final string
	}{
		{"missing import at top level", []string{`text := "a,b\nc,d\nERROR x"
parts := strings.Split(text, ",")
print(len(parts))`}, "added import \"strings\"\n3\n", ""},
		{"missing import in a function", []string{`func countWords(s string) int {
	return len(strings.Fields(s))
}
print(countWords("a b c"))`}, "added import \"strings\"\n3\n", ""},
		{"missing imports in a loop (strings, fmt)", []string{`n := 0
for _, l := range strings.Split("ok\nERROR a\nERROR b", "\n") {
	if strings.Contains(l, "ERROR") {
		n++
	}
}
fmt.Println("errors:", n)`}, "added imports \"strings\", \"fmt\"\nerrors: 2\n", ""},
		{"missing imports sort and strconv", []string{`keys := []string{"b", "a"}
sort.Strings(keys)
v, _ := strconv.Atoi("42")
print(keys, v)`}, "added imports \"sort\", \"strconv\"\n[a b] 42\n", ""},
		{"top-level := from an index of a function result", []string{`import "strings"
line := "alice,30,paris"
parts := strings.Split(line, ",")
name := parts[0]
print(name)`}, "alice\n", ""},
		{"strings.Split(x, \",\")[0]", []string{`import "strings"
first := strings.Split("x,y,z", ",")[0]
print(first)`}, "x\n", ""},
		{"variadic generic function", []string{`func Sum[T int | float64](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}
print(Sum(1, 2, 3), Sum(1.5, 2.5))`}, "6 4\n", ""},
		{"range over a string, as Go decodes it", []string{`type Name string
s := "h\u00e9,\u4e16\xffz"
for i, r := range s {
	print(i, r)
}
n := 0
for range s {
	n++
}
var idx []int
for i := range s {
	idx = append(idx, i)
}
print(n, idx)
var fs []func() int
for i, r := range "ab" {
	fs = append(fs, func() int { return i*1000 + int(r) })
}
print(fs[0](), fs[1]())
out := ""
outer:
for _, w := range []string{"abc", "xyz"} {
	for i, r := range w {
		if r == 'b' {
			continue
		}
		if r == 'y' {
			continue outer
		}
		if i == 2 {
			break outer
		}
		out += string(r)
	}
}
print(out)
var k int
var v rune
for k, v = range Name("go") {
}
print(k, v)
cnt := 0
for _, r := range "a1b2" {
	if r >= '0' && r <= '9' {
		goto next
	}
	cnt++
next:
}
print(cnt)`}, "0 104\n1 233\n3 44\n4 19990\n7 65533\n8 122\n6 [0 1 3 4 7 8]\n97 1098\na\n1 111\n2\n", ""},
		{"range over a string where utf8 names a variable", []string{`utf8 := "x"
total := 0
for i, r := range "a\u00e9b" {
	total += i + int(r)
}
print(utf8, total)`}, "x 432\n", ""},
		{"generic calls with inferred type arguments in composite literals, and as values", []string{`type ship struct {
	name   string
	active bool
}

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func Keys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

ships := []ship{{"a", true}, {"b", false}, {"c", true}}
groups := [][]ship{Filter(ships, func(s ship) bool { return s.active })}
keys := [][]string{Keys(map[string]int{"x": 1, "y": 2})}
var keep func([]ship, func(ship) bool) []ship = Filter
fmt.Println(len(groups[0]), keys, len(keep(ships, func(s ship) bool { return !s.active })))`}, "added imports \"sort\", \"fmt\"\n2 [[x y]] 1\n", ""},
		{"range over endless iterators left by goto, outer break and continue, and return", []string{`package main

import "fmt"

func Naturals() func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func Pairs(n int) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for i := 0; i < n; i++ {
			if !yield(i, fmt.Sprint("p", i)) {
				return
			}
		}
	}
}

func firstBig() int {
	for n := range Naturals() {
		if n*n > 50 {
			return n
		}
	}
	return -1
}

func main() {
	found := -1
	for n := range Naturals() {
		if n > 2 && n%7 == 0 {
			found = n
			goto done
		}
	}
done:
	fmt.Println("found", found)
	out := ""
outer:
	for _, w := range []string{"a", "b", "c"} {
		for i, p := range Pairs(5) {
			if w == "b" && i == 1 {
				continue outer
			}
			if w == "c" {
				switch {
				case i == 2:
					break outer
				}
			}
			out += w + p + " "
		}
	}
	fmt.Println(out)
	skipped := 0
	for n := range Naturals() {
		if n%2 == 0 {
			goto next
		}
		skipped++
	next:
		if n > 9 {
			break
		}
	}
	fmt.Println(skipped, firstBig())
}`}, "found 7\nap0 ap1 ap2 ap3 ap4 bp0 cp0 cp1 \n5 8\n", ""},
		{"functions use the top-level variables of their own cell", []string{`type row struct {
	name string
	n    int
}
lines := strings.Split("a 1\nb 2\nc 3", "\n")
rows := []row{}
func parse(l string) row {
	f := strings.Fields(l)
	n, _ := strconv.Atoi(f[1])
	return row{f[0], n}
}
func total() int {
	t := 0
	for _, r := range rows {
		t += r.n
	}
	return t + len(lines)
}
for _, l := range lines {
	rows = append(rows, parse(l))
}
print(total())`, `rows = append(rows, row{"d", 4})
print(total(), len(rows))`}, "13 4\n", ""},
		{"range over a function iterator", []string{`func Count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}
total := 0
for v := range Count(5) {
	total += v
}
print(total)`}, "10\n", ""},
		{"range over an endless iterator with break", []string{`func Naturals() func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			if !yield(i) {
				return
			}
		}
	}
}
for n := range Naturals() {
	if n > 3 {
		break
	}
	print(n)
}`}, "0\n1\n2\n3\n", ""},
		{"range over slices.All", []string{`import "slices"
xs := []string{"a", "b"}
for i, v := range slices.All(xs) {
	print(i, v)
}`}, "0 a\n1 b\n", ""},
		{"range over strings.SplitSeq", []string{`import "strings"
n := 0
for part := range strings.SplitSeq("a,b,c", ",") {
	n += len(part)
}
print(n)`}, "3\n", ""},
		{"return from inside range-over-func", []string{`func firstLong(words []string) string {
	for w := range slices.Values(words) {
		if len(w) > 3 {
			return w
		}
	}
	return ""
}
print(firstLong([]string{"ab", "abcd", "abcde"}))`}, "added import \"slices\"\nabcd\n", ""},
		{"n, err := strconv.Atoi at top level", []string{`import "strconv"
n, err := strconv.Atoi("12x")
if err != nil {
	print("bad:", err)
}
print(n)`}, "bad: strconv.Atoi: parsing \"12x\": invalid syntax\n0\n", ""},
		{"slices.Sorted(maps.Keys(m)) and min", []string{`import "maps"
import "slices"
m := map[string]int{"b": 2, "a": 1, "c": 3}
keys := slices.Sorted(maps.Keys(m))
top := keys[:min(2, len(keys))]
print(top)`}, "[a b]\n", ""},
		{"k, v, ok := strings.Cut", []string{`import "strings"
k, v, ok := strings.Cut("name=bob", "=")
print(k, v, ok)`}, "name bob true\n", ""},
		{"v, ok := m[k] at top level", []string{`m := map[string]int{"a": 1}
v, ok := m["a"]
print(v, ok)`}, "1 true\n", ""},
		{"regexp submatch index", []string{"import \"regexp\"\nre := regexp.MustCompile(`(\\w+)=(\\d+)`)\nm := re.FindStringSubmatch(\"x=42\")\nval := m[2]\nprint(val)"}, "42\n", ""},
		{"time.Parse and Sub", []string{`import "time"
t1, _ := time.Parse(time.RFC3339, "2024-01-02T03:04:05Z")
t2, _ := time.Parse(time.RFC3339, "2024-01-02T05:04:05Z")
d := t2.Sub(t1)
print(d.Hours())`}, "2\n", ""},
		{"json.Unmarshal into a struct", []string{"import \"encoding/json\"\ntype Rec struct {\n\tName string `json:\"name\"`\n\tAge  int    `json:\"age\"`\n}\nvar r Rec\nerr := json.Unmarshal([]byte(`{\"name\":\"ann\",\"age\":7}`), &r)\nprint(r.Name, r.Age, err)"}, "ann 7 <nil>\n", ""},
		{"index of a nested call's result", []string{`lines := strings.Split(strings.TrimSpace("a\nb\nc\n"), "\n")
last := lines[len(lines)-1]
print(last)`}, "added import \"strings\"\nc\n", ""},
		{"map of slices of structs", []string{`type Entry struct {
	Level string
	Msg   string
}
entries := []Entry{{"ERROR", "x"}, {"INFO", "y"}, {"ERROR", "z"}}
byLevel := map[string][]Entry{}
for _, e := range entries {
	byLevel[e.Level] = append(byLevel[e.Level], e)
}
print(len(byLevel["ERROR"]), byLevel["INFO"][0].Msg)`}, "2 y\n", ""},
		{"sort a struct slice with slices.SortFunc and cmp", []string{`type kv struct {
	k string
	v int
}
counts := map[string]int{"a": 3, "b": 5, "c": 1}
var items []kv
for k, v := range counts {
	items = append(items, kv{k, v})
}
slices.SortFunc(items, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
print(items[0].k, items)`}, "added imports \"slices\", \"cmp\"\nb [{b 5} {a 3} {c 1}]\n", ""},
		{"generic Map with strconv.Itoa", []string{`func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
lens := Map([]string{"a", "bb"}, func(s string) int { return len(s) })
strs := Map(lens, strconv.Itoa)
print(lens, strs, strings.Join(strs, "+"))`}, "added imports \"strconv\", \"strings\"\n[1 2] [1 2] 1+2\n", ""},
		{"generic with cmp.Ordered", []string{`func MaxOf[T cmp.Ordered](xs []T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}
best := MaxOf([]float64{1.5, 3.25, 2})
print(best)`}, "added import \"cmp\"\n3.25\n", ""},
		{"float average with Printf", []string{`total := 0.0
nums := []float64{1, 2, 4}
for _, f := range nums {
	total += f
}
avg := total / float64(len(nums))
fmt.Printf("%.2f\n", avg)`}, "added import \"fmt\"\n2.33\n", ""},
		{"x := x + 1 in a later cell", []string{`x := 1`, `x := x + 1
print(x)`}, "2\n", ""},
		{"slice of anonymous structs", []string{`rows := []struct {
	name string
	n    int
}{{"a", 1}, {"b", 2}}
sum := 0
for _, r := range rows {
	sum += r.n
}
print(sum, rows[1].name)`}, "3 b\n", ""},
		{"generic Stack type with methods", []string{`type Stack[T any] struct{ items []T }
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func (s *Stack[T]) Pop() T {
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v
}
st := &Stack[string]{}
st.Push("a")
st.Push("b")
print(st.Pop(), len(st.items))`}, "b 1\n", ""},
		{"search result indexed at top level", []string{`ms := search(context, "world")
first := ms[0]
print(first.Start, first.Text)`}, "6 world\n", ""},
		{"peek, split, index", []string{`text := peek(context, 0, 100)
lines := strings.Split(text, "\n")
header := lines[0]
print(header)`}, "added import \"strings\"\nhello world\n", ""},
		{"package-level var from a call", []string{`var total = len(strings.Fields("a b c"))
print(total)`}, "added import \"strings\"\n3\n", ""},
		{"interface values print through String", []string{`import "fmt"
type Shape interface{ Area() float64 }
type Sq struct{ s float64 }
func (q Sq) Area() float64 { return q.s * q.s }
func (q Sq) String() string { return fmt.Sprintf("Sq(%g)", q.s) }
shapes := []Shape{Sq{2}, Sq{3}}
total := 0.0
for _, s := range shapes {
	total += s.Area()
}
print(total, shapes[0], Sq{1})`}, "13 Sq(2) Sq(1)\n", ""},
		{"errors.As with a wrapped custom error", []string{`import "errors"
type NotFound struct{ key string }
func (e *NotFound) Error() string { return "not found: " + e.key }
func find(k string) error { return fmt.Errorf("lookup: %w", &NotFound{k}) }
err := find("x")
var nf *NotFound
print(errors.As(err, &nf), nf.key, err)`}, "added import \"fmt\"\ntrue x lookup: not found: x\n", ""},
		{"labeled break out of range-over-int", []string{`outer:
for i := range 3 {
	for j := range 3 {
		if i*j == 2 {
			print("found", i, j)
			break outer
		}
	}
}`}, "found 1 2\n", ""},
		{"slices.Sort, Max, Contains, Index", []string{`xs := []int{3, 1, 2}
slices.Sort(xs)
med := xs[len(xs)/2]
print(med, slices.Max(xs), slices.Contains(xs, 2), slices.Index(xs, 3))`}, "added import \"slices\"\n2 3 true 2\n", ""},
		{"Go 1.22 loop variables in closures", []string{`var fs []func() int
for i := range 3 {
	fs = append(fs, func() int { return i * i })
}
print(fs[0](), fs[1](), fs[2]())`}, "0 1 4\n", ""},
		{"type switch", []string{`var v any = 3.5
switch t := v.(type) {
case int:
	print("int", t)
case float64:
	print("float", t)
}`}, "float 3.5\n", ""},
		{"math/big", []string{`import "math/big"
n := new(big.Int)
n.SetString("123456789012345678901234567890", 10)
n.Mul(n, big.NewInt(2))
print(n.String())`}, "246913578024691357802469135780\n", ""},
		{"clear, max of constants, min", []string{`m := map[string][]int{}
m["a"] = append(m["a"], 1, 2)
clear(m["a"])
print(m, max(2.5, 1), min(3, 1, 2))`}, "map[a:[0 0]] 2.5 1\n", ""},
		{"word frequency top-1", []string{`words := strings.Fields("the cat the dog the end")
freq := make(map[string]int)
for _, w := range words {
	freq[w]++
}
type wc struct {
	w string
	c int
}
var list []wc
for w, c := range freq {
	list = append(list, wc{w, c})
}
sort.Slice(list, func(i, j int) bool {
	if list[i].c != list[j].c {
		return list[i].c > list[j].c
	}
	return list[i].w < list[j].w
})
top := list[0]
fmt.Println(top.w, top.c)`}, "added imports \"strings\", \"sort\", \"fmt\"\nthe 3\n", ""},
		{"strings.Builder with Fprintf", []string{`import "strings"
var sb strings.Builder
for i := range 3 {
	fmt.Fprintf(&sb, "%d,", i)
}
out := strings.TrimSuffix(sb.String(), ",")
print(out)`}, "added import \"fmt\"\n0,1,2\n", ""},
		{"named results", []string{`func divmod(a, b int) (q, r int) {
	q = a / b
	r = a % b
	return
}
q, r := divmod(17, 5)
print(q, r)`}, "3 2\n", ""},
		{"maps.All and slices.Collect", []string{`import "maps"
m := map[string]int{"x": 1, "y": 2}
sum := 0
for _, v := range maps.All(m) {
	sum += v
}
vals := slices.Collect(maps.Values(m))
slices.Sort(vals)
print(sum, vals)`}, "added import \"slices\"\n3 [1 2]\n", ""},
		{"method on a struct value", []string{`type Point struct{ X, Y int }
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }
pts := []Point{{1, 2}, {3, 4}}
acc := Point{}
for _, p := range pts {
	acc = acc.Add(p)
}
print(acc)`}, "{4 6}\n", ""},
		{"json into an anonymous nested struct", []string{"data := `{\"items\":[{\"id\":1,\"tags\":[\"a\",\"b\"]},{\"id\":2,\"tags\":[]}]}`\nvar doc struct {\n\tItems []struct {\n\t\tID   int      `json:\"id\"`\n\t\tTags []string `json:\"tags\"`\n\t} `json:\"items\"`\n}\nif err := json.Unmarshal([]byte(data), &doc); err != nil {\n\tprint(err)\n}\nprint(len(doc.Items), doc.Items[0].Tags)"}, "added import \"encoding/json\"\n2 [a b]\n", ""},
		{"FINAL of a Sprintf", []string{`counts := map[string]int{}
for _, w := range []string{"a", "b", "a"} {
	counts[w]++
}
best, bestN := "", 0
for w, n := range counts {
	if n > bestN {
		best, bestN = w, n
	}
}
FINAL(fmt.Sprintf("%s:%d", best, bestN))`}, "added import \"fmt\"\n", "a:2"},
		{"generic Filter", []string{`func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}
evens := Filter([]int{1, 2, 3, 4}, func(n int) bool { return n%2 == 0 })
print(evens, len(evens))`}, "[2 4] 2\n", ""},
		{"generic Keys", []string{`func Keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
ks := Keys(map[string]bool{"a": true})
print(ks)`}, "[a]\n", ""},
		{"range-over-func with defer in the body (collected first)", []string{`import "strings"
func count(s string) (n int) {
	for l := range strings.Lines(s) {
		defer func() { n++ }()
		_ = l
	}
	return 0
}
print(count("a\nb\nc\n"))`}, "3\n", ""},
		{"range-over-func with continue of an outer loop", []string{`import "slices"
outer:
for _, x := range []int{1, 2, 3} {
	for i, v := range slices.All([]int{10, 20, 30}) {
		if v == 20 && x == 2 {
			continue outer
		}
		if i == 2 {
			break
		}
		print(x, v)
	}
}`}, "1 10\n1 20\n2 10\n3 10\n3 20\n", ""},
		{"return of two results from inside range over maps.All", []string{`import "maps"
func find(m map[string]int, want int) (key string, ok bool) {
	for k, v := range maps.All(m) {
		if v == want {
			return k, true
		}
	}
	return
}
k, ok := find(map[string]int{"a": 1, "b": 2}, 2)
print(k, ok)`}, "b true\n", ""},
		{"range-over-func assigning existing variables", []string{`func pairs(n int) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for i := 0; i < n; i++ {
			if !yield(i, strings.Repeat("x", i)) {
				return
			}
		}
	}
}
var i int
var s string
for i, s = range pairs(5) {
	if i == 3 {
		break
	}
}
print(i, s)`}, "added import \"strings\"\n3 xxx\n", ""},
		{"ranging over a function declaration", []string{`func gen(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}
sum := 0
for v := range gen {
	if v == 1 {
		continue
	}
	sum += v
}
print(sum)`}, "2\n", ""},
		{"labeled continue and break of range over strings.FieldsSeq", []string{`import "strings"
n := 0
L:
for w := range strings.FieldsSeq("a b c d") {
	switch w {
	case "b":
		continue L
	case "d":
		break L
	}
	n++
}
print(n)`}, "2\n", ""},
		{"closures capture each iteration of range-over-func", []string{`func each(xs []int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for _, x := range xs {
			if !yield(x) {
				return
			}
		}
	}
}
fs := []func() int{}
for x := range each([]int{1, 2, 3}) {
	fs = append(fs, func() int { return x * 10 })
}
print(fs[0](), fs[1](), fs[2]())
`}, "10 20 30\n", ""},
		{"tuple assignment with a call among its values", []string{`import "fmt"
bestHour, best := "", 0
for _, h := range []string{"09", "10", "7"} {
	if len(h) > best {
		bestHour, best = h, len(h)
	}
}
fmt.Println(bestHour, best)`}, "09 2\n", ""},
		{"tuple assignment to an index of a name it sets", []string{`xs := []int{5, 6}
i := 0
i, xs[i] = 1, len(xs)
print(i, xs)`}, "1 [2 6]\n", ""},
		{"top-level tuple := of a call's index and a call", []string{`import "strings"
s := "a,b"
name, n := strings.Split(s, ",")[0], len(s)
print(name, n)`}, "a 3\n", ""},
		{"running min and max in a tuple", []string{`lo, hi := 100, 0
for _, v := range []int{3, 9, 1} {
	lo, hi = min(lo, v), max(hi, v)
}
print(lo, hi)`}, "1 9\n", ""},
		{"sort.Reverse of an IntSlice", []string{`xs := []int{3, 1, 2}
sort.Sort(sort.Reverse(sort.IntSlice(xs)))
print(xs)`}, "added import \"sort\"\n[3 2 1]\n", ""},
		{"bufio.Scanner over a strings.Reader", []string{`sc := bufio.NewScanner(strings.NewReader("a b  c\nd"))
sc.Split(bufio.ScanWords)
n := 0
for sc.Scan() {
	n++
}
print(n)`}, "added imports \"bufio\", \"strings\"\n4\n", ""},
		{"time.Duration and time.Date", []string{`d := 90 * time.Second
t := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
print(d, t.Add(d).Format("15:04"), t.Weekday())`}, "added import \"time\"\n1m30s 12:01 Friday\n", ""},
		{"errors.Join", []string{`err := errors.Join(errors.New("a"), errors.New("b"))
print(err)`}, "added import \"errors\"\na\nb\n", ""},
		{"fmt.Sscanf", []string{`var name string
var age int
n, err := fmt.Sscanf("bob 42", "%s %d", &name, &age)
print(n, err, name, age)`}, "added import \"fmt\"\n2 <nil> bob 42\n", ""},
		{"an iota enum with a String method", []string{`type Level int
const (
	Debug Level = iota
	Info
	Warn
)
func (l Level) String() string { return [...]string{"DEBUG", "INFO", "WARN"}[l] }
counts := map[Level]int{Warn: 2, Info: 1}
print(Warn, counts[Warn], []Level{Debug, Info})`}, "WARN 2 [DEBUG INFO]\n", ""},
		{"a var group with a call", []string{`var (
	a = 1
	b = "x"
	c = strings.ToUpper(b)
)
print(a, b, c)`}, "added import \"strings\"\n1 x X\n", ""},
		{"recover in a deferred closure", []string{`func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}
q, err := safeDiv(1, 0)
print(q, err)`}, "added import \"fmt\"\n0 recovered: runtime error: integer divide by zero\n", ""},
		{"strconv and unicode", []string{`print(strconv.FormatFloat(3.14159, 'f', 2, 64), strconv.Quote("a\"b"), unicode.IsUpper('Q'))`}, "added imports \"strconv\", \"unicode\"\n3.14 \"a\\\"b\" true\n", ""},
		{"regexp ReplaceAllStringFunc", []string{"re := regexp.MustCompile(`\\d+`)\nout := re.ReplaceAllStringFunc(\"a1b22\", func(s string) string { return \"<\" + s + \">\" })\nprint(out)"}, "added import \"regexp\"\na<1>b<22>\n", ""},
		{"json.Marshal with tags", []string{"type Item struct {\n\tID   int    `json:\"id\"`\n\tName string `json:\"name,omitempty\"`\n}\nb, _ := json.Marshal([]Item{{1, \"x\"}, {2, \"\"}})\nprint(string(b))"}, "added import \"encoding/json\"\n[{\"id\":1,\"name\":\"x\"},{\"id\":2}]\n", ""},
		{"math constants", []string{`print(math.Inf(1), math.MaxInt64, math.Sqrt(2))`}, "added import \"math\"\n+Inf 9223372036854775807 1.4142135623730951\n", ""},
		{"slices.Insert, BinarySearch, maps.Clone, cmp.Or", []string{`xs := []int{}
xs = slices.Insert(xs, 0, 5, 6)
i, found := slices.BinarySearch(xs, 6)
m2 := maps.Clone(map[string]int{"a": 1})
print(xs, i, found, m2, cmp.Or("", "dflt"))`}, "added imports \"slices\", \"maps\", \"cmp\"\n[5 6] 1 true map[a:1] dflt\n", ""},
		{"comma-ok type assertions at top level", []string{`var v any = "str"
s, ok := v.(string)
n, ok2 := v.(int)
print(s, ok, n, ok2)`}, "str true 0 false\n", ""},
		{"a generic function constrained by a method", []string{`type Stringer interface{ String() string }
type Temp float64
func (t Temp) String() string { return fmt.Sprintf("%.1f°C", float64(t)) }
func show[T Stringer](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.String())
	}
	return out
}
print(show([]Temp{21.5, 19}))`}, "added import \"fmt\"\n[21.5\u00b0C 19.0\u00b0C]\n", ""},
		{"runes of a grid", []string{`grid := [][]rune{[]rune("ab"), []rune("cd")}
for _, row := range grid {
	for j := range row {
		row[j] = unicode.ToUpper(row[j])
	}
}
print(string(grid[0]), string(grid[1]))`}, "added import \"unicode\"\nAB CD\n", ""},
		{"strings.Cut into a map, sorted keys, Printf", []string{`lines := []string{"k1=v1", "bad", "k2=v2"}
kv := map[string]string{}
for _, l := range lines {
	k, v, ok := strings.Cut(l, "=")
	if !ok {
		continue
	}
	kv[k] = v
}
keys := slices.Collect(maps.Keys(kv))
slices.Sort(keys)
fmt.Printf("%d keys: %v\n", len(keys), keys)`}, "added imports \"strings\", \"slices\", \"maps\", \"fmt\"\n2 keys: [k1 k2]\n", ""},
		{"sha256 and hex", []string{`h := sha256.Sum256([]byte("abc"))
print(hex.EncodeToString(h[:])[:16])`}, "added imports \"crypto/sha256\", \"encoding/hex\"\nba7816bf8f01cfea\n", ""},
		{"sort.Slice with a tie-break, Printf in a loop", []string{`counts := map[string]int{"x": 3, "y": 1, "z": 3}
type pair struct {
	k string
	v int
}
ps := make([]pair, 0, len(counts))
for k, v := range counts {
	ps = append(ps, pair{k, v})
}
sort.Slice(ps, func(i, j int) bool {
	if ps[i].v != ps[j].v {
		return ps[i].v > ps[j].v
	}
	return ps[i].k < ps[j].k
})
for _, p := range ps[:2] {
	fmt.Printf("%s=%d\n", p.k, p.v)
}
`}, "added imports \"sort\", \"fmt\"\nx=3\nz=3\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSession(t, Config{}, "")
			for i, src := range c.cells {
				r := s.run(src)
				if r.Err != nil {
					t.Fatalf("cell %d: %s", i, describe(r))
				}
				if i < len(c.cells)-1 {
					continue
				}
				if r.Stdout != c.want {
					t.Errorf("got %q, want %q", r.Stdout, c.want)
				}
				if c.final != "" && (r.Final == nil || r.Final.Value != c.final) {
					t.Errorf("final: %s, want %q", describe(r), c.final)
				}
			}
		})
	}
}

// TestMessages checks the compile and run-time errors models hit most, as gc and the Go
// runtime word them, at their positions in the cell as written.
func TestMessages(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // the whole error, position included
	}{
		{"undefined name", "total := 0\nfor _, n := range []int{1, 2} {\n\ttotl += n\n}\nprint(total)", "cell.go:3:2: undefined: totl"},
		{"package not allowed", "log.Println(1)", "cell.go:1:1: undefined: log; no package rlm allows is named log (the prompt lists them)"},
		{"assignment of a wrong type", "x := 5\nvar s string = x\nprint(s)", "cell.go:2:16: cannot use x (variable of type int) as string value in variable declaration"},
		{"one variable for two results", "n := strconv.Atoi(\"5\")\nprint(n)", "cell.go:1:6: assignment mismatch: 1 variable but strconv.Atoi returns 2 values"},
		{"mismatched types", "a := 1.5\nb := 2\nprint(a * b)", "cell.go:3:7: invalid operation: a * b (mismatched types float64 and int)"},
		{"field of the wrong case", "type Rec struct{ Name string }\nr := Rec{\"x\"}\nprint(r.name)", "cell.go:3:9: r.name undefined (type Rec has no field or method name, but does have field Name)"},
		{"too few arguments", "func f(a, b int) int { return a + b }\nprint(f(1))", "cell.go:2:10: not enough arguments in call to f\n\thave (number)\n\twant (int, int)"},
		{"missing return", "func g(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n}\nprint(g(1))", "cell.go:5:1: missing return"},
		{"string compared to a number", "count := \"3\"\nif count > 2 {\n\tprint(\"big\")\n}", "cell.go:2:12: invalid operation: count > 2 (mismatched types string and untyped int)"},
		{"no new variables", "x := 1\nx := 2\nprint(x)", "cell.go:2:3: no new variables on left side of :="},
		{"method on a slice", "s := []int{1}\ns.Push(2)", "cell.go:2:3: s.Push undefined (type []int has no field or method Push)"},
		{"API called wrongly", "s := peek(context, 0, 10, 5)\nprint(s)", "cell.go:1:27: too many arguments in call to peek\n\thave (Context, number, number, number)\n\twant (Context, int, int)"},
		{"an API function hidden by a variable", "text := peek(context, 0, 10)\nall := text(context)\nprint(len(all))", "cell.go:2:8: invalid operation: cannot call text (variable of type string): string is not a function; this block's top-level variable text would hide the API function text, so the block did not run; name the variable otherwise (n, txt, ...) so the API stays reachable"},
		{"an expression alone", "x := 3\nx", "cell.go:2:1: x (variable of type int) is not used; print a value to see it: print(...)"},
		{"several errors", "a := b\nc := d", "cell.go:1:6: undefined: b\ncell.go:2:6: undefined: d"},
		{"index out of range", "xs := []int{1, 2}\ni := 5\nprint(xs[i])", "cell.go:3:1: panic: runtime error: index out of range; check the index against len(...) first"},
		{"nil map", "var m map[string]int\nm[\"a\"] = 1", "cell.go:2:1: panic: assignment to entry in nil map"},
		{"nil pointer", "type P struct{ X int }\nvar p *P\nprint(p.X)", "cell.go:3:1: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"interface conversion", "var v any = \"s\"\nn := v.(int)\nprint(n)", "cell.go:2:6: panic: interface conversion: interface {} is string, not int"},
		{"divide by zero", "a, b := 1, 0\nprint(a / b)", "cell.go:2:1: panic: runtime error: integer divide by zero"},
		{"slice bounds", "s := \"hello\"\nj := 10\nprint(s[2:j])", "cell.go:3:1: panic: runtime error: slice bounds out of range; check the length first, as in s[:min(k, len(s))]"},
		{"nil function", "var f func()\nf()", "cell.go:2:1: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"a panic of the cell", "panic(\"bad input\")", "cell.go:1:1: panic: bad input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSession(t, Config{}, "")
			r := s.run(c.src)
			if r.Err == nil || r.Err.Error() != c.want || errKind(r.Err) != fault.Code {
				t.Errorf("got %v (%s), want %q", r.Err, errKind(r.Err), c.want)
			}
			if strings.Contains(fmt.Sprint(r.Err), "reflect") || strings.Contains(fmt.Sprint(r.Err), "yaegi") {
				t.Errorf("interpreter internals in %v", r.Err)
			}
		})
	}
}

// TestNotBlocked lists what gc rejects and a REPL accepts: unused variables, imports and labels.
func TestNotBlocked(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for i, c := range []cellCase{
		{src: "import (\n\t\"sort\"\n\t\"strings\"\n)\nunused := strings.ToUpper(\"a\")", stdout: ""},
		{src: "func f() int {\n\tx := 1\n\tfor k, v := range map[string]int{} {\n\t}\nL:\n\treturn 2\n}\nprint(f(), unused)", stdout: "2 A\n"},
	} {
		checkCell(t, s, i, c)
	}
}

type sq struct{ s float64 }

func (q sq) String() string { return fmt.Sprintf("Sq(%g)", q.s) }

type codeErr struct{ c int }

func (e *codeErr) Error() string { return fmt.Sprint("code ", e.c) }

// TestPrintIsPrintln checks that the API's print formats its arguments as fmt.Println does, by
// printing in a cell what the test prints natively.
func TestPrintIsPrintln(t *testing.T) {
	decls := "type sq struct{ s float64 }\nfunc (q sq) String() string { return fmt.Sprintf(\"Sq(%g)\", q.s) }\n" +
		"type codeErr struct{ c int }\nfunc (e *codeErr) Error() string { return fmt.Sprint(\"code \", e.c) }\n" +
		"type shape interface{ area() float64 }\nfunc (q sq) area() float64 { return q.s }\n"
	var nilErr error
	var nilPtr *codeErr
	cases := []struct {
		args string
		want string
	}{
		{``, fmt.Sprintln()},
		{`"a", 1, "b", 2.5, true`, fmt.Sprintln("a", 1, "b", 2.5, true)},
		{`3.0, 1e21, 1e-7, int8(-3), 'x', uint8(200)`, fmt.Sprintln(3.0, 1e21, 1e-7, int8(-3), 'x', uint8(200))},
		{`[]byte("hi"), map[string]int{"b": 2, "a": 1}, nil, [2]bool{}`, fmt.Sprintln([]byte("hi"), map[string]int{"b": 2, "a": 1}, nil, [2]bool{})},
		{`struct{ A int; b string }{1, "x"}, &struct{ N []string }{[]string{"a b"}}`, fmt.Sprintln(struct {
			A int
			b string
		}{1, "x"}, &struct{ N []string }{[]string{"a b"}})},
		{`sq{2}, &sq{3}, []sq{{4}}, map[string]sq{"k": {5}}`, fmt.Sprintln(sq{2}, &sq{3}, []sq{{4}}, map[string]sq{"k": {5}})},
		{`&codeErr{7}, []*codeErr{{8}, nil}`, fmt.Sprintln(&codeErr{7}, []*codeErr{{8}, nil})},
		{`shape(sq{6}), []shape{sq{7}, nil}, map[int]shape{1: sq{8}}`, fmt.Sprintln(sq{6}, []fmt.Stringer{sq{7}, nil}, map[int]fmt.Stringer{1: sq{8}})},
		{`any(sq{9}), []any{sq{10}, 1}, error(&codeErr{11})`, fmt.Sprintln(any(sq{9}), []any{sq{10}, 1}, error(&codeErr{11}))},
		{`error(nil), (*codeErr)(nil)`, fmt.Sprintln(nilErr, nilPtr)},
	}
	s := newTestSession(t, Config{}, "")
	if r := s.run("import \"fmt\"\n" + decls); r.Err != nil {
		t.Fatal(describe(r))
	}
	for _, c := range cases {
		if r := s.run("print(" + c.args + ")"); r.Err != nil || r.Stdout != c.want {
			t.Errorf("print(%s): %s, want %q", c.args, describe(r), c.want)
		}
		if r := s.run("fmt.Println(" + c.args + ")"); r.Err != nil || r.Stdout != c.want {
			t.Errorf("fmt.Println(%s): %s, want %q", c.args, describe(r), c.want)
		}
	}
}

// TestRedeclarations checks what a later cell may redeclare: functions, variables and
// constants; a type or a method only word for word (yaegi keeps the first definition).
func TestRedeclarations(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for i, c := range []cellCase{
		{src: "type rec struct{ name string }\nfunc (r rec) label() string { return \"<\" + r.name + \">\" }\nconst limit = 2\nfunc f() int { return 1 }\nx := 1\nrecs := []rec{{\"a\"}}"},
		{src: "type rec struct{ name string }\nfunc (r rec) label() string { return \"<\" + r.name + \">\" }\nrecs = append(recs, rec{\"b\"})\nprint(len(recs), recs[1].label())", stdout: "2 <b>\n"},
		{src: "func f() string { return \"two\" }\nconst limit = \"3\"\nx := \"now a string\"\nprint(f(), limit, x)", stdout: "two 3 now a string\n"},
		{src: "type rec struct{ name string; n int }", errKind: fault.Code, errLine: 1, errHas: "type rec is already declared by an earlier cell, differently"},
		{src: "func (r rec) label() string { return r.name }", errKind: fault.Code, errLine: 1, errHas: "method rec.label is already declared by an earlier cell, differently"},
		{src: "func (r rec) size() int { return len(r.name) }", errKind: fault.Code, errLine: 1, errHas: "cannot add method size: type rec was declared by an earlier cell"},
		{src: "type Match struct{ A int }", errKind: fault.Code, errLine: 1, errHas: "type Match is declared by rlm's API"},
		{src: "r := rec{\"c\"}\nprint(r, recs[0].label())", stdout: "{c} <a>\n"},
	} {
		checkCell(t, s, i, c)
	}
}

// TestImportsPersist checks the goimports-style imports: announced once, kept for later cells,
// not kept when the cell does not compile, never for a name the cell declares.
func TestImportsPersist(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for i, c := range []cellCase{
		{src: "x := strings.Repeat(\"ab\", 2) + undefinedName", errKind: fault.Code, errHas: "undefined: undefinedName"},
		{src: "x := strings.Repeat(\"ab\", 2)\nprint(x)", stdout: "added import \"strings\"\nabab\n"},
		{src: "print(strings.ToUpper(x), rand.New(rand.NewSource(1)).Intn(1))", stdout: "added import \"math/rand\"\nABAB 0\n"},
		{src: "json := map[string]int{\"a\": 1}\nprint(json[\"a\"])", stdout: "1\n"},
		{src: "func path(s string) string { return s + \"/\" }\nprint(path(\"a\"))", stdout: "a/\n"},
		{src: "log.Print(x)", errKind: fault.Code, errHas: "undefined: log; no package rlm allows is named log"},
	} {
		checkCell(t, s, i, c)
	}
}
