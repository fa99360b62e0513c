package redact

import (
	"io"
	"strings"
	"sync"
	"testing"
)

const benchSize = 4 << 20

var benchText = sync.OnceValues(func() (string, string) {
	prose := english(42, benchSize)
	// Sparse secrets: one every ~8 KB, cycling through the real-shaped cases.
	var b strings.Builder
	var secrets []string
	for _, tc := range patternCases() {
		if tc.want != "" {
			secrets = append(secrets, tc.in)
		}
	}
	for k, p := 0, 0; p < len(prose); k++ {
		q := min(len(prose), p+8<<10)
		b.WriteString(prose[p:q])
		b.WriteString(" " + secrets[k%len(secrets)] + " ")
		p = q
	}
	return prose, b.String()
})

func benchString(b *testing.B, s string, r *Redactor) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		r.String(s)
	}
}

// BenchmarkEnglish: prose without secrets (the 50 MB/s acceptance figure).
func BenchmarkEnglish(b *testing.B) {
	prose, _ := benchText()
	benchString(b, prose, New("Zq7"+fake(1, alnumChars, 29)))
}

// BenchmarkEnglishSparseSecrets: the same prose with a secret every 8 KB.
func BenchmarkEnglishSparseSecrets(b *testing.B) {
	_, mixed := benchText()
	benchString(b, mixed, New("Zq7"+fake(1, alnumChars, 29)))
}

// BenchmarkWriter: the sparse text through a Writer in 4 KB writes.
func BenchmarkWriter(b *testing.B) {
	_, mixed := benchText()
	r := New()
	b.SetBytes(int64(len(mixed)))
	b.ReportAllocs()
	for b.Loop() {
		w := r.Writer(io.Discard)
		for p := 0; p < len(mixed); p += 4096 {
			w.Write([]byte(mixed[p:min(len(mixed), p+4096)]))
		}
		w.Close()
	}
}

// BenchmarkReference shows why the prefilter exists (every pattern at every position).
func BenchmarkReference(b *testing.B) {
	prose, _ := benchText()
	s := prose[:256<<10]
	r := New()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		slowRedact(r, s)
	}
}
