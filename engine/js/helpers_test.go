package js

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// fakeHost serves length, peek, count, search and chunk over one text, like the real tools:
// offsets in code points, RE2 matches, non-overlapping, 1-based lines. It records every call.
type fakeHost struct {
	mu    sync.Mutex
	runes []rune
	calls []hostCall
	// override answers a call before the text functions do, when set.
	override func(name string, args []any) (any, error, bool)
}

type hostCall struct {
	Name string
	Args []any
}

func newFakeHost(text string) *fakeHost { return &fakeHost{runes: []rune(text)} }

func (h *fakeHost) Calls() []hostCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hostCall(nil), h.calls...)
}

func (h *fakeHost) Call(ctx context.Context, name string, args []any) (any, error) {
	h.mu.Lock()
	h.calls = append(h.calls, hostCall{name, args})
	h.mu.Unlock()
	if h.override != nil {
		if v, err, ok := h.override(name, args); ok {
			return v, err
		}
	}
	if len(args) == 0 || args[0] != ContextArg {
		return nil, fmt.Errorf("%s: not served by the fake host", name)
	}
	n := int64(len(h.runes))
	switch name {
	case "length":
		return n, nil
	case "peek":
		off, ln := clamp(args[1].(int64), n), args[2].(int64)
		if ln > 16000 {
			return nil, fmt.Errorf("peek length %d exceeds 16000; peek smaller slices or search first", ln)
		}
		return string(h.runes[off:clamp(off+max(ln, 0), n)]), nil
	case "count", "search":
		return h.match(name, args[1].(string))
	case "chunk":
		size, overlap := args[1].(int64), args[2].(int64)
		if size <= 0 || overlap < 0 || overlap >= size {
			return nil, fmt.Errorf("chunk: need size > overlap >= 0")
		}
		var out []any
		for start := int64(0); start < n; start += size - overlap {
			out = append(out, map[string]any{"index": int64(len(out)), "start": start, "end": min(start+size, n)})
			if start+size >= n {
				break
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: not served by the fake host", name)
}

func clamp(x, n int64) int64 { return min(max(x, 0), n) }

func (h *fakeHost) match(name, pattern string) (any, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: bad regex: %v", name, err)
	}
	text := string(h.runes)
	locs := re.FindAllStringIndex(text, -1)
	if name == "count" {
		return int64(len(locs)), nil
	}
	var out []any
	for _, l := range locs {
		start := utf8.RuneCountInString(text[:l[0]])
		end := start + utf8.RuneCountInString(text[l[0]:l[1]])
		line := 1
		for _, b := range []byte(text[:l[0]]) {
			if b == '\n' {
				line++
			}
		}
		out = append(out, map[string]any{"start": float64(start), "end": float64(end), "line": float64(line), "text": text[l[0]:l[1]]})
		if len(out) == 200 {
			break
		}
	}
	return out, nil
}

func sampleText(t testing.TB) string {
	t.Helper()
	b, err := corpus.Context("sample")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newEngine builds an engine over the sample context.
func newEngine(t testing.TB, cfg Config) (*Engine, *fakeHost) {
	t.Helper()
	h := newFakeHost(sampleText(t))
	e, err := New(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e, h
}

// parse validates src (or only parses it, when checked is false).
func parse(t testing.TB, src string, checked bool) *source.JSUnit {
	t.Helper()
	var opts []validator.Option
	if !checked {
		opts = append(opts, validator.ParseOnly())
	}
	res, err := validator.Validate(source.JS, "cell.js", []byte(src), validator.Policy{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if res.JS == nil {
		t.Fatalf("does not parse: %v", res.Err())
	}
	if checked && res.Err() != nil {
		t.Fatalf("rejected: %v", res.Err())
	}
	return res.JS
}

// run runs src unvalidated (ParseOnly) with a 10 s deadline.
func run(t testing.TB, e *Engine, src string) engine.Result {
	t.Helper()
	return runFor(t, e, src, 10*time.Second)
}

func runFor(t testing.TB, e *Engine, src string, d time.Duration) engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return e.Exec(ctx, parse(t, src, false))
}

// mustRun runs src and fails the test on any error.
func mustRun(t testing.TB, e *Engine, src string) engine.Result {
	t.Helper()
	r := run(t, e, src)
	if r.Err != nil {
		t.Fatalf("%s\nerror: %v\nstdout: %s", src, r.Err, r.Stdout)
	}
	return r
}

// fastestOfThree runs the cells fast and slow three times in turn, each of which must print
// want, and returns the fastest run of each (load only slows a run down).
func fastestOfThree(t *testing.T, e *Engine, want, fast, slow string) (time.Duration, time.Duration) {
	t.Helper()
	timeIt := func(src string) time.Duration {
		start := time.Now()
		if r := mustRun(t, e, src); r.Stdout != want {
			t.Fatalf("%s: %q, want %q", src, r.Stdout, want)
		}
		return time.Since(start)
	}
	f, s := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		f, s = min(f, timeIt(fast)), min(s, timeIt(slow))
	}
	t.Logf("rewritten %v, goja %v", f, s)
	return f, s
}
