package js

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type nopHost struct{}

func (nopHost) Call(context.Context, string, []any) (any, error) { return nil, nil }

// BenchmarkNew measures a runtime with the API installed and the hardening prelude run.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		e, err := New(Config{}, nopHost{})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// BenchmarkTrivialCell measures Exec of a parsed one-line cell: compile, run, collect.
func BenchmarkTrivialCell(b *testing.B) {
	e, _ := newEngine(b, Config{})
	unit := parse(b, `const x = 1 + 1; print(x)`, true)
	ctx := context.Background()
	for b.Loop() {
		if r := e.Exec(ctx, unit); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// wordCountJS walks the context in 16,000-character chunks and counts lower-cased words.
const wordCountJS = `
const freq = new Map();
for (const c of chunk(context, 16000, 0)) {
  const text = peek(context, c.start, c.end - c.start).toLowerCase();
  for (const w of text.split(/[^a-z]+/)) {
    if (w !== "") freq.set(w, (freq.get(w) || 0) + 1);
  }
}
const top = [...freq.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
print(top.map(([w, n]) => w + "=" + n).join(" "));
`

// wordCountGo is the same work in Go, on the same chunks.
func wordCountGo(text string) string {
	runes := []rune(text)
	freq := map[string]int{}
	for start := 0; start < len(runes); start += 16000 {
		chunk := strings.ToLower(string(runes[start:min(start+16000, len(runes))]))
		for _, w := range strings.FieldsFunc(chunk, func(r rune) bool { return r < 'a' || r > 'z' }) {
			freq[w]++
		}
	}
	words := make([]string, 0, len(freq))
	for w := range freq {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		a, b := words[i], words[j]
		return freq[a] > freq[b] || freq[a] == freq[b] && a < b
	})
	var parts []string
	for _, w := range words[:3] {
		parts = append(parts, w+"="+strconv.Itoa(freq[w]))
	}
	return strings.Join(parts, " ") + "\n"
}

func fiveMB(tb testing.TB) string {
	s := sampleText(tb)
	return strings.Repeat(s, (5<<20)/len(s)+1)
}

// BenchmarkWordCount5MB compares a word-count cell over a 5 MB context with the same work in
// Go: go test ./engine/js/ -run x -bench WordCount; the ratio is js ns/op over go ns/op.
func BenchmarkWordCount5MB(b *testing.B) {
	text := fiveMB(b)
	want := wordCountGo(text)
	b.Run("js", func(b *testing.B) {
		e, err := New(Config{}, newFakeHost(text))
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		unit := parse(b, wordCountJS, true)
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			r := e.Exec(context.Background(), unit)
			if r.Err != nil || r.Stdout != want {
				b.Fatalf("%v: %q, want %q", r.Err, r.Stdout, want)
			}
		}
	})
	b.Run("go", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if wordCountGo(text) != want {
				b.Fatal("mismatch")
			}
		}
	})
}
