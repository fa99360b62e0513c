package golang

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/validator"
)

// go test ./engine/golang -run '^$' -bench . -benchtime 20x

func BenchmarkNewEngine(b *testing.B) {
	h := &fakeHost{text: "x"}
	for b.Loop() {
		if _, err := New(Config{}, h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrivialCell measures validating and running `x := 1` in a warm engine.
func BenchmarkTrivialCell(b *testing.B) {
	s := newTestSession(b, Config{}, "")
	for b.Loop() {
		if r := s.run("x := 1"); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// wordText is about 5 MB of words from a 2,000-word vocabulary.
func wordText() string {
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", rng.Int63()%1_000_000)
	}
	var sb strings.Builder
	for sb.Len() < 5<<20 {
		sb.WriteString(vocab[rng.Intn(len(vocab))])
		if rng.Intn(12) == 0 {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

const wordCountCell = `counts := map[string]int{}
for _, line := range strings.Split(text, "\n") {
	for _, w := range strings.Fields(line) {
		counts[strings.ToLower(w)]++
	}
}
distinct := len(counts)`

func nativeWordCount(text string) int {
	counts := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		for _, w := range strings.Fields(line) {
			counts[strings.ToLower(w)]++
		}
	}
	return len(counts)
}

// BenchmarkWordCount5MB runs the same word count interpreted and compiled and reports the ratio.
func BenchmarkWordCount5MB(b *testing.B) {
	text := wordText()
	s := newTestSession(b, Config{}, "")
	if err := s.e.bindText(text); err != nil {
		b.Fatal(err)
	}
	res, err := validator.Validate(validator.Go, "cell.go", []byte("import \"strings\"\n"+wordCountCell), validator.Policy{}, validator.GoFileSet(s.e.FileSet()))
	if err != nil || res.Err() != nil {
		b.Fatal(err, res.Err())
	}
	var interp, native time.Duration
	for b.Loop() {
		start := time.Now()
		if r := s.run("import \"strings\"\n" + wordCountCell); r.Err != nil {
			b.Fatal(r.Err)
		}
		interp += time.Since(start)
		start = time.Now()
		if nativeWordCount(text) == 0 {
			b.Fatal("no words")
		}
		native += time.Since(start)
	}
	b.ReportMetric(float64(interp)/float64(native), "interp/native")
	b.ReportMetric(float64(interp.Milliseconds())/float64(b.N), "interp-ms/op")
	b.ReportMetric(float64(native.Milliseconds())/float64(b.N), "native-ms/op")
}

// bindText defines the global text in the engine (a test helper: cells cannot receive host
// strings this large through peek).
func (e *Engine) bindText(text string) error {
	e.stashValues(&text)
	c := &cell{e: e, u: &validator.GoUnit{Fset: e.FileSet()}}
	if err := c.runSource(context.Background(), "bench.go", "package main\nvar text string\n", false); err != nil {
		return err
	}
	return c.runSource(context.Background(), "bench.go", "package main; func _() { text = *_take(0).(*string) }", true)
}
