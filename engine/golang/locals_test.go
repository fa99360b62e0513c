package golang

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestLocals: each variable's type as the cell wrote it, a short rendering and its length.
func TestLocals(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	r := s.run(`type row struct{ name string; n int }
lines := strings.Split("a,b,c", ",")
counts := map[string]int{"x": 1, "b": 2}
rows := []row{{"a", 1}}
var anyv any = row{"b", 2}
var err error
p := &row{"c", 3}
n, f := 3, 1.5
ms := []Match{{Start: 1, End: 2, Text: "x"}}
when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
sb := &strings.Builder{}
big := strings.Repeat("é", 1000)
astral := "a😀b"
many := make([]int, 5000)
bigmap := map[int]bool{}
for i := range 1000 { bigmap[i] = true }`)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	got := map[string]engine.Var{}
	for _, v := range s.e.Locals() {
		got[v.Name] = v
	}
	tests := []engine.Var{
		{Name: "lines", Type: "[]string", Repr: `["a" "b" "c"]`, Len: 3},
		{Name: "counts", Type: "map[string]int", Repr: `map["b":2 "x":1]`, Len: 2},
		{Name: "rows", Type: "[]row", Repr: `[{"a" 1}]`, Len: 1},
		{Name: "anyv", Type: "any", Repr: `{"b" 2}`, Len: -1},
		{Name: "err", Type: "error", Repr: "nil", Len: -1},
		{Name: "p", Type: "*row", Repr: `&{"c" 3}`, Len: -1},
		{Name: "n", Type: "int", Repr: "3", Len: -1},
		{Name: "f", Type: "float64", Repr: "1.5", Len: -1},
		{Name: "when", Type: "time.Time", Repr: "2024-01-02T03:04:05Z", Len: -1},
	}
	for _, want := range tests {
		if g := got[want.Name]; g != want {
			t.Errorf("%s: got %+v, want %+v", want.Name, g, want)
		}
	}
	if ms := got["ms"]; ms.Type != "[]Match" || ms.Len != 1 || !strings.HasPrefix(ms.Repr, `[{1 2 0 "x" "" `) {
		t.Errorf("ms: got %+v, want a []Match with its match", ms)
	}
	if sb := got["sb"]; sb.Type != "*strings.Builder" {
		t.Errorf("sb: got type %q, want *strings.Builder", sb.Type)
	}
	for _, c := range []struct{ name, suffix string }{{"big", `…" (1,000 characters)`}, {"many", " more]"}, {"bigmap", " more]"}} {
		v := got[c.name]
		if n := utf8.RuneCountInString(v.Repr); n > engine.MaxReprChars || !strings.HasSuffix(v.Repr, c.suffix) {
			t.Errorf("%s: repr of %d characters %q, want at most %d ending in %q", c.name, n, v.Repr, engine.MaxReprChars, c.suffix)
		}
	}
	// A string's length is in characters (code points), as the prompt and the API count them.
	if got["big"].Len != 1000 || got["astral"].Len != 3 || got["many"].Len != 5000 || got["bigmap"].Len != 1000 {
		t.Errorf("lengths: big %d, astral %d, many %d, bigmap %d; want 1000 and 3 (characters), 5000, 1000", got["big"].Len, got["astral"].Len, got["many"].Len, got["bigmap"].Len)
	}
	var names []string
	for _, v := range s.e.Locals() {
		names = append(names, v.Name)
	}
	if vars := s.e.Vars(); strings.Join(names, ",") != strings.Join(vars, ",") {
		t.Errorf("Locals are in the order of Vars: got %v, want %v", names, vars)
	}
}

// TestLocalsBounded: at most engine.MaxLocals variables are described, and a method of the
// cell's types is never called (it would run model code outside a cell).
func TestLocalsBounded(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	var b strings.Builder
	for i := range engine.MaxLocals + 20 {
		b.WriteString("v" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + strings.Repeat("y", i/26) + " := 1\n")
	}
	b.WriteString("var called int\ntype loud struct{ n int }\nfunc (l loud) String() string { called++; return \"\" }\nfunc (l loud) Error() string { called++; return \"\" }\n")
	b.WriteString("l := loud{}\nvar st fmt.Stringer = loud{}\nvar e error = loud{}\nls := []any{loud{}}\n")
	if r := s.run(b.String()); r.Err != nil {
		t.Fatal(r.Err)
	}
	if n, vars := len(s.e.Locals()), len(s.e.Vars()); n != engine.MaxLocals || vars <= engine.MaxLocals {
		t.Errorf("%d variables described of %d, want %d", n, vars, engine.MaxLocals)
	}
	if r := s.run("print(called)"); r.Stdout != "0\n" {
		t.Errorf("Locals called a method of the cell's type: called = %q", r.Stdout)
	}
}

// BenchmarkLocals: describing a session's variables costs what the short renderings cost, not
// the size of the values: a 30 MB string and a slice of a million elements; a map of 100,000
// entries.
func BenchmarkLocals(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"string30MB+slice1e6", "big := strings.Repeat(strings.Repeat(\"x\", 1<<20), 30)\nmany := make([]int, 1_000_000)"},
		{"map1e5", "words := map[string]int{}\nfor i := range 100_000 { words[strconv.Itoa(i)] = i }"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newTestSession(b, Config{}, "")
			if r := s.run(bc.src); r.Err != nil {
				b.Fatal(r.Err)
			}
			b.ResetTimer()
			for range b.N {
				s.e.Locals()
			}
		})
	}
}

// TestLocalsAtEveryCut: slices, maps and structs of strings cut at every possible point stay
// within the cap.
func TestLocalsAtEveryCut(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	var b strings.Builder
	b.WriteString("type pair struct{ A string; B []string }\n")
	for n := 1; n < 90; n++ {
		fmt.Fprintf(&b, "s%d := strings.Repeat(\"é\", %d)\n", n, n)
		fmt.Fprintf(&b, "l%d := []any{s%d, []string{s%d, s%d}, map[string]string{s%d: s%d}, pair{s%d, []string{s%d, s%d}}, &pair{A: s%d}}\n", n, n, n, n, n, n, n, n, n, n)
	}
	if r := s.run(b.String()); r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, v := range s.e.Locals() {
		if v.Type == "" {
			t.Fatalf("%s: no description (a panic was recovered?)", v.Name)
		}
		if n := utf8.RuneCountInString(v.Repr); n > engine.MaxReprChars {
			t.Fatalf("%s: repr of %d characters", v.Name, n)
		}
	}
}
