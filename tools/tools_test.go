package tools

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/limits"
)

// openText writes content to a temp file and opens it as ctx0.
func openText(t testing.TB, content string, lim Limits) (*Store, *Doc) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ctx.txt")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open([]string{path}, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, s.Docs()[0]
}

// chars is the reference decoding: one string per character, invalid bytes as U+FFFD.
func chars(b []byte) []string {
	var out []string
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		out = append(out, string(r))
		b = b[w:]
	}
	return out
}

func TestPeekLength(t *testing.T) {
	tests := []struct {
		name, content string
		length        int64
		off, n        int64
		want          string
	}{
		{"ascii", "hello\nworld", 11, 6, 5, "world"},
		{"ascii past end is cut", "hello\nworld", 11, 8, 100, "rld"},
		{"at end", "hello", 5, 5, 10, ""},
		{"multi-byte", "héllo 世界", 8, 6, 2, "世界"},
		{"multi-byte middle", "héllo 世界", 8, 1, 1, "é"},
		{"4-byte", "a😀b", 3, 1, 2, "😀b"},
		{"invalid byte", "a\xffb", 3, 0, 3, "a\uFFFDb"},
		{"truncated sequence", "a\xe2\x82c", 4, 1, 3, "\uFFFD\uFFFDc"},
		{"encoded U+FFFD", "a\uFFFDb", 3, 1, 1, "\uFFFD"},
		{"NUL", "a\x00b", 3, 1, 1, "\x00"},
		{"CRLF verbatim", "a\r\nb", 4, 1, 2, "\r\n"},
		{"empty file", "", 0, 0, 10, ""},
		{"zero length", "abc", 3, 1, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, d := openText(t, tc.content, Limits{})
			if got := d.Length(); got != tc.length {
				t.Fatalf("Length() = %d, want %d", got, tc.length)
			}
			got, err := d.Peek(tc.off, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tc.want {
				t.Errorf("Peek(%d, %d).Text = %q, want %q", tc.off, tc.n, got.Text, tc.want)
			}
			wantEnd := tc.off + int64(utf8.RuneCountInString(tc.want))
			if got.Start != tc.off || got.End != wantEnd || got.Ref != Ref("ctx0", tc.off, wantEnd) {
				t.Errorf("Peek(%d, %d) = %+v, want start %d end %d", tc.off, tc.n, got, tc.off, wantEnd)
			}
		})
	}
}

func TestPeekErrors(t *testing.T) {
	_, d := openText(t, "héllo", Limits{})
	tests := []struct {
		off, n int64
		kind   error
		msg    string
	}{
		{0, 50000, ErrLimit, "peek length 50000 exceeds 16000; peek smaller slices or search first"},
		{0, -1, ErrInvalid, "peek length -1 is negative"},
		{-1, 1, ErrInvalid, "peek offset -1 is negative"},
	}
	if sl, err := d.Peek(6, 1); err != nil || sl.Text != "" || sl.Start != 5 {
		t.Errorf("Peek past the end = %+v, %v; want an empty slice at the end", sl, err)
	}
	for _, tc := range tests {
		_, err := d.Peek(tc.off, tc.n)
		if !errors.Is(err, tc.kind) || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Peek(%d, %d) error = %v, want %v containing %q", tc.off, tc.n, err, tc.kind, tc.msg)
		}
	}
}

// randomDoc mixes ASCII, multi-byte, invalid bytes, CRLF and NULs, across
// several index blocks.
func randomDoc(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "bc", "\n", "\r\n", "é", "世", "😀", "\xff", "\xe2\x82", "\x00", "word ", "x"}
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return []byte(sb.String())
}

func TestPeekRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	data := randomDoc(r, 5*blockSize+123)
	ref := chars(data)
	_, d := openText(t, string(data), Limits{})
	if d.Length() != int64(len(ref)) {
		t.Fatalf("Length() = %d, want %d", d.Length(), len(ref))
	}
	if want := int64(strings.Count(string(data), "\n")) + 1; d.Lines() != want {
		t.Fatalf("Lines() = %d, want %d", d.Lines(), want)
	}
	for i := 0; i < 40; i++ {
		off := int64(r.IntN(len(ref) + 1))
		n := int64(r.IntN(3000))
		got, err := d.Peek(off, n)
		if err != nil {
			t.Fatal(err)
		}
		end := min(off+n, int64(len(ref)))
		if want := strings.Join(ref[off:end], ""); got.Text != want || got.End != end {
			t.Fatalf("Peek(%d, %d) = %q (end %d), want %q (end %d)", off, n, got.Text, got.End, want, end)
		}
	}
	// Every character boundary converts back and forth; boundaryAtOrAfter
	// agrees with decoding from the start.
	pos, c := 0, int64(0)
	for p := 0; p <= len(data); p++ {
		if p > pos {
			_, w := utf8.DecodeRune(data[pos:])
			pos += w
			c++
		}
		if got := boundaryAtOrAfter(data, p); got != pos {
			t.Fatalf("boundaryAtOrAfter(%d) = %d, want %d", p, got, pos)
		}
		if p != pos || p%61 != 0 && p%blockSize > 8 && p%blockSize < blockSize-8 {
			continue // check a sample, and every boundary near a block border
		}
		if got := d.idx.charAt(data, pos); got != c {
			t.Fatalf("charAt(%d) = %d, want %d", pos, got, c)
		}
		if back := d.idx.byteAt(data, c); back != pos {
			t.Fatalf("byte %d -> char %d -> byte %d", pos, c, back)
		}
	}
}

func TestSearch(t *testing.T) {
	content := "alpha one\r\nbeta two\nγάμμα three\n\nalpha four"
	_, d := openText(t, content, Limits{})
	res, err := d.Search(`alpha \w+`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{
		{Ref: "ctx0[0:9]", Start: 0, End: 9, Line: 1, Text: "alpha one", LineText: "alpha one"},
		{Ref: "ctx0[33:43]", Start: 33, End: 43, Line: 5, Text: "alpha four", LineText: "alpha four"},
	}
	if res.Total != 2 || res.Capped || len(res.Matches) != 2 || res.Matches[0] != want[0] || res.Matches[1] != want[1] {
		t.Fatalf("Search = %+v, want %+v", res, want)
	}
	res, err = d.Search(`(?m)^γ\pL+`, 0)
	if err != nil || res.Total != 1 || res.Matches[0].Line != 3 || res.Matches[0].Text != "γάμμα" || res.Matches[0].LineText != "γάμμα three" ||
		res.Matches[0].Start != 20 || res.Matches[0].End != 25 {
		t.Fatalf("Search unicode = %+v, %v", res, err)
	}
	if _, err := d.Search(`a(`, 0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "missing closing )") {
		t.Fatalf("bad pattern error = %v", err)
	}
	if _, err := d.Search(`(a)\1`, 0); err == nil || !strings.Contains(err.Error(), "no backreferences") {
		t.Fatalf("backreference error = %v", err)
	}
}

func TestSearchCapAndCount(t *testing.T) {
	content := strings.Repeat("id=7 ok\n", 300)
	_, d := openText(t, content, Limits{})
	res, err := d.Search(`id=\d`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 200 || res.Total != 300 || !res.Capped {
		t.Fatalf("got %d matches, total %d, capped %v", len(res.Matches), res.Total, res.Capped)
	}
	if last := res.Matches[199]; last.Line != 200 || last.Start != 199*8 {
		t.Fatalf("last match = %+v", last)
	}
	for _, p := range []string{`id=\d`, `ok`, `o*`, `$`, `\n`} {
		n, err := d.Count(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(regexpAll(p, content)); n != int64(want) {
			t.Errorf("Count(%q) = %d, want %d", p, n, want)
		}
	}
}

func TestSearchPages(t *testing.T) {
	content := strings.Repeat("id=7 ok\n", 450)
	_, d := openText(t, content, Limits{})
	tests := []struct {
		from             int64
		n                int
		firstLine, total int64
		capped           bool
	}{
		{0, 200, 1, 450, true},
		{200, 200, 201, 450, true},
		{400, 50, 401, 450, false},
		{449, 1, 450, 450, false},
		{450, 0, 0, 450, false},
		{10_000, 0, 0, 450, false},
	}
	for _, tc := range tests {
		res, err := d.Search(`id=\d`, tc.from)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != tc.n || res.Total != tc.total || res.Capped != tc.capped || res.From != tc.from {
			t.Errorf("Search from %d: %d matches, total %d, capped %v, from %d; want %d, %d, %v, %d",
				tc.from, len(res.Matches), res.Total, res.Capped, res.From, tc.n, tc.total, tc.capped, tc.from)
			continue
		}
		if tc.n > 0 && res.Matches[0].Line != tc.firstLine {
			t.Errorf("Search from %d: first match on line %d, want %d", tc.from, res.Matches[0].Line, tc.firstLine)
		}
	}
	if _, err := d.Search(`id`, -1); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "pass 0 for the first page") {
		t.Errorf("negative from: %v", err)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name, content string
		lim           Limits
		want          string
		err           string
	}{
		{"whole", "héllo\r\nworld\n", Limits{}, "héllo\r\nworld\n", ""},
		{"invalid bytes read as U+FFFD", "a\xffb\xe2\x82", Limits{}, "a\uFFFDb\uFFFD\uFFFD", ""},
		{"empty", "", Limits{}, "", ""},
		{"at the cap", "ééé", Limits{TextChars: 3}, "ééé", ""},
		{"over the cap", "éééé", Limits{TextChars: 3, PeekChars: 2},
			"", "text(ctx0): the context is 4 characters, more than text returns (3); read it in pieces: peek(ctx, offset, 2) in a loop over offsets, or chunk(ctx, size, overlap)"},
	}
	for _, tc := range tests {
		_, d := openText(t, tc.content, tc.lim)
		got, err := d.Text()
		if tc.err != "" {
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want ErrLimit containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || int64(utf8.RuneCountInString(got)) != d.Length() {
			t.Errorf("%s: Text() = %q, %v; want %q (%d characters)", tc.name, got, err, tc.want, d.Length())
		}
	}
}

func TestSearchLongLineText(t *testing.T) {
	line := strings.Repeat("x", 2000) + "NEEDLE" + strings.Repeat("y", 2000)
	_, d := openText(t, "short NEEDLE line\r\n"+line+"\n", Limits{LineChars: 100})
	res, err := d.Search(`NEEDLE`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Matches[0].Text; got != "NEEDLE" {
		t.Errorf("match text = %q, want NEEDLE", got)
	}
	if got := res.Matches[0].LineText; got != "short NEEDLE line" {
		t.Errorf("short line text = %q", got)
	}
	want := "…" + strings.Repeat("x", 20) + "NEEDLE" + strings.Repeat("y", 74) + "…"
	if got := res.Matches[1].LineText; got != want {
		t.Errorf("long line text = %q, want %q", got, want)
	}
	_, d = openText(t, "ab NEEDLE "+strings.Repeat("z", 500), Limits{LineChars: 20})
	res, _ = d.Search(`NEEDLE`, 0)
	if got := res.Matches[0].LineText; got != "ab NEEDLE zzzzzzzzzz…" {
		t.Errorf("head window text = %q", got)
	}
}

func TestChunk(t *testing.T) {
	_, d := openText(t, "0123456789", Limits{Chunks: 6})
	tests := []struct {
		size, overlap int64
		want          [][2]int64
	}{
		{3, 1, [][2]int64{{0, 3}, {2, 5}, {4, 7}, {6, 9}, {8, 10}}},
		{5, 0, [][2]int64{{0, 5}, {5, 10}}},
		{4, 0, [][2]int64{{0, 4}, {4, 8}, {8, 10}}},
		{10, 0, [][2]int64{{0, 10}}},
		{100, 99, [][2]int64{{0, 10}}},
		{2, 1, nil}, // 9 chunks > 6
	}
	for _, tc := range tests {
		got, err := d.Chunk(tc.size, tc.overlap)
		if tc.want == nil {
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "use size ≥ 3") {
				t.Errorf("Chunk(%d, %d) error = %v", tc.size, tc.overlap, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var spans [][2]int64
		for i, s := range got {
			if s.Index != i || s.Ref != Ref("ctx0", s.Start, s.End) {
				t.Errorf("span %d = %+v", i, s)
			}
			spans = append(spans, [2]int64{s.Start, s.End})
		}
		if !equalSpans(spans, tc.want) {
			t.Errorf("Chunk(%d, %d) = %v, want %v", tc.size, tc.overlap, spans, tc.want)
		}
	}
	for _, bad := range [][2]int64{{0, 0}, {3, 3}, {3, -1}} {
		if _, err := d.Chunk(bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Chunk(%d, %d) error = %v", bad[0], bad[1], err)
		}
	}
	_, empty := openText(t, "", Limits{})
	if got, err := empty.Chunk(10, 0); err != nil || len(got) != 0 {
		t.Errorf("empty Chunk = %v, %v", got, err)
	}
}

func equalSpans(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestChunkSuggestionFits(t *testing.T) {
	_, d := openText(t, strings.Repeat("é", 100003), Limits{})
	for _, overlap := range []int64{0, 1, 7, 40} {
		_, err := d.Chunk(overlap+1, overlap)
		var need int64
		if _, e := fmtSscanSuggest(err, &need); e != nil {
			t.Fatalf("overlap %d: %v (%v)", overlap, err, e)
		}
		if got, err := d.Chunk(need, overlap); err != nil || len(got) > limits.Chunks {
			t.Fatalf("suggested size %d overlap %d: %d chunks, %v", need, overlap, len(got), err)
		}
		if _, err := d.Chunk(need-1, overlap); need-1 > overlap && err == nil {
			t.Fatalf("size %d (one less than suggested) should not fit", need-1)
		}
	}
}

func TestPlanSlices(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor\n", 2000) // 36,000 bytes
	content := filler + "ERROR disk full\nerror again\n" + filler + "Timeout here\n" + filler
	_, d := openText(t, content, Limits{})
	plan, err := d.PlanSlices([]string{"error", "timeout"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Uniform || plan.Hits != 3 || len(plan.Slices) != 2 {
		t.Fatalf("plan = %+v", plan)
	}
	first, second := plan.Slices[0], plan.Slices[1]
	if first.Hits != 2 || second.Hits != 1 || first.Start > 36000 || first.End < 36027 || first.End-first.Start > limits.PeekChars {
		t.Fatalf("slices = %+v", plan.Slices)
	}
	text, err := d.Peek(first.Start, first.End-first.Start)
	if err != nil || !strings.Contains(text.Text, "ERROR disk full\nerror again") {
		t.Fatalf("peek of planned slice: %v", err)
	}
	plan, err = d.PlanSlices([]string{"error", "timeout"}, 1)
	if err != nil || len(plan.Slices) != 1 || plan.Slices[0].Hits != 2 {
		t.Fatalf("max 1: %+v, %v", plan, err)
	}
	plan, err = d.PlanSlices([]string{"absent"}, 4)
	if err != nil || !plan.Uniform || len(plan.Slices) != 4 || plan.Slices[3].End != d.Length() {
		t.Fatalf("fallback = %+v, %v", plan, err)
	}
	for _, bad := range []struct {
		kw  []string
		max int
	}{{nil, 3}, {[]string{""}, 3}, {[]string{"a"}, 0}, {[]string{"a"}, 5001}} {
		if _, err := d.PlanSlices(bad.kw, bad.max); !errors.Is(err, ErrInvalid) {
			t.Errorf("PlanSlices(%q, %d) error = %v", bad.kw, bad.max, err)
		}
	}
}

func TestPlanSlicesDenseHitsStayPeekable(t *testing.T) {
	_, d := openText(t, strings.Repeat("key ", 20000), Limits{})
	plan, err := d.PlanSlices([]string{"KEY"}, 3)
	if err != nil || len(plan.Slices) != 3 || plan.Hits != 20000 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	for _, s := range plan.Slices {
		if s.End-s.Start > limits.PeekChars || s.Hits < 3000 {
			t.Errorf("slice %+v", s)
		}
	}
}

// TestNoCallBudget: a session may peek, search and count as often as it
// likes: only what one call returns is capped.
func TestNoCallBudget(t *testing.T) {
	content := strings.Repeat("0123456789abcdef", 4096) // 65,536 characters
	_, d := openText(t, content, Limits{PeekChars: 16})
	var b strings.Builder
	for off := int64(0); ; off += 16 {
		s, err := d.Peek(off, 16)
		if err != nil {
			t.Fatalf("peek %d: %v", off/16, err)
		}
		if s.Text == "" {
			break
		}
		b.WriteString(s.Text)
	}
	if got := b.String(); got != content {
		t.Fatalf("4,096 peeks read %d characters, want %d", len(got), len(content))
	}
	for i := range 300 {
		if n, err := d.Count("abc"); err != nil || n != 4096 {
			t.Fatalf("count %d = %d, %v", i, n, err)
		}
	}
}

func TestCounterConcurrent(t *testing.T) {
	c := NewCounter("tool call", 50, "stop")
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Take(1) == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 50 || c.Used() != 50 || c.Max() != 50 {
		t.Fatalf("ok = %d, used = %d", ok, c.Used())
	}
}

func TestLimitsAndRefs(t *testing.T) {
	if got := (Limits{Chunks: 3}).Effective(); got.PeekChars != limits.PeekChars || got.Chunks != 3 || got.TextChars != limits.TextChars {
		t.Fatalf("Effective = %+v", got)
	}
	if _, err := Open(nil, Limits{PeekChars: -1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative limit: %v", err)
	}
	doc, a, b, err := ParseRef("ctx1[12:345]")
	if err != nil || doc != "ctx1" || a != 12 || b != 345 {
		t.Fatalf("ParseRef = %q %d %d %v", doc, a, b, err)
	}
	for _, bad := range []string{"ctx1", "[1:2]", "ctx1[2:1]", "ctx1[a:2]", "ctx1[1-2]"} {
		if _, _, _, err := ParseRef(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseRef(%q) = %v", bad, err)
		}
	}
}

func TestMultipleDocsAndClose(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, c := range []string{"first file", "second"} {
		p := filepath.Join(dir, "f"+string(rune('0'+i)))
		os.WriteFile(p, []byte(c), 0o600)
		paths = append(paths, p)
	}
	s, err := Open(paths, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	d1, err := s.Doc("ctx1")
	if err != nil || d1.Length() != 6 || d1.Path() != paths[1] {
		t.Fatalf("ctx1 = %v, %v", d1, err)
	}
	if _, err := s.Doc("ctx2"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ctx2: %v", err)
	}
	s.Close()
	if _, err := d1.Peek(0, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	if _, err := Open([]string{dir}, Limits{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("directory: %v", err)
	}
}

// A file truncated under the mapping must fail calls, not kill the process.
func TestTruncatedWhileMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctx.txt")
	content := strings.Repeat("some log line with a needle\n", 40000) // ~1.1 MB
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open([]string{path}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := s.Docs()[0]
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Peek(d.Length()-100, 50); !errors.Is(err, ErrChanged) {
		t.Errorf("Peek after truncation: %v", err)
	}
	for _, p := range []string{`needle`, `ne+dle`, `\s+`} {
		if _, err := d.Search(p, 0); !errors.Is(err, ErrChanged) {
			t.Errorf("Search(%q) after truncation: %v", p, err)
		}
		if _, err := d.Count(p); !errors.Is(err, ErrChanged) {
			t.Errorf("Count(%q) after truncation: %v", p, err)
		}
	}
	if _, err := d.PlanSlices([]string{"needle"}, 3); !errors.Is(err, ErrChanged) {
		t.Errorf("PlanSlices after truncation: %v", err)
	}
}

func TestSingleHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB file")
	}
	path := filepath.Join(t.TempDir(), "line.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.Repeat("abcdefghij", 1000) // 10 KB
	for i := 0; i < 10000; i++ {
		if i == 5000 {
			f.WriteString("MARK42")
		}
		f.WriteString(unit)
	}
	f.WriteString("é")
	f.Close()
	s, err := Open([]string{path}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := s.Docs()[0]
	if d.Length() != 100_000_007 || d.Lines() != 1 {
		t.Fatalf("Length = %d, Lines = %d", d.Length(), d.Lines())
	}
	sl, err := d.Peek(d.Length()-3, 10)
	if err != nil || sl.Text != "ijé" {
		t.Fatalf("Peek at end = %q, %v", sl.Text, err)
	}
	res, err := d.Search(`MARK\d+`, 0)
	if err != nil || res.Total != 1 || res.Matches[0].Start != 50_000_000 || res.Matches[0].Line != 1 ||
		res.Matches[0].Text != "MARK42" || utf8.RuneCountInString(res.Matches[0].LineText) != limits.MatchChars+2 {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	if n, err := d.Count(`j`); err != nil || n != 10_000_000 {
		t.Fatalf("Count = %d, %v", n, err)
	}
}

func regexpAll(p, s string) [][]int { return regexp.MustCompile(p).FindAllStringIndex(s, -1) }

// fmtSscanSuggest pulls the suggested size out of a chunk-limit error.
func fmtSscanSuggest(err error, need *int64) (int, error) {
	if err == nil {
		return 0, errors.New("no error")
	}
	i := strings.Index(err.Error(), "use size ≥ ")
	if i < 0 {
		return 0, errors.New("no suggestion")
	}
	return fmt.Sscan(err.Error()[i+len("use size ≥ "):], need)
}

func TestOpenFilesUsesTheOpenDescriptor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(path, []byte("héllo\nworld\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(path); err != nil { // the path is gone; the descriptor still reads
		t.Fatal(err)
	}
	s, err := OpenFiles([]*os.File{f}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := s.Docs()[0]
	if sl, err := d.Peek(0, 5); err != nil || sl.Text != "héllo" || d.Length() != 12 {
		t.Fatalf("Peek = %q, %v; Length %d", sl.Text, err, d.Length())
	}
}
