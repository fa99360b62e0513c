package validator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// TestGoConstSizes: every constant expression Go accepts is evaluated as Go evaluates it, in
// every place a constant sets how much is allocated (issue 17, finding 6a: max(1<<36, 1) passed).
func TestGoConstSizes(t *testing.T) {
	const big = "1<<36"
	checkRules(t, source.Go, []ruleCase{
		// The operators and builtins the evaluator used to ignore.
		{"x := make([]byte, max(" + big + ", 1))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, min(" + big + ", 1<<37))", []string{"1:19 alloc-size"}},
		{"n := 3\nx := make([]byte, max(n, " + big + "))", []string{"2:19 alloc-size"}},
		{"x := make([]byte, (1<<40 + 1<<37) % (1<<39))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, (1<<40-1)&(1<<37))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, (1<<40)&^(1<<39))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, 1<<40|1)", []string{"1:19 alloc-size"}},
		{"x := make([]byte, ^uint32(0))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, -(-1 << 36))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, 1e12/3)", []string{"1:19 alloc-size"}},
		{"x := make([]byte, int(real(1e12+2i)))", []string{"1:19 alloc-size"}},
		{"x := make([]byte, len(\"abcdefgh\") << 33)", []string{"1:19 alloc-size"}},
		{"x := make([]byte, len(string(rune(0x10000))) << 33)", []string{"1:19 alloc-size"}},
		{"x := make([]byte, uint64(1)<<40>>2)", []string{"1:19 alloc-size"}},
		// Named, typed and iota constants, however far down a chain.
		{"const (\n\ta = 1 << (iota * 10)\n\tb\n\tc\n\td\n)\nx := make([]byte, d)", []string{"7:19 alloc-size"}},
		{"type size uint32\nconst n size = 1<<32 - 1\nx := make([]byte, n)", []string{"3:19 alloc-size"}},
		{"type size uint32\nx := make([]byte, ^size(0))", []string{"2:19 alloc-size"}},
		{constChain(40), []string{"42:19 alloc-size"}},
		{"import \"math\"\nx := make([]byte, math.MaxInt32)", []string{"2:19 alloc-size"}},
		{"import \"time\"\nx := make([]byte, time.Hour)", []string{"2:19 alloc-size"}},
		{"import \"time\"\nx := make([]byte, time.Duration(10)*time.Second)", []string{"2:19 alloc-size"}},
		{"import \"bufio\"\nx := make([]byte, bufio.MaxScanTokenSize<<10)", []string{"2:19 alloc-size"}},
		// Every allocation form: make's sizes times their elements, arrays of arrays, counts.
		{"x := make([]byte, 0, " + big + ")", []string{"1:22 alloc-size"}},
		{"x := make(map[int]int, " + big + ")", []string{"1:24 alloc-size"}},
		{"x := make(chan int, " + big + ")", []string{"1:21 alloc-size"}},
		{"x := make([][1 << 10]byte, 1<<20)", []string{"1:28 alloc-size"}},
		{"type row [1 << 12]byte\nx := make([]row, 1<<14)", []string{"2:18 alloc-size"}},
		{"x := append([]byte{}, make([]byte, " + big + ")...)", []string{"1:36 alloc-size"}},
		{"var g [1 << 13][1 << 13]byte", []string{"1:8 alloc-size"}},
		{"type row [1 << 12]byte\ntype grid [1 << 13]row", []string{"2:12 alloc-size"}},
		{"type cell struct{ a, b [1 << 12]byte }\nvar g [1 << 12]cell", []string{"2:8 alloc-size"}},
		{"p := new([1 << 40]byte)", []string{"1:11 alloc-size"}},
		{"x := []byte{" + big + ": 1}", []string{"1:13 alloc-size"}},
		{"import \"strings\"\ns := strings.Repeat(\"abcdefgh\", 1<<22)", []string{"2:33 alloc-size"}},
		{"import \"bytes\"\ns := bytes.Repeat([]byte(\"abcdefgh\"), 1<<22)", []string{"2:39 alloc-size"}},
		{"import \"slices\"\ns := slices.Grow([]int{}, " + big + ")", []string{"2:27 alloc-size"}},
		{"import \"slices\"\ns := slices.Repeat([]int{1}, " + big + ")", []string{"2:30 alloc-size"}},
		{"import \"math/rand\"\np := rand.Perm(" + big + ")", []string{"2:16 alloc-size"}},
		{"import \"container/ring\"\nr := ring.New(" + big + ")", []string{"2:15 alloc-size"}},
		{"import (\"bufio\"; \"strings\")\nr := bufio.NewReaderSize(strings.NewReader(\"\"), " + big + ")", []string{"2:49 alloc-size"}},
		{"import \"strconv\"\ns := strconv.FormatFloat(1, 'f', 1<<30, 64)", []string{"2:34 alloc-size"}},
		{"import \"strings\"\nvar b strings.Builder\nb.Grow(" + big + ")", []string{"3:8 alloc-size"}},
		{"import \"math/big\"\nx := new(big.Int).Lsh(big.NewInt(1), 1<<40)", []string{"2:38 alloc-size"}},
		{"import \"math/big\"\nf := new(big.Float).SetPrec(big.MaxPrec)", []string{"2:29 alloc-size"}},
		// Near misses: sizes under the limit, and what is not a constant, pass.
		{"x := make([]byte, max(1<<20, 1))", nil},
		{"n := 1 << 40\nx := make([]byte, n)", nil},
		{"x := make([][1 << 4]byte, 1<<20)", nil},
		{"var g [1 << 12][1 << 12]byte", nil},
		{"import \"strings\"\ns := strings.Repeat(\"ab\", 1<<23)", nil},
		{"const (\n\ta = iota\n\tb\n)\nx := make([]byte, b<<20)", nil},
		{"x := make([]byte, 7/2*(1<<22))", nil},
		{"import \"math\"\nx := make([]float64, 0, int(math.Sqrt2*1000))", nil},
		{"x := 0\nfor x < 3 {\n\tx++\n}", nil},
	})
}

// constChain declares c0 = 1 and c1 ... c<n> doubling it, used as a size: the chain once went
// further than the evaluator looked (c26 passed), and a naive evaluator takes 2^n steps.
func constChain(n int) string {
	var b strings.Builder
	b.WriteString("const c0 = 1\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "const c%d = c%d + c%d\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "x := make([]byte, c%d)", n)
	return b.String()
}

// TestGoConstEvalBounded: constant evaluation is linear in the source (each constant once),
// never builds a huge number, and never panics on what Go's type checker would refuse.
func TestGoConstEvalBounded(t *testing.T) {
	for name, src := range map[string]string{
		"doubling chain": constChain(3000),
		"huge shift":     "const a = 1 << 1000000000\nx := make([]byte, a>>999999990)",
		"squaring chain": "const a0 = 1 << 500\n" + squaring(60) + "x := make([]byte, a60)",
		"mixed kinds":    "x := make([]byte, 1 % 2.5)\ny := make([]byte, \"a\" << 2)\nz := make([]byte, true + 1)\nw := make([]byte, 1/0)",
		"cycle":          "const a = b\nconst b = a\nx := make([]byte, a)",
	} {
		start := time.Now()
		if _, err := validator.Validate(source.Go, "cell", []byte(src), validator.Policy{}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: validating took %v", name, d)
		}
	}
}

func squaring(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "const a%d = a%d * a%d\n", i, i-1, i-1)
	}
	return b.String()
}
