package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

func TestAPINamesAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range engine.API {
		if seen[f.Name] {
			t.Errorf("%s listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Doc == "" {
			t.Errorf("%s has no doc line", f.Name)
		}
		if f.Name[0] == '_' {
			t.Errorf("%s: model-facing names never start with _", f.Name)
		}
	}
	for _, name := range []string{"length", "peek", "search", "count", "chunk", "llm_query", "FINAL", "print"} {
		if _, ok := engine.Lookup(name); !ok {
			t.Errorf("Lookup(%q) failed", name)
		}
	}
}

var placeholder = regexp.MustCompile(`\{[A-Z][A-Za-z]*\}`)

func TestDescribeFillsEveryPlaceholder(t *testing.T) {
	lim := engine.Limits{PeekChars: 1234, SubCalls: 5}
	for _, f := range engine.API {
		got := f.Describe(lim)
		if left := placeholder.FindString(got); left != "" {
			t.Errorf("%s: placeholder %s left in %q", f.Name, left, got)
		}
	}
	peek, _ := engine.Lookup("peek")
	if got, want := peek.Describe(lim), "at most 1,234 per call"; !strings.Contains(got, want) {
		t.Errorf("peek.Describe = %q, want it to contain %q", got, want)
	}
	q, _ := engine.Lookup("llm_query")
	if got, want := q.Describe(lim), "at most 5 per run"; !strings.Contains(got, want) {
		t.Errorf("llm_query.Describe = %q, want it to contain %q", got, want)
	}
	if got, want := peek.Describe(engine.Limits{}), "at most 16,000 per call"; !strings.Contains(got, want) {
		t.Errorf("zero Limits: %q, want the default in it (%q)", got, want)
	}
}

func TestThousands(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {32000000, "32,000,000"}, {-1234567, "-1,234,567"}} {
		if got := engine.Thousands(c.n); got != c.want {
			t.Errorf("Thousands(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestEffectiveReplacesZeroOnly(t *testing.T) {
	got := engine.Limits{PeekChars: 7, Chunks: -1}.Effective()
	if got.PeekChars != 7 || got.Chunks != limits.Chunks || got.SubCalls != limits.SubCalls {
		t.Errorf("Effective = %+v", got)
	}
}

// TestSignature: an Optional parameter is variadic in Go (Go has no optional parameters) and
// marked "?" in JS; a Repeated one is variadic in both.
func TestSignature(t *testing.T) {
	tests := []struct {
		name, lang, want string
	}{
		{"search", "go", "search(ctx Context, regex string, from ...int) []Match"},
		{"search", "js", "search(ctx, regex, from?)"},
		{"print", "go", "print(values ...any)"},
		{"print", "js", "print(...values)"},
		{"peek", "go", "peek(ctx Context, offset int, length int) string"},
		{"peek", "js", "peek(ctx, offset, length)"},
		{"write_file", "go", "write_file(path string, content string)"},
	}
	for _, tc := range tests {
		f, _ := engine.Lookup(tc.name)
		if got := f.Signature(tc.lang); got != tc.want {
			t.Errorf("%s in %s: got %q, want %q", tc.name, tc.lang, got, tc.want)
		}
	}
	for _, f := range engine.API {
		for i, p := range f.Params {
			if p.Arity != engine.One && i != len(f.Params)-1 {
				t.Errorf("%s: only the last parameter may be optional or repeated, not %s", f.Name, p.Name)
			}
		}
		if last := len(f.Params) - 1; f.Variadic() != (last >= 0 && f.Params[last].Arity != engine.One) {
			t.Errorf("%s: Variadic() disagrees with the last parameter's arity", f.Name)
		}
	}
}

func TestVarBound(t *testing.T) {
	long := strings.Repeat("é", engine.MaxReprChars+5)
	got := engine.Var{Name: "x", Type: strings.Repeat("t", engine.MaxTypeChars), Repr: long}.Bound()
	if n := len([]rune(got.Repr)); n != engine.MaxReprChars || !strings.HasSuffix(got.Repr, "…") {
		t.Errorf("Repr cut to %d characters (%q…), want %d ending in …", n, got.Repr[:10], engine.MaxReprChars)
	}
	if got.Type != strings.Repeat("t", engine.MaxTypeChars) {
		t.Errorf("a Type of exactly MaxTypeChars characters must stay whole, got %q", got.Type)
	}
	if got := (engine.Var{Repr: strings.Repeat("é", engine.MaxReprChars)}).Bound().Repr; got != strings.Repeat("é", engine.MaxReprChars) {
		t.Errorf("a Repr of exactly MaxReprChars characters must stay whole, got %d characters", len([]rune(got)))
	}
}

// placeErrors are the ways f's Place, Budget and Replay break the rules the hosts rely on.
func placeErrors(f engine.Func) []string {
	var bad []string
	check := func(ok bool, why string) {
		if !ok {
			bad = append(bad, why)
		}
	}
	check(f.Place == engine.InEngine || f.Place == engine.InWorker || f.Place == engine.InParent, "no valid place: "+f.Place.String())
	check(f.Replay == engine.Rerun || f.Replay == engine.Journaled, "no valid replay: "+f.Replay.String())
	check(f.Budget >= engine.NoBudget && f.Budget <= engine.SubCallBudget, "no valid budget: "+f.Budget.String())
	// The engine's own functions never reach a host: nothing counts or journals them.
	check(f.Place != engine.InEngine || f.Replay == engine.Rerun && f.Budget == engine.NoBudget, "served by the engine, yet counted or journaled")
	// The worker cannot make a parent's call again: a replay serves it from the journal.
	check(f.Place != engine.InParent || f.Replay == engine.Journaled, "served by the parent, yet rerun")
	// The worker reruns exactly the functions that read a context: its mapped, immutable files.
	readsContext := len(f.Params) > 0 && f.Params[0].GoType == "Context"
	check(f.Place != engine.InWorker || (f.Replay == engine.Rerun) == readsContext, "rerun by the worker if and only if it reads a context")
	// The worker charges file calls, and charges a replayed one again as it serves it from the journal.
	check(f.Budget != engine.FileCallBudget || f.Place == engine.InWorker && f.Replay == engine.Journaled, "counted as a file call, yet not a journaled worker function")
	check(f.Budget != engine.SubCallBudget || f.Place == engine.InParent, "counted as a sub-call, yet not served by the parent")
	return bad
}

// TestEveryFunctionHasAValidPlace: each API function says who serves it, what it is counted
// against and how a replay serves it, consistently with what the hosts do with those fields.
func TestEveryFunctionHasAValidPlace(t *testing.T) {
	for _, f := range engine.API {
		for _, why := range placeErrors(f) {
			t.Errorf("%s: %s", f.Name, why)
		}
	}
}

// TestPlaceErrors: the rules above catch what they must.
func TestPlaceErrors(t *testing.T) {
	ctx := []engine.Param{{"ctx", "Context", engine.One}}
	path := []engine.Param{{"path", "string", engine.One}}
	tests := []struct {
		f    engine.Func
		want int // errors found
	}{
		{engine.Func{Name: "ok", Params: ctx, Place: engine.InWorker, Replay: engine.Rerun}, 0},
		{engine.Func{Name: "zero"}, 2},
		{engine.Func{Name: "out of range", Place: 9, Replay: engine.Rerun, Budget: -1}, 2},
		{engine.Func{Name: "counted print", Place: engine.InEngine, Replay: engine.Rerun, Budget: engine.FileCallBudget}, 2},
		{engine.Func{Name: "rerun sub-call", Place: engine.InParent, Replay: engine.Rerun, Budget: engine.SubCallBudget}, 1},
		{engine.Func{Name: "rerun file tool", Params: path, Place: engine.InWorker, Replay: engine.Rerun}, 1},
		{engine.Func{Name: "journaled context tool", Params: ctx, Place: engine.InWorker, Replay: engine.Journaled}, 1},
		{engine.Func{Name: "sub-call in the worker", Params: path, Place: engine.InWorker, Replay: engine.Journaled, Budget: engine.SubCallBudget}, 1},
	}
	for _, tc := range tests {
		if got := placeErrors(tc.f); len(got) != tc.want {
			t.Errorf("%s: got %d errors %q, want %d", tc.f.Name, len(got), got, tc.want)
		}
	}
}

// TestNamesByPlaceAndBudget: who serves what and what counts, as the hosts did before the
// registry said so.
func TestNamesByPlaceAndBudget(t *testing.T) {
	tests := []struct {
		what string
		got  []string
		want string
	}{
		{"InEngine", engine.InEngine.Names(), "FINAL FINAL_VAR print"},
		{"InWorker", engine.InWorker.Names(), "length peek text search count tally chunk read_file list_dir file_info grep write_file"},
		{"InParent", engine.InParent.Names(), "llm_query llm_query_batched"},
		{"BadPlace", engine.BadPlace.Names(), ""},
		{"FileCallBudget", engine.FileCallBudget.Names(), "read_file list_dir file_info grep"},
		{"SubCallBudget", engine.SubCallBudget.Names(), "llm_query llm_query_batched"},
	}
	for _, tc := range tests {
		if got := strings.Join(tc.got, " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.what, got, tc.want)
		}
	}
	if got, want := engine.Place(7).String()+", "+engine.InParent.String(), "Place(7), parent"; got != want {
		t.Errorf("String: got %q, want %q", got, want)
	}
}

func TestSeries(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := engine.Series(tc.names); got != tc.want {
			t.Errorf("Series(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// A stopped cell's error says what stopped it, never only "context deadline exceeded".
func TestInterrupted(t *testing.T) {
	limit, cancel1 := context.WithTimeoutCause(context.Background(), 0, engine.TimeLimit(2*time.Second))
	defer cancel1()
	plain, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	stopped, cancel3 := context.WithCancel(context.Background())
	cancel3()
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{limit, "the cell ran past its time limit (2s) and was stopped; make it do less work per cell"},
		{plain, "the cell ran past its deadline and was stopped; make it do less work per cell: context deadline exceeded"},
		{stopped, "the cell was stopped before it ended: context canceled"},
	} {
		<-tc.ctx.Done()
		err := engine.Interrupted(tc.ctx)
		if err.Error() != tc.want || fault.KindOf(err) != fault.Timeout {
			t.Errorf("Interrupted = %q (kind %q), want %q (timeout)", err, fault.KindOf(err), tc.want)
		}
	}
}
