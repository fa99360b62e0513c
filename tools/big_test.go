package tools

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
)

// The big-file checks run only with -bigfile=PATH (the file is generated
// there if missing), e.g. via scripts/bench-search.sh.
var (
	bigFile = flag.String("bigfile", "", "path of a large log-like file for the big-file benchmarks (generated if missing)")
	bigSize = flag.Int64("bigsize", 1<<30, "size in bytes of the generated big file")
)

// Patterns measured against ripgrep.
const (
	rareLiteral = `TRACE-7f3a9c2e`    // appears bigRare times
	noLitRegex  = `[0-9]{3}-[0-9]{4}` // no literal prefix; appears in ~0.1% of lines
	bigRare     = 10
)

func needBigFile(tb testing.TB) string {
	tb.Helper()
	if *bigFile == "" {
		tb.Skip("big-file benchmark: pass -bigfile=/tmp/rlm-bench-1g.log")
	}
	if st, err := os.Stat(*bigFile); err == nil && st.Size() >= *bigSize {
		return *bigFile
	}
	if err := writeBigFile(*bigFile, *bigSize); err != nil {
		tb.Fatal(err)
	}
	return *bigFile
}

// writeBigFile writes size bytes of log lines: timestamps, levels, services,
// request ids, paths, some phone numbers and bigRare occurrences of rareLiteral.
func writeBigFile(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(42, 42))
	levels := []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
	verbs := []string{"GET", "GET", "POST", "PUT", "DELETE"}
	lines := size / 118
	rareEvery := lines / bigRare
	var b []byte
	written := int64(0)
	for n := int64(0); ; n++ {
		b = b[:0]
		sec := n / 1000
		b = fmt.Appendf(b, "2025-03-%02dT%02d:%02d:%02d.%03dZ %s svc=api-%d req=%08x user=u%05d %s /v1/items/%d status=%d dur=%dms",
			1+sec/86400%28, sec/3600%24, sec/60%60, sec%60, n%1000, levels[r.IntN(len(levels))], r.IntN(10),
			r.Uint32(), r.IntN(100000), verbs[r.IntN(len(verbs))], r.IntN(1000000), 200+r.IntN(4)*100, r.IntN(2000))
		if r.IntN(1000) == 0 {
			b = fmt.Appendf(b, " callback=555-%04d", r.IntN(10000))
		}
		if n%rareEvery == rareEvery/2 {
			b = append(b, " trace="+rareLiteral...)
		}
		b = append(b, '\n')
		if written+int64(len(b)) > size {
			break
		}
		w.Write(b)
		written += int64(len(b))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func rssAnonKB() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timeIt runs fn n times and returns the median duration.
func timeIt(n int, fn func()) time.Duration {
	var ds []time.Duration
	for range n {
		t0 := time.Now()
		fn()
		ds = append(ds, time.Since(t0))
	}
	return median(ds)
}

var bigLimits = Limits{}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// TestBigReport measures the figures of the brief and times Count side by
// side with rg -c on the same file, printing a table with the targets.
func TestBigReport(t *testing.T) {
	path := needBigFile(t)
	warm(path)
	s, build := openTimed(t, path)
	defer s.Close()
	d := s.Docs()[0]
	gb := float64(d.Size()) / 1e9
	fmt.Printf("\n%s: %.2f GB, %d chars, %d lines, GOMAXPROCS=%d\n", path, gb, d.Length(), d.Lines(), runtime.GOMAXPROCS(0))
	enc := encodedLen(d.Size(), len(path))
	fmt.Printf("index build   %8.2f GB/s  (median of 3: %v; index %d KB encoded = %.3f%% of the file)  target ≥ 1 GB/s: %s\n",
		gb/build.Seconds(), build.Round(time.Millisecond), enc/1024,
		100*float64(enc)/float64(d.Size()), verdict(gb/build.Seconds() >= 1))
	peek1k, peek16k := peekMedians(t, d)
	fmt.Printf("peek 1000     %8v    (median of 2000 random offsets; 16000 chars: %v)  target ≤ 50µs: %s\n",
		peek1k.Round(10*time.Nanosecond), peek16k.Round(10*time.Nanosecond), verdict(peek1k <= 50*time.Microsecond))
	fmt.Printf("\n%-22s %10s %9s %9s %6s %9s  %s\n", "pattern", "count", "ours", "rg -c", "ratio", "target", "rg count")
	for _, c := range []struct {
		pattern string
		target  float64
	}{{rareLiteral, 2}, {noLitRegex, 4}, {`\b\w+@\w+\.com\b`, 0}, {`(?i)trace-7F3A`, 0}, {`status=5\d\d\s+dur`, 0}} {
		compareRg(t, d, path, c.pattern, c.target)
	}
	if res, err := d.Search(noLitRegex, 0); err != nil || res.Total == 0 {
		t.Fatalf("search: %v", err)
	}
	runtime.GC()
	rss := rssAnonKB()
	fmt.Printf("\nRssAnon after index build, peeks, counts and a search: %d KB  target ≤ 65536 KB: %s\n", rss, verdict(rss <= 65536))
}

// openTimed opens path three times and returns the last store and the
// median time to open (map and index) it.
func openTimed(t *testing.T, path string) (*Store, time.Duration) {
	var s *Store
	build := timeIt(3, func() {
		if s != nil {
			s.Close()
		}
		var err error
		if s, err = Open([]string{path}, bigLimits); err != nil {
			t.Fatal(err)
		}
	})
	return s, build
}

func peekMedians(t *testing.T, d *Doc) (time.Duration, time.Duration) {
	r := rand.New(rand.NewPCG(1, 1))
	var peeks []time.Duration
	for range 2000 {
		off := r.Int64N(d.Length() - 2000)
		t0 := time.Now()
		if _, err := d.Peek(off, 1000); err != nil {
			t.Fatal(err)
		}
		peeks = append(peeks, time.Since(t0))
	}
	full := timeIt(201, func() { d.Peek(r.Int64N(d.Length()-20000), limits.PeekChars) })
	return median(peeks), full
}

// compareRg times Count and rg -c alternately, five times each, so that
// both see the same machine load, and prints the best times (the least
// disturbed by other work on a shared machine).
func compareRg(t *testing.T, d *Doc, path, pattern string, target float64) {
	rg, rgErr := exec.LookPath("rg")
	var n int64
	var ours, theirs []time.Duration
	rgCount := "n/a"
	for range 5 {
		t0 := time.Now()
		var err error
		if n, err = d.Count(pattern); err != nil {
			t.Fatal(err)
		}
		ours = append(ours, time.Since(t0))
		if rgErr == nil {
			t0 = time.Now()
			out, _ := exec.Command(rg, "-c", pattern, path).Output()
			theirs = append(theirs, time.Since(t0))
			rgCount = strings.TrimSpace(string(out))
		}
	}
	ratio, goal := 0.0, ""
	if len(theirs) > 0 {
		ratio = slices.Min(ours).Seconds() / slices.Min(theirs).Seconds()
	}
	if target > 0 {
		goal = fmt.Sprintf("≤%gx %s", target, verdict(ratio > 0 && ratio <= target))
	}
	best := time.Duration(0)
	if len(theirs) > 0 {
		best = slices.Min(theirs)
	}
	fmt.Printf("%-22s %10d %9v %9v %6.2f %9s  %s\n", pattern, n, slices.Min(ours).Round(time.Millisecond),
		best.Round(time.Millisecond), ratio, goal, rgCount)
}

// warm reads the file once so that every measurement starts from the page cache.
func warm(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 4<<20)
	for {
		if _, err := f.Read(buf); err != nil {
			return
		}
	}
}

func BenchmarkCount1G(b *testing.B) {
	path := needBigFile(b)
	s, err := Open([]string{path}, bigLimits)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	d := s.Docs()[0]
	for _, p := range []string{rareLiteral, noLitRegex} {
		b.Run(p, func(b *testing.B) {
			b.SetBytes(d.Size())
			for b.Loop() {
				if _, err := d.Count(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndex1G(b *testing.B) {
	path := needBigFile(b)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		s, err := Open([]string{path}, bigLimits)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
