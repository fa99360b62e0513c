package golang

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRangeOverStringIsLinear: ranging over a string costs time linear in its length (yaegi's
// own range is quadratic: 32,000 runes took 2.4 s, where this loop over 400,000 takes well under
// one). The loop is timed at n and 4n runes; linear growth is about 4, quadratic 16.
func TestRangeOverStringIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	const n = 100_000
	timeLoop := func(runes int) time.Duration {
		s := newTestSession(t, Config{}, "")
		text := strings.Repeat("ab\u00e9\u4e16", runes/4)
		start := time.Now()
		r := s.run(fmt.Sprintf(`text := strings.Repeat("ab\u00e9\u4e16", %d)
n, last := 0, 0
for i, r := range text {
	if r > 'a' {
		n++
	}
	last = i
}
print(n, last)`, runes/4))
		if r.Err != nil {
			t.Fatalf("%d runes: %v", runes, r.Err)
		}
		if want := fmt.Sprintf("added import \"strings\"\n%d %d\n", runes/4*3, len(text)-3); r.Stdout != want {
			t.Fatalf("%d runes: output %q, want %q", runes, r.Stdout, want)
		}
		return time.Since(start)
	}
	timeLoop(n) // warm up
	// The fastest of three runs of each size, so that a busy machine does not pass for growth.
	small, large := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		small, large = min(small, timeLoop(n)), min(large, timeLoop(4*n))
	}
	growth := float64(large) / float64(small)
	t.Logf("%d runes %v, %d runes %v: growth %.1f", n, small, 4*n, large, growth)
	if growth > 8 || large > 5*time.Second {
		t.Errorf("ranging over %d runes took %v, over %d runes %v (growth %.1f): want linear (about 4)", n, small, 4*n, large, growth)
	}
}

// TestRangeOverStringImportStaysHidden: the imports the desugaring adds (unicode/utf8 for a range
// over a string, fmt for print) are the engine's, so a later cell may still use the names utf8
// and fmt for its own variables. Before, the second cell failed: "utf8 redeclared in this block".
func TestRangeOverStringImportStaysHidden(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	for i, c := range []struct{ src, want string }{
		{`n := 0
for range "h\u00e9" {
	n++
}
print(n)`, "2\n"},
		{`utf8 := "mine"
print(utf8)`, "mine\n"},
		{`m := 0
for _, r := range "x\u00e9" {
	m += int(r)
}
print(m, utf8)`, "353 mine\n"},
		{`fmt := "also mine"
print(fmt)`, "also mine\n"},
	} {
		r := s.run(c.src)
		if r.Err != nil || r.Stdout != c.want {
			t.Errorf("cell %d: got %q, %v; want %q", i+1, r.Stdout, r.Err, c.want)
		}
	}
}
