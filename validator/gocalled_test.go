package validator_test

import (
	"testing"

	"github.com/rlm-sandbox/rlm/source"
)

// TestGoCheckedCallsDirect: the functions and methods whose calls the checks read (allocation
// counts, host values) may only be called directly; a function or method value or a method
// expression carried the call past the check (issue 17, second red team, finding 5).
func TestGoCheckedCallsDirect(t *testing.T) {
	const imp = "import (\"fmt\"; \"hash/crc32\"; \"math/big\"; \"slices\"; \"strings\"; \"time\")\nvar b strings.Builder\nvar t time.Time\n"
	checkRules(t, source.Go, []ruleCase{
		// Values of checked functions and methods: assigned, passed, returned.
		{imp + "r := strings.Repeat\ns := r(\"ab\", 1<<36)", []string{"4:6 alloc-size"}},
		{imp + "fmt.Println(len(slices.Repeat[[]int]([]int{1}, 1<<36)))", []string{"4:48 alloc-size"}},
		{imp + "apply := func(f func(string, int) string) string { return f(\"ab\", 1<<36) }\nfmt.Println(apply(strings.Repeat))", []string{"5:19 alloc-size"}},
		{imp + "func rep() func(string, int) string { return strings.Repeat }", []string{"4:46 alloc-size"}},
		{imp + "g := b.Grow\ng(1 << 40)", []string{"4:6 alloc-size"}},
		{imp + "x := new(big.Int)\nlsh := x.Lsh\nlsh(x, 1<<40)", []string{"5:8 alloc-size"}},
		{imp + "mk := crc32.MakeTable\ntab := mk(crc32.IEEE)\ntab[0] = 1", []string{"4:7 package-var"}},
		{imp + "f := t.Location\nl := f()\n*l = *time.FixedZone(\"EVIL\", 3600)", []string{"4:6 package-var"}},
		// Method expressions, whose receiver is the first argument.
		{imp + "l := time.Time.Location(t)\n*l = *time.FixedZone(\"EVIL\", 3600)", []string{"4:6 package-var"}},
		{imp + "l := (*time.Time).Location(&t)\n_ = l", []string{"4:6 package-var"}},
		{imp + "(*strings.Builder).Grow(&b, 1<<40)", []string{"4:1 alloc-size"}},
		{imp + "type T struct{ time.Time }\nl := T.Location(T{})\n_ = l", []string{"5:6 package-var"}},
		{imp + "type G interface{ Grow(int) }\nG.Grow(&b, 1<<40)", []string{"5:1 alloc-size"}},
		// Direct calls pass, and are checked as before.
		{imp + "s := strings.Repeat(\"ab\", 3) + (strings.Repeat)(\"c\", 2)\nb.Grow(64)\nfmt.Println(s, t.Location(), slices.Repeat[[]int]([]int{1}, 2))", nil},
		{imp + "x := new(big.Int).Lsh(big.NewInt(1), 10)\nbs := []strings.Builder{{}}\nbs[0].Grow(8)\np := &b\n(*p).Grow(8)\nfmt.Println(x)", nil},
		{imp + "s := slices.Repeat[[]int]([]int{1}, 1<<36)", []string{"4:37 alloc-size"}},
	})
}

// TestGoTypeSizes: a type name counts the most elements any of its declarations holds, in
// whatever scope, however deep the chain of names, and through type arguments (second red team,
// finding 5: a local type B [1]byte hid the top-level B [1<<20]byte from make([]B, 1<<10)).
func TestGoTypeSizes(t *testing.T) {
	checkRules(t, source.Go, []ruleCase{
		{"type B [1 << 20]byte\n\nfunc g() int {\n\ttype B [1]byte\n\tvar x B\n\treturn len(x)\n}\n\ns := make([]B, 1<<10)", []string{"9:16 alloc-size"}},
		{"func g() {\n\ttype B [1 << 20]byte\n\t_ = make([]B, 1<<10)\n}\ntype B [1]byte", []string{"3:16 alloc-size"}},
		{"type B [1]byte\nfunc g() {\n\ttype B [1 << 20]byte\n}\nvar s = make([]B, 1<<10)", []string{"5:19 alloc-size"}}, // the largest declaration counts, whichever is in scope
		{"type S string\nfunc g() {\n\ttype S int\n}\nvar s = make([]byte, S(1<<40))", []string{"5:22 alloc-size"}},
		{deepStruct(22) + "var x t22", []string{"22:10 alloc-size"}},
		{deepStruct(20) + "s := make([]t12, 1<<10)", []string{"22:18 alloc-size"}},
		{"type B[T any] [1 << 10]T\ns := make([]B[[1 << 10]byte], 1<<10)", []string{"2:31 alloc-size"}},
		{"type L struct{ next *L; v [4]byte }\ntype M struct{ a, b []M }\ns := make([]L, 1<<20)\nm := make([]M, 1<<10)", nil},
		{deepStruct(20) + "var x t20", nil},
	})
}

// deepStruct declares t0 as 16 bytes and each t<i> as two t<i-1>.
func deepStruct(n int) string {
	s := "type t0 [16]byte\n"
	for i := 1; i <= n; i++ {
		s += "type t" + itoa(i) + " struct{ a, b t" + itoa(i-1) + " }\n"
	}
	return s
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
