package repl

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// tallyWordCount is the word count of scripts/bench-wordcount.sh as a model writes it with
// tally: one call, the whole context split on whitespace and lower-cased natively in the
// worker; the cell prints the top 10.
var tallyWordCount = map[string]string{
	"go": "top := tally(context, `(?i)\\S+`)\nparts := []string{}\nfor _, t := range top[:10] {\n\tparts = append(parts, fmt.Sprintf(\"%s=%d\", t.Text, t.Count))\n}\nprint(strings.Join(parts, \" \"))",
	"js": `const top = tally(context, /\S+/i); print(top.slice(0, 10).map(t => t.text + "=" + t.count).join(" "))`,
}

// TestTallyWordCountFile times tallyWordCount in a session of each language over the text in
// $RLM_WORDCOUNT_FILE (written by the Go engine's TestWordCountFile) as the context: the tally
// half of scripts/bench-wordcount.sh. The time is the cell's Exec, round trip to the worker
// included; the file is mapped once the session opens. It prints "RESULT <lang>-tally <median
// ns> <runs>" and "TOP10 <lang>-tally <word=count ...>" lines.
func TestTallyWordCountFile(t *testing.T) {
	path := os.Getenv("RLM_WORDCOUNT_FILE")
	if path == "" {
		t.Skip("set RLM_WORDCOUNT_FILE to run")
	}
	runs := 5
	fmt.Sscan(os.Getenv("RLM_WORDCOUNT_RUNS"), &runs)
	for _, lang := range []string{"go", "js"} {
		o := apiOptions(t, lang)
		o.Contexts = []string{path}
		s := open(t, o)
		if lang == "go" { // the imports, once, so that the timed cells print only the top 10
			run(t, s, `import ("fmt"; "strings")`)
		}
		var ds []time.Duration
		var top string
		for range max(runs, 1) {
			start := time.Now()
			r := run(t, s, tallyWordCount[lang])
			ds = append(ds, time.Since(start))
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			top = strings.TrimSpace(r.Stdout)
		}
		slices.Sort(ds)
		fmt.Printf("RESULT %s-tally %d %d\n", lang, int64(ds[len(ds)/2]), len(ds))
		fmt.Printf("TOP10 %s-tally %s\n", lang, top)
	}
}
