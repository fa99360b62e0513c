package engine_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
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
