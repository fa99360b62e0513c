package repl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Reading a big context in 16,000-character peeks, the loop models write, through the real
// engines in a worker process (unconfined, and confined with every layer this machine has):
//
//	go test ./repl -run '^$' -bench 'PeekLoop|Text30MB' -benchtime 3x
//
// RLM_BENCH_CONTEXT_MB sets the context's size (default 1024, a 1 GB file written once per run
// under the temp directory). Each benchmark reports GB/s of context read per second of cell time.

var peekLoop = map[string]string{
	"go": `n := length(context)
total := 0
for off := 0; off < n; off += 16000 {
	total += len(peek(context, off, 16000))
}
print(total)`,
	"js": `let total = 0;
const n = length(context);
for (let off = 0; off < n; off += 16000) total += peek(context, off, 16000).length;
print(total);`,
}

func BenchmarkPeekLoop(b *testing.B) {
	mb := 1024
	if v, err := strconv.Atoi(os.Getenv("RLM_BENCH_CONTEXT_MB")); err == nil && v > 0 {
		mb = v
	}
	path, size := benchContext(b, mb)
	for _, mode := range []string{"unconfined", "confined"} {
		for _, lang := range []string{"go", "js"} {
			b.Run(mode+"/"+lang, func(b *testing.B) {
				s := open(b, benchOptions(b, mode, lang, path))
				want := strconv.FormatInt(size, 10) + "\n" // ASCII: characters = bytes
				var cell time.Duration
				for b.Loop() {
					start := time.Now()
					r := s.Exec(b.Context(), peekLoop[lang])
					cell += time.Since(start)
					if r.Err != nil || r.Stdout != want {
						b.Fatalf("got %q, %v; want %q", r.Stdout, r.Err, want)
					}
				}
				b.ReportMetric(float64(size)*float64(b.N)/cell.Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkText30MB: text(context) of a 30 MB context (ASCII, and text where one character in
// six is not ASCII) and the length of the result, in a cell of a confined worker. The worker's
// peak RSS is reported too (VmHWM: the mapped context's pages count once touched).
func BenchmarkText30MB(b *testing.B) {
	src := map[string]string{"go": "import \"unicode/utf8\"\nt := text(context)\nprint(utf8.RuneCountInString(t))",
		"js": "const t = text(context)\nprint(t.length)"}
	for _, kind := range []string{"ascii", "unicode"} {
		path, chars := benchContextKind(b, 30, kind)
		for _, lang := range []string{"go", "js"} {
			b.Run(kind+"/"+lang, func(b *testing.B) {
				s := open(b, benchOptions(b, "confined", lang, path))
				want := strconv.FormatInt(chars, 10) + "\n"
				if lang == "js" && kind == "unicode" {
					want = strconv.FormatInt(chars+utf16Extra, 10) + "\n"
				}
				for b.Loop() {
					if r := s.Exec(b.Context(), src[lang]); r.Err != nil || r.Stdout != want {
						b.Fatalf("got %q, %v; want %q", r.Stdout, r.Err, want)
					}
				}
				if kb := peakRSS(s.w.cmd.Process.Pid); kb > 0 {
					b.ReportMetric(float64(kb)/1024, "worker-peak-RSS-MB")
				}
			})
		}
	}
}

func benchOptions(b *testing.B, mode, lang, path string) Options {
	var o Options
	if mode == "confined" {
		o = confinedOptions(b, lang)
	} else {
		o = testOptions("real:none")
		o.Lang, o.AllowDegraded = lang, true
	}
	o.Contexts = []string{path}
	o.CellTimeout = 10 * time.Minute
	return o
}

// benchContext writes an ASCII log of about mb megabytes (see benchContextKind) and returns its
// path and size (bytes, and characters).
func benchContext(b *testing.B, mb int) (string, int64) { return benchContextKind(b, mb, "ascii") }

// utf16Extra is how many more UTF-16 units than characters a unicode context has: none, its
// non-ASCII characters are in the BMP.
const utf16Extra = 0

// benchContextKind writes a log of about mb megabytes into a directory every uid can read (the
// confined worker runs as another uid), once per size and process, and returns its path and its
// length in characters. Kind "unicode" puts "é" and "世界" in every line.
func benchContextKind(b *testing.B, mb int, kind string) (string, int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("rlm-bench-ctx-%d", os.Getpid()))
	path := filepath.Join(dir, fmt.Sprintf("log-%dMB-%s.txt", mb, kind))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n, chars int64
	for i := 0; n < int64(mb)<<20; i++ {
		line := fmt.Sprintf("2026-11-01T10:%02d:%02dZ %s [svc-%d] request %d served in %d ms\n",
			i/60%60, i%60, []string{"INFO ", "WARN ", "ERROR"}[i%3], i%7, i, i%997)
		if kind == "unicode" {
			line = "é 世界 " + line
		}
		w.WriteString(line)
		n += int64(len(line))
		chars += int64(utf8.RuneCountInString(line))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Chmod(0o644); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.Cleanup(func() {
		os.Remove(path)
		os.Remove(dir) // when empty
	})
	return path, chars
}

// peakRSS is a process's peak resident set (VmHWM) in KiB, or 0.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
