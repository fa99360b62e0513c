package golang

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// TestWordCountFile times the 5 MB word-count cell (wordCountCell) in the Go engine and the same
// code compiled, on the text in $RLM_WORDCOUNT_FILE (written from wordText() if missing). It is
// the Go half of scripts/bench-wordcount.sh, which compares these with JS and python3:
//
//	RLM_WORDCOUNT_FILE=/tmp/rlm-wordcount-5mb.txt go test -count=1 -run '^TestWordCountFile$' -v ./engine/golang/
//
// It prints "RESULT <name> <median ns> <runs>" and "TOP10 <name> <word=count ...>" lines.
func TestWordCountFile(t *testing.T) {
	path := os.Getenv("RLM_WORDCOUNT_FILE")
	if path == "" {
		t.Skip("set RLM_WORDCOUNT_FILE to run")
	}
	runs := envRuns()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		b = []byte(wordText())
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)

	s := newTestSession(t, Config{}, "")
	if err := s.e.bindText(text); err != nil {
		t.Fatal(err)
	}
	src := "import \"strings\"\n" + wordCountCell
	res, err := validator.Validate(source.Go, "cell.go", []byte(src), validator.Policy{}, validator.GoFileSet(s.e.FileSet()))
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	var interp, native []time.Duration
	var counts map[string]int
	for range runs { // alternate so both see the same machine load
		start := time.Now()
		r := s.runCtx(t.Context(), time.Minute, src)
		interp = append(interp, time.Since(start))
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		start = time.Now()
		counts = nativeCounts(text)
		native = append(native, time.Since(start))
	}
	r := s.run(`import ("fmt"; "sort"; "strings")
keys := make([]string, 0, len(counts))
for k := range counts { keys = append(keys, k) }
sort.Slice(keys, func(i, j int) bool {
	a, b := keys[i], keys[j]
	return counts[a] > counts[b] || counts[a] == counts[b] && a < b
})
parts := []string{}
for _, k := range keys[:10] { parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k])) }
fmt.Println(strings.Join(parts, " "))`)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	fmt.Printf("RESULT go-engine %d %d\n", median(interp), runs)
	fmt.Printf("RESULT native-go %d %d\n", median(native), runs)
	fmt.Printf("TOP10 go-engine %s", r.Stdout)
	fmt.Printf("TOP10 native-go %s\n", top10(counts))
}

func envRuns() int {
	n := 5
	fmt.Sscan(os.Getenv("RLM_WORDCOUNT_RUNS"), &n)
	return max(n, 1)
}

// nativeCounts is wordCountCell compiled.
func nativeCounts(text string) map[string]int {
	counts := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		for _, w := range strings.Fields(line) {
			counts[strings.ToLower(w)]++
		}
	}
	return counts
}

func top10(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return counts[a] > counts[b] || counts[a] == counts[b] && a < b
	})
	var parts []string
	for _, k := range keys[:min(10, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return strings.Join(parts, " ")
}

func median(ds []time.Duration) int64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return int64(s[len(s)/2])
}
