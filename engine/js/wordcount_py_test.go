package js

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// wordCountTextJS is the Go engine's wordCountCell (engine/golang/bench_test.go) in JS: split
// into lines, split each line on whitespace, count lower-cased words. text is a global string
// set by the test (cells normally get text through peek; here it is already in memory).
const wordCountTextJS = `
var counts = new Map();
for (const line of text.split("\n")) {
  for (const w of line.split(/\s+/)) {
    if (w === "") continue;
    const k = w.toLowerCase();
    counts.set(k, (counts.get(k) || 0) + 1);
  }
}
`

// TestWordCountFile times wordCountTextJS on the text in $RLM_WORDCOUNT_FILE (written by the Go
// engine's TestWordCountFile); the JS half of scripts/bench-wordcount.sh. It prints
// "RESULT js-engine <median ns> <runs>" and "TOP10 js-engine <word=count ...>".
func TestWordCountFile(t *testing.T) {
	path := os.Getenv("RLM_WORDCOUNT_FILE")
	if path == "" {
		t.Skip("set RLM_WORDCOUNT_FILE to run")
	}
	runs := 5
	fmt.Sscan(os.Getenv("RLM_WORDCOUNT_RUNS"), &runs)
	runs = max(runs, 1)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := newEngine(t, Config{})
	if err := e.vm.Set("text", string(b)); err != nil {
		t.Fatal(err)
	}
	unit := parse(t, wordCountTextJS, true)
	var ds []time.Duration
	for range runs {
		start := time.Now()
		r := e.Exec(t.Context(), unit)
		ds = append(ds, time.Since(start))
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	r := mustRun(t, e, `print([...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10).map(([w, n]) => w + "=" + n).join(" "))`)
	slices.Sort(ds)
	fmt.Printf("RESULT js-engine %d %d\n", int64(ds[len(ds)/2]), runs)
	fmt.Printf("TOP10 js-engine %s\n", strings.TrimSpace(r.Stdout))
}
