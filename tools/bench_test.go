package tools

import (
	"strings"
	"testing"
)

// BenchmarkPeekSequential reads a 64 MB context in 16,000-character peeks, as a model's loop
// does, and reports GB/s: go test ./tools -run '^$' -bench PeekSequential
func BenchmarkPeekSequential(b *testing.B) {
	for _, kind := range []string{"ascii", "unicode"} {
		line := "2026-11-01T10:00:00Z INFO  [svc-1] request 123 served in 12 ms\n"
		if kind == "unicode" {
			line = "é 世界 " + line
		}
		_, d := openText(b, strings.Repeat(line, (64<<20)/len(line)), Limits{})
		b.Run(kind, func(b *testing.B) {
			n, off, bytes := d.Length(), int64(0), int64(0)
			for b.Loop() {
				if off >= n {
					off = 0
				}
				s, err := d.Peek(off, 16000)
				if err != nil {
					b.Fatal(err)
				}
				off += 16000
				bytes += int64(len(s.Text))
			}
			b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
