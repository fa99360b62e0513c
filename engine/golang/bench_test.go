package golang

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/rlm-sandbox/rlm/source"
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
	res, err := validator.Validate(source.Go, "cell.go", []byte("import \"strings\"\n"+wordCountCell), validator.Policy{}, validator.GoFileSet(s.e.FileSet()))
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
// strings this large through peek): a cell declares it, and engine-written code in a file of
// its own sets it from a test package.
func (e *Engine) bindText(text string) error {
	res, err := validator.Validate(source.Go, "cell.go", []byte("var text string"), validator.Policy{}, validator.GoFileSet(e.FileSet()))
	if err != nil {
		return err
	}
	if r := e.Exec(context.Background(), res.Go); r.Err != nil {
		return r.Err
	}
	if err := e.it.Use(interp.Exports{"benchdata/benchdata": {"Text": reflect.ValueOf(&text).Elem()}}); err != nil {
		return err
	}
	return e.load("bench.go", "package main\n\nimport \"benchdata\"\n\nfunc init() { text = benchdata.Text }\n")
}

// cell30 is a typical 30-line cell: imports, a type, a helper, parsing, a map and a sort.
const cell30 = `import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

type row struct {
	name  string
	score int
}

func parseRow(line string) (row, bool) {
	parts := strings.Split(line, ",")
	if len(parts) != 2 {
		return row{}, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(parts[1]))
	if err != nil {
		return row{}, false
	}
	return row{strings.TrimSpace(parts[0]), n}, true
}

text := "ann, 3\nbob, 5\ncid, x\ndan, 4"
var rows []row
for _, line := range strings.Split(text, "\n") {
	if r, ok := parseRow(line); ok {
		rows = append(rows, r)
	}
}
sort.Slice(rows, func(i, j int) bool { return rows[i].score > rows[j].score })
best := rows[0]
fmt.Println(len(rows), best.name)`

// BenchmarkTypeCheck measures the type check of a 30-line cell in a session whose packages are
// loaded (the first cell that imports a package pays for decoding it once).
func BenchmarkTypeCheck(b *testing.B) {
	s := newTestSession(b, Config{}, "")
	if r := s.run(cell30); r.Err != nil {
		b.Fatal(r.Err)
	}
	for b.Loop() {
		b.StopTimer()
		res, err := validator.Validate(source.Go, "cell.go", []byte(cell30), validator.Policy{}, validator.GoFileSet(s.e.FileSet()))
		if err != nil || res.Err() != nil {
			b.Fatal(err, res.Err())
		}
		b.StartTimer()
		if _, err := s.e.types.Check(res.Go); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCell30 measures validating, checking and running the 30-line cell in a warm engine.
func BenchmarkCell30(b *testing.B) {
	s := newTestSession(b, Config{}, "")
	for b.Loop() {
		if r := s.run(cell30); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkSessionStart measures what a Go worker does before it is ready: a new engine, and
// the session's import of fmt. The type checker loads nothing for an imports-only cell.
func BenchmarkSessionStart(b *testing.B) {
	h := &fakeHost{text: "x"}
	for b.Loop() {
		e, err := New(Config{}, h)
		if err != nil {
			b.Fatal(err)
		}
		res, err := validator.Validate(source.Go, "cell.go", []byte(`import "fmt"`), validator.Policy{}, validator.GoFileSet(e.FileSet()))
		if err != nil || res.Err() != nil {
			b.Fatal(err, res.Err())
		}
		if r := e.Exec(context.Background(), res.Go); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}
