package golang

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// fakeHost implements the context tools over one in-memory text: character (code point)
// offsets, RE2 via regexp, non-overlapping matches, 1-based lines, Text = the matched text.
type fakeHost struct {
	text  string
	calls []string
}

func newFakeHost(t testing.TB, ctxName string) *fakeHost {
	t.Helper()
	if ctxName == "" {
		return &fakeHost{text: "hello world\nsecond line\n"}
	}
	b, err := corpus.Context(ctxName)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeHost{text: string(b)}
}

func (h *fakeHost) Call(_ context.Context, name string, args []any) (any, error) {
	h.calls = append(h.calls, name)
	if f, _ := engine.Lookup(name); len(f.Params) > 0 && f.Params[0].GoType == "Context" && args[0] != "ctx0" {
		return nil, fault.New(fault.Code, "%s: no context named %v", name, args[0])
	}
	switch name {
	case "length":
		return int64(utf8.RuneCountInString(h.text)), nil
	case "peek":
		return h.peek(args[1].(int64), args[2].(int64))
	case "count", "search":
		re, err := regexp.Compile(args[1].(string))
		if err != nil {
			return nil, fault.New(fault.Code, "%s: bad pattern: %v", name, err)
		}
		locs := re.FindAllStringIndex(h.text, -1)
		if name == "count" {
			return int64(len(locs)), nil
		}
		return h.matches(locs), nil
	case "chunk":
		return h.chunk(args[1].(int64), args[2].(int64))
	case "llm_query":
		return "answer to " + args[0].(string) + fromModel(args), nil
	case "llm_query_batched":
		var out []any
		for _, p := range args[0].([]any) {
			out = append(out, "answer to "+p.(string)+fromModel(args))
		}
		return out, nil
	}
	return nil, fault.New(fault.Denied, "%s is not available in this test", name)
}

// fromModel is " from MODEL" when a sub-call's options name a model, as the host got them.
func fromModel(args []any) string {
	if len(args) < 2 {
		return ""
	}
	return fmt.Sprintf(" from %v", args[1])
}

func (h *fakeHost) peek(off, n int64) (any, error) {
	if n > 16000 {
		return nil, fault.New(fault.Limit, "peek length %d exceeds 16000; peek smaller slices or search first", n)
	}
	r := []rune(h.text)
	if off < 0 || off > int64(len(r)) {
		return nil, fault.New(fault.Code, "peek offset %d is outside [0, %d]", off, len(r))
	}
	return string(r[off:min(off+n, int64(len(r)))]), nil
}

func (h *fakeHost) matches(locs [][]int) []any {
	var out []any
	for _, l := range locs[:min(len(locs), 200)] {
		out = append(out, map[string]any{
			"start": int64(utf8.RuneCountInString(h.text[:l[0]])),
			"end":   int64(utf8.RuneCountInString(h.text[:l[1]])),
			"line":  int64(strings.Count(h.text[:l[0]], "\n") + 1),
			"text":  h.text[l[0]:l[1]],
		})
	}
	return out
}

func (h *fakeHost) chunk(size, overlap int64) (any, error) {
	if size <= overlap || size <= 0 {
		return nil, fault.New(fault.Code, "chunk size must exceed the overlap")
	}
	n := int64(utf8.RuneCountInString(h.text))
	var out []any
	for i, start := 0, int64(0); start < n; i, start = i+1, start+size-overlap {
		out = append(out, map[string]any{"index": int64(i), "start": start, "end": min(start+size, n)})
	}
	return out, nil
}

// testSession runs cells through the validator (or only the parser) and one engine.
type testSession struct {
	t         testing.TB
	e         *Engine
	host      *fakeHost
	parseOnly bool // validate nothing and skip the type checker: the interpreter alone
	// noValidate validates nothing but type-checks, as rlm run --no-validate does: the whole
	// runtime layer (type checker, interpreter, symbol table) alone.
	noValidate bool
	n          int
}

func newTestSession(t testing.TB, cfg Config, ctxName string) *testSession {
	t.Helper()
	h := newFakeHost(t, ctxName)
	e, err := New(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	return &testSession{t: t, e: e, host: h}
}

// run validates src as "cell.go" and executes it with a 10 s deadline.
func (s *testSession) run(src string) engine.Result {
	s.t.Helper()
	return s.runCtx(context.Background(), 10*time.Second, src)
}

func (s *testSession) runCtx(ctx context.Context, d time.Duration, src string) engine.Result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	opts := []validator.Option{validator.GoFileSet(s.e.FileSet())}
	if s.parseOnly || s.noValidate {
		opts = append(opts, validator.ParseOnly())
	}
	res, err := validator.Validate(source.Go, "cell.go", []byte(src), validator.Policy{}, opts...)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		return engine.Result{Err: err}
	}
	if s.parseOnly {
		return s.e.ExecUnchecked(ctx, res.Go)
	}
	return s.e.Exec(ctx, res.Go)
}

func errKind(err error) fault.Kind {
	if err == nil {
		return ""
	}
	return fault.KindOf(err)
}

func asCellError(err error) *fault.Error {
	var e *fault.Error
	errors.As(err, &e)
	return e
}

func describe(r engine.Result) string {
	final := "<none>"
	if r.Final != nil {
		final = fmt.Sprintf("%q", r.Final.Value)
	}
	return fmt.Sprintf("stdout=%q final=%s err=%v", r.Stdout, final, r.Err)
}
