package golang

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// cellCase is one cell of a table test and what it must produce.
type cellCase struct {
	src     string
	stdout  string     // exact, unless empty
	final   string     // exact, unless empty
	errKind fault.Kind // "" means no error
	errHas  string     // substring of the error
	errLine int        // line of the error's position, unless 0
}

func checkCell(t *testing.T, s *testSession, i int, c cellCase) {
	t.Helper()
	r := s.run(c.src)
	if c.stdout != "" && r.Stdout != c.stdout {
		t.Errorf("cell %d: stdout %q, want %q (%s)", i, r.Stdout, c.stdout, describe(r))
	}
	if c.final != "" && (r.Final == nil || r.Final.Value != c.final) {
		t.Errorf("cell %d: %s, want final %q", i, describe(r), c.final)
	}
	if got := errKind(r.Err); got != c.errKind {
		t.Errorf("cell %d: error kind %q (%v), want %q", i, got, r.Err, c.errKind)
	}
	if c.errHas != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), c.errHas)) {
		t.Errorf("cell %d: error %v, want it to mention %q", i, r.Err, c.errHas)
	}
	if c.errLine != 0 {
		if e := asCellError(r.Err); e == nil || e.Pos.Line != c.errLine || e.Pos.Filename != "cell.go" {
			t.Errorf("cell %d: error %v, want a position on line %d of cell.go", i, r.Err, c.errLine)
		}
	}
}

func TestCells(t *testing.T) {
	tests := []struct {
		name  string
		cells []cellCase
	}{
		{"state persists across cells", []cellCase{
			{src: "x := 1\ntype pt struct{ X, Y int }\nfunc double(n int) int { return 2 * n }"},
			{src: `import "fmt"` + "\nx++\nfmt.Println(x, double(x), pt{1, 2})", stdout: "2 4 {1 2}\n"},
			{src: `import "fmt"` + "\nfmt.Println(x)", stdout: "2\n"},
			{src: "fmt.Println(x + 1)", stdout: "3\n"},
		}},
		{"a failing cell keeps the state", []cellCase{
			{src: "x := 41"},
			{src: "x = 100\nundefinedThing()", errKind: fault.Code, errHas: "undefined", errLine: 2},
			{src: "x++\npanic(\"boom\")", errKind: fault.Code, errHas: "boom", errLine: 2},
			{src: "print(x)", stdout: "42\n"},
		}},
		{"a panic is a code error with a position", []cellCase{
			{src: "xs := []int{1}\ni := 5\nprint(xs[i])", errKind: fault.Code, errHas: "index out of range", errLine: 3},
			{src: "func f(m map[string]int) { m[\"a\"] = 1 }\nvar m map[string]int\nf(m)", errKind: fault.Code, errHas: "nil map"},
		}},
		{"FINAL of a string, a number, a struct, a map", []cellCase{
			{src: `FINAL("hello")`, final: "hello"},
			{src: `FINAL(42)`, final: "42"},
			{src: `FINAL(2.5)`, final: "2.5"},
			{src: "type answer struct {\n\tName   string\n\tN      int\n\thidden int\n}\nFINAL(answer{\"x\", 3, 9})", final: `{"Name":"x","N":3}`},
			{src: `FINAL(map[string]int{"b": 2, "a": 1})`, final: `{"a":1,"b":2}`},
			{src: `s := "later changes do not matter"` + "\nFINAL(s)\ns = \"changed\"", final: "later changes do not matter"},
		}},
		{"FINAL_VAR", []cellCase{
			{src: "ans := []string{\"a\", \"b\"}\nFINAL_VAR(\"ans\")", final: `["a","b"]`},
			{src: `FINAL_VAR("nope")`, errKind: fault.Code, errHas: "no variable"},
		}},
		{"print and fmt go to the capture", []cellCase{
			{src: "import \"fmt\"\nprint(\"a\", 1, true)\nfmt.Print(\"b\")\nfmt.Printf(\"%03d\\n\", 7)\nprintln(\"c\")", stdout: "a 1 true\nb007\nc\n"},
		}},
		{"host errors panic with the host's message", []cellCase{
			{src: "print(length(context))", stdout: "24\n"},
			{src: "print(peek(context, 0, 50000))", errKind: fault.Limit, errHas: "peek length 50000 exceeds 16000", errLine: 1},
			{src: "import \"fmt\"\nfunc try() (msg string) {\n\tdefer func() { msg = fmt.Sprint(recover()) }()\n\tpeek(context, 0, 50000)\n\treturn \"\"\n}\nprint(try())",
				stdout: "peek length 50000 exceeds 16000; peek smaller slices or search first\n"},
			{src: `print(llm_query("q"))`, stdout: "answer to q\n"},
		}},
		{"sub-call options pick a model", []cellCase{
			{src: `print(llm_query("q", Opts{Model: "cheap"}))`, stdout: "answer to q from map[model:cheap]\n"},
			{src: "opts := Opts{Model: \"big\"}\nanswers := llm_query_batched([]string{\"a\", \"b\"}, opts)\nprint(answers[1])", stdout: "answer to b from map[model:big]\n"},
			{src: `print(llm_query("q", Opts{}))`, stdout: "answer to q from map[]\n"},
			{src: `print(llm_query("q", Opts{Model: "a"}, Opts{Model: "b"}))`, errKind: fault.Code, errHas: "llm_query takes at most one Opts (opts), got 2"},
			{src: `print(llm_query("q", Opts{Modle: "a"}))`, errKind: fault.Code, errHas: "unknown field Modle in struct literal of type Opts"},
			{src: `print(llm_query("q", "cheap"))`, errKind: fault.Code, errHas: "cannot use \"cheap\" (untyped string constant) as Opts value in argument to llm_query"},
			{src: `print(read_file("x"))`, errKind: fault.Denied},
		}},
		{"a whole program runs main once", []cellCase{
			{src: "package main\n\nimport \"fmt\"\n\nvar n int\n\nfunc main() {\n\tn++\n\tfmt.Println(\"main\", n)\n}\n", stdout: "main 1\n"},
			{src: "print(\"next\", n)", stdout: "next 1\n"},
			{src: "package main\n\nfunc main() { print(\"again\") }\n", stdout: "again\n"},
		}},
		{"modern Go", []cellCase{
			{src: "a, b := 3, 7\nbest := max(a, 5)\nlo := min(2.5, 1)\nprint(best, lo, min(b, a, 9))", stdout: "5 1 3\n"},
			{src: "import (\n\t\"maps\"\n\t\"slices\"\n)\nm := map[string]int{\"b\": 2, \"a\": 1}\nkeys := slices.Sorted(maps.Keys(m))\nkeys = append(keys, \"c\")\nprint(keys, len(keys))", stdout: "[a b c] 3\n"},
			{src: "import \"strings\"\nn := 0\nfor line := range strings.Lines(\"a\\nb\\n\") {\n\tn += len(line)\n}\nprint(n)", stdout: "4\n"},
			{src: "for k, v := range maps.All(map[string]int{\"z\": 26}) {\n\tprint(k, v)\n}", stdout: "z 26\n"},
			{src: "fs := []func() int{}\nfor i := 0; i < 3; i++ {\n\tfs = append(fs, func() int { return i })\n}\nprint(fs[0](), fs[1](), fs[2]())", stdout: "0 1 2\n"},
			{src: "func f() {\n\tfor i := range 2 {\n\t\tdefer print(\"d\", i)\n\t}\n}\nf()", stdout: "d 1\nd 0\n"},
			{src: "import \"strconv\"\ntotal := 0\nfor _, s := range []string{\"1\", \"x\", \"3\"} {\n\tif n, err := strconv.Atoi(s); err == nil {\n\t\ttotal += n\n\t}\n}\nprint(total)", stdout: "4\n"},
			{src: "func Pairs[K comparable, V any](m map[K]V, f func(K, V) string) []string {\n\tvar out []string\n\tfor k, v := range m {\n\t\tout = append(out, f(k, v))\n\t}\n\treturn out\n}\nps := Pairs(map[string]int{\"a\": 1}, func(k string, v int) string { return k + strconv.Itoa(v) })\nprint(ps)", stdout: "[a1]\n"},
			{src: "func Map[T, U any](xs []T, f func(T) U) []U {\n\tout := make([]U, 0, len(xs))\n\tfor _, x := range xs {\n\t\tout = append(out, f(x))\n\t}\n\treturn out\n}\nprint(Map([]int{1, 2}, strconv.Itoa), Map[int, string]([]int{3}, strconv.Itoa))", stdout: "[1 2] [3]\n"},
			{src: "m := map[string]int{\"a\": 1}\nxs := []int{1, 2}\nclear(m)\nclear(xs)\nprint(len(m), xs)", stdout: "0 [0 0]\n"},
		}},
		{"a top-level defer runs once, at the end of its cell", []cellCase{
			{src: "x := 1\ndefer print(\"d1\", x)\nx = 2\ndefer print(\"d2\", x)\nprint(\"body\")", stdout: "body\nd2 2\nd1 1\n"},
			{src: "print(\"next\")", stdout: "next\n"},
			{src: "defer print(\"still runs\")\npanic(\"p\")", stdout: "still runs\n", errKind: fault.Code, errHas: "p"},
		}},
		{"interfaces print through their methods", []cellCase{
			{src: "import (\n\t\"errors\"\n\t\"fmt\"\n)\ntype named interface{ fmt.Stringer }\ntype v struct{}\nfunc (v) String() string { return \"V\" }\ntype myErr struct{ code int }\nfunc (e *myErr) Error() string { return fmt.Sprint(\"code \", e.code) }\nvar n named = v{}\nerr := fmt.Errorf(\"wrapped: %w\", &myErr{7})\nvar target *myErr\nfmt.Println(n, v{}, err, errors.As(err, &target), target.code)",
				stdout: "V V wrapped: code 7 true 7\n"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, Config{}, "")
			for i, c := range tt.cells {
				checkCell(t, s, i, c)
			}
		})
	}
}

func TestVars(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for _, src := range []string{"a := 1\nvar b = 2\nconst c = 3\nfunc f() {}\ntype T int", "d, _ := 4, 5\nfor i := 0; i < 1; i++ { e := i; _ = e }", "broken := undefinedThing()"} {
		s.run(src)
	}
	if got, want := strings.Join(s.e.Vars(), ","), "a,b,d"; got != want {
		t.Errorf("Vars() = %s, want %s", got, want)
	}
}

func TestOutputCap(t *testing.T) {
	s := newTestSession(t, Config{OutputCap: 50}, "")
	r := s.run("import \"strings\"\nprint(strings.Repeat(\"é\", 199))")
	if !r.Truncated || !strings.HasPrefix(r.Stdout, strings.Repeat("é", 50)+"\n[output truncated: 200 characters in total") {
		t.Errorf("got truncated=%v stdout=%q", r.Truncated, r.Stdout)
	}
	if r := s.run(`print("short")`); r.Truncated || r.Stdout != "short\n" {
		t.Errorf("the cap is per cell: %s", describe(r))
	}
}

func TestCancelStopsLoop(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	s.parseOnly = true // the validator rejects for {} outright
	start := time.Now()
	r := s.runCtx(context.Background(), 200*time.Millisecond, "n := 0\nfor {\n\tn++\n}")
	if errKind(r.Err) != fault.Timeout {
		t.Fatalf("want a timeout, got %s", describe(r))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	time.Sleep(50 * time.Millisecond)
	if r := s.run(`print("still usable")`); r.Stdout != "still usable\n" {
		t.Errorf("after a timeout: %s", describe(r))
	}
}

func TestWrongFileSet(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	res, err := validator.Validate(source.Go, "cell.go", []byte("x := 1"), validator.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.e.Exec(context.Background(), res.Go); errKind(r.Err) != fault.Code || !strings.Contains(r.Err.Error(), "FileSet") {
		t.Errorf("got %s", describe(r))
	}
	if r := s.e.Exec(context.Background(), nil); r.Err == nil {
		t.Error("a nil unit must fail")
	}
	s.e.Close()
	if r := s.run("x := 1"); r.Err == nil {
		t.Error("Exec after Close must fail")
	}
}

func TestSearchTypes(t *testing.T) {
	s := newTestSession(t, Config{}, "sample")
	checkCell(t, s, 0, cellCase{src: "ms := search(context, \"WARN\")\nvar first Match = ms[0]\ncs := chunk(context, 5000, 0)\nvar c0 Slice = cs[0]\nprint(len(ms), first.Line, len(cs), c0.End)", stdout: "21 4 2 5000\n"})
	checkCell(t, s, 1, cellCase{src: "ms[0].Text = \"changed\"\nprint(search(context, \"WARN\")[0].Text)", stdout: "WARN\n"})
	checkCell(t, s, 2, cellCase{src: "print(length(Context{Name: \"other\"}))", errKind: fault.Code, errHas: "no context named other"})
}

// TestCancelledCellCannotResume checks that a cell cancelled during a long native call does not
// go on with its next top-level statement once the call returns, even when a later cell runs.
func TestCancelledCellCannotResume(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	src := "import (\n\t\"regexp\"\n\t\"strings\"\n)\nbig := strings.Repeat(\"x\", 4_000_000)\nok := regexp.MustCompile(`(x+x+)+y`).MatchString(big)\nprint(\"old cell continued\", ok)"
	start := time.Now()
	r := s.runCtx(context.Background(), 30*time.Millisecond, src)
	if errKind(r.Err) != fault.Timeout {
		t.Skipf("the native call finished before the deadline (%v): %s", time.Since(start), describe(r))
	}
	r2 := s.run(`print("new cell")`)
	time.Sleep(2 * time.Second) // let the old native call return
	if strings.Contains(r2.Stdout+s.e.out.String(), "old cell") {
		t.Errorf("the cancelled cell went on: %q / %q", r2.Stdout, s.e.out.String())
	}
	if r2.Err != nil && (errKind(r2.Err) != fault.Timeout || !strings.Contains(r2.Err.Error(), "start a new session")) {
		t.Errorf("the next cell: %s", describe(r2))
	}
	if r3 := s.run(`print("later")`); r3.Stdout != "later\n" {
		t.Errorf("once the call returned, cells run again: %s", describe(r3))
	}
}
