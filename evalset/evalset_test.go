package evalset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// generate runs Generate into memory (small sizes only).
func generate(t *testing.T, spec Spec) (Task, []byte) {
	t.Helper()
	var buf bytes.Buffer
	task, err := Generate(&buf, spec)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", spec, err)
	}
	return task, buf.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, spec := range Suite([]int64{20 * KB}) {
		t.Run(taskID(spec), func(t *testing.T) {
			task1, out1 := generate(t, spec)
			task2, out2 := generate(t, spec)
			if sha256.Sum256(out1) != sha256.Sum256(out2) {
				t.Errorf("same spec, different bytes")
			}
			if !reflect.DeepEqual(task1, task2) {
				t.Errorf("same spec, different tasks:\n%+v\n%+v", task1, task2)
			}
			other := spec
			other.Seed++
			if _, out3 := generate(t, other); bytes.Equal(out1, out3) {
				t.Errorf("seeds %d and %d gave the same bytes", spec.Seed, other.Seed)
			}
		})
	}
}

// TestGenerateGolden pins the bytes of one spec per kind: a change of the generator that changes
// published tasks must be deliberate.
func TestGenerateGolden(t *testing.T) {
	tests := []struct {
		spec   Spec
		answer string
		sha    string
	}{
		{Spec{Kind: KindNeedle, Size: 4 * KB, Seed: 1, Depth: 0.5}, "2174624", "cc0d27e9b1235aaf"},
		{Spec{Kind: KindNeedle, Size: 4 * KB, Seed: 1, Depth: 0.5, Distractors: 3, Filler: FillerLog}, "2174624", "bfa2baafccaedd39"},
		{Spec{Kind: KindCount, Size: 4 * KB, Seed: 1}, "4", "c2d60aa0bd7a9072"},
		{Spec{Kind: KindMostFrequent, Size: 4 * KB, Seed: 1}, "shipping", "e8083a772e4df41f"},
		{Spec{Kind: KindCompare, Size: 4 * KB, Seed: 1}, "same", "a6471c8cec5c2ddf"},
	}
	for _, tt := range tests {
		task, out := generate(t, tt.spec)
		got := fmt.Sprintf("%x", sha256.Sum256(out))[:16]
		if got != tt.sha || task.Answer != tt.answer {
			t.Errorf("%s: answer %q sha %s, want %q %s", task.ID, task.Answer, got, tt.answer, tt.sha)
		}
	}
}

var needleRE = regexp.MustCompile(`The special magic number for ([a-z]+-[a-z]+) is ([0-9]+)\.`)

func TestGenerateNeedle(t *testing.T) {
	tests := []struct {
		size        int64
		depth       float64
		distractors int
		filler      string
	}{
		{1 * KB, 0, 0, ""},
		{10 * KB, 0, 0, FillerProse},
		{10 * KB, 1, 0, FillerProse},
		{10 * KB, 0.5, 0, FillerLog},
		{50 * KB, 0.25, 5, FillerProse},
		{50 * KB, 0.75, 20, FillerLog},
		{100 * KB, 1, 200, FillerProse},
	}
	for i, tt := range tests {
		spec := Spec{Kind: KindNeedle, Size: tt.size, Seed: int64(i), Depth: tt.depth, Distractors: tt.distractors, Filler: tt.filler}
		t.Run(taskID(spec), func(t *testing.T) {
			task, out := generate(t, spec)
			checkShape(t, task, out, spec.Size)
			found := needleRE.FindAllSubmatchIndex(out, -1)
			if len(found) != tt.distractors+1 {
				t.Fatalf("%d needles, want %d", len(found), tt.distractors+1)
			}
			keys := map[string]bool{}
			for _, m := range found {
				key, num := string(out[m[2]:m[3]]), string(out[m[4]:m[5]])
				if keys[key] {
					t.Errorf("key %s used twice", key)
				}
				keys[key] = true
				if key == task.Labels[0] && (num != task.Answer || int64(m[0]) != task.Offset) {
					t.Errorf("target at %d with %s, task says %d with %s", m[0], num, task.Offset, task.Answer)
				}
				if key != task.Labels[0] && num == task.Answer {
					t.Errorf("distractor %s has the answer %s", key, num)
				}
			}
			if !keys[task.Labels[0]] {
				t.Errorf("no needle for the key %s", task.Labels[0])
			}
			reserve := float64(tt.distractors+1)*maxNeedleLen + 200
			if got := float64(task.Offset) / float64(task.Size); got < tt.depth-reserve/float64(task.Size) || got > tt.depth+reserve/float64(task.Size) {
				t.Errorf("needle at depth %.3f, want %.3f", got, tt.depth)
			}
			if n := len(regexp.MustCompile(`[0-9]+`).FindAll(out, -1)); tt.filler != FillerLog && n != len(found) {
				t.Errorf("prose holds %d numbers, want only the %d needles'", n, len(found))
			}
		})
	}
}

// checkShape checks what every input satisfies: its size, ASCII, whole lines.
func checkShape(t *testing.T, task Task, out []byte, target int64) {
	t.Helper()
	if int64(len(out)) != task.Size || task.Size > target || task.Size < target-400 {
		t.Errorf("wrote %d bytes, task says %d, target %d", len(out), task.Size, target)
	}
	for i, c := range out {
		if c >= 0x80 || c < ' ' && c != '\n' {
			t.Fatalf("byte %#x at %d", c, i)
		}
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Contains(out, []byte("\n\n")) || bytes.Contains(out, []byte(" \n")) {
		t.Errorf("input is not made of whole, non-empty lines")
	}
}

func TestGenerateRecords(t *testing.T) {
	for _, kind := range []string{KindCount, KindMostFrequent, KindCompare} {
		for seed := int64(0); seed < 12; seed++ {
			spec := Spec{Kind: kind, Size: (2 + seed*7) * KB, Seed: seed}
			task, out := generate(t, spec)
			checkShape(t, task, out, spec.Size)
			counts := recount(t, out)
			want, accept := expected(task, counts)
			if task.Answer != want || !reflect.DeepEqual(task.Accept, accept) {
				t.Errorf("%s: answer %q accept %q, want %q %q (counts %v)", task.ID, task.Answer, task.Accept, want, accept, counts)
			}
		}
	}
}

// recount parses the records independently of the generator.
func recount(t *testing.T, out []byte) map[string]int {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Scan()
	if sc.Text()+"\n" != recordsHeader {
		t.Fatalf("header %q", sc.Text())
	}
	counts := map[string]int{}
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| u\d{5} \| ([a-z]+) \| [a-z ]+$`)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("bad record %q", sc.Text())
		}
		counts[m[1]]++
	}
	return counts
}

func expected(task Task, counts map[string]int) (string, []string) {
	switch task.Kind {
	case KindCount:
		return fmt.Sprint(counts[task.Labels[0]]), nil
	case KindCompare:
		a, b := counts[task.Labels[0]], counts[task.Labels[1]]
		if a == b {
			return "same", nil
		}
		if a > b {
			return task.Labels[0], nil
		}
		return task.Labels[1], nil
	}
	var best []string
	for _, c := range categories {
		if len(best) == 0 || counts[c] > counts[best[0]] {
			best = []string{c}
		} else if counts[c] == counts[best[0]] {
			best = append(best, c)
		}
	}
	if len(best) == 1 {
		return best[0], nil
	}
	return best[0], best
}

func TestGenerateRejectsBadSpecs(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: "haystack", Size: 10 * KB}, "unknown kind"},
		{Spec{Kind: KindNeedle, Size: 999}, "below the minimum"},
		{Spec{Kind: KindCount, Size: -1}, "below the minimum"},
		{Spec{Kind: KindNeedle, Size: 10 * KB, Depth: 1.01}, "outside [0, 1]"},
		{Spec{Kind: KindNeedle, Size: 10 * KB, Depth: -0.1}, "outside [0, 1]"},
		{Spec{Kind: KindNeedle, Size: 10 * KB, Distractors: -1}, "distractors is outside"},
		{Spec{Kind: KindNeedle, Size: 1 * MB, Distractors: MaxDistractors + 1}, "distractors is outside"},
		{Spec{Kind: KindNeedle, Size: 10 * KB, Distractors: 50}, "need a size of at least"},
		{Spec{Kind: KindNeedle, Size: 10 * KB, Filler: "poetry"}, "unknown filler"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		_, err := Generate(&buf, tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Generate(%+v) = %v, want an error with %q", tt.spec, err, tt.want)
		}
		if buf.Len() != 0 {
			t.Errorf("Generate(%+v) wrote %d bytes for a bad spec", tt.spec, buf.Len())
		}
	}
}

type failingWriter struct{ after, n int }

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n += len(p); w.n > w.after {
		return 0, errDiskFull
	}
	return len(p), nil
}

func TestGenerateStopsOnWriteError(t *testing.T) {
	for _, kind := range []string{KindNeedle, KindCount} {
		w := &failingWriter{after: 1 << 20}
		_, err := Generate(w, Spec{Kind: kind, Size: 1 * GB})
		if !errors.Is(err, errDiskFull) {
			t.Errorf("%s: err = %v, want %v", kind, err, errDiskFull)
		}
		if w.n > 2<<20 {
			t.Errorf("%s: kept writing after the error: %d bytes", kind, w.n)
		}
	}
}

// TestGenerateMemoryIsConstant streams 64 MB: allocations must not grow with the size.
func TestGenerateMemoryIsConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MB per kind")
	}
	for _, spec := range []Spec{
		{Kind: KindNeedle, Size: 64 << 20, Depth: 0.5, Distractors: 10},
		{Kind: KindNeedle, Size: 64 << 20, Depth: 0.5, Filler: FillerLog},
		{Kind: KindMostFrequent, Size: 64 << 20},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := Generate(io.Discard, spec); err != nil {
				t.Fatal(err)
			}
		})
		runtime.ReadMemStats(&after)
		bytes := (after.TotalAlloc - before.TotalAlloc) / 2 // AllocsPerRun runs it twice
		if allocs > 100 || bytes > 256<<10 {
			t.Errorf("%s: %v allocations, %d bytes per 64 MB; want O(1)", taskID(spec), allocs, bytes)
		}
		t.Logf("%s: %v allocations, %d bytes", taskID(spec), allocs, bytes)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, spec := range []Spec{
		{Kind: KindNeedle, Size: 64 << 20, Depth: 0.5},
		{Kind: KindNeedle, Size: 64 << 20, Depth: 0.5, Filler: FillerLog},
		{Kind: KindCount, Size: 64 << 20},
	} {
		b.Run(taskID(spec), func(b *testing.B) {
			b.SetBytes(spec.Size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(io.Discard, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
