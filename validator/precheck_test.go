package validator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/validator"
)

// deepSources are sources nested a million levels deep in every shape a parser recurses on.
// Parsing any of them would take gigabytes of stack (goja has no nesting limit) or minutes
// (goja's arrow functions are quadratic), so the pre-scan must refuse them unparsed. If it did
// not, this test process would die, and the test with it.
func deepSources(n int) map[string]struct {
	lang validator.Lang
	src  string
} {
	r := strings.Repeat
	type src = struct {
		lang validator.Lang
		src  string
	}
	return map[string]src{
		"go parens":     {validator.Go, "x := " + r("(", n) + "1" + r(")", n)},
		"go blocks":     {validator.Go, r("{", n) + r("}", n)},
		"go unary":      {validator.Go, "x := " + r("!", n) + "true"},
		"go slice type": {validator.Go, "var x " + r("[]", n) + "int"},
		"go pointers":   {validator.Go, "var x " + r("*", n) + "int"},
		"go func types": {validator.Go, "var x " + r("func() ", n) + "int"},
		"go binary":     {validator.Go, "x := 1" + r("+1", n)},
		"go selectors":  {validator.Go, "x := a" + r(".b", n)},
		"js parens":     {validator.JS, r("(", n) + "1" + r(")", n)},
		"js arrays":     {validator.JS, r("[", n) + r("]", n)},
		"js objects":    {validator.JS, "x=" + r("{a:", n) + "1" + r("}", n)},
		"js not":        {validator.JS, r("!", n) + "x"},
		"js ternary":    {validator.JS, r("a?b:", n) + "c"},
		"js assign":     {validator.JS, r("a=", n) + "1"},
		"js arrows":     {validator.JS, r("x=>", n) + "1"},
		"js pow":        {validator.JS, r("2**", n) + "2"},
		"js if":         {validator.JS, r("if(a)", n) + ";"},
		"js new":        {validator.JS, r("new ", n) + "X"},
		"js calls":      {validator.JS, "f" + r("()", n)},
		"js members":    {validator.JS, "a" + r(".b", n)},
		"js templates":  {validator.JS, r("`${", n) + "1" + r("}`", n)},
		"js binary":     {validator.JS, "1" + r("+1", n)},
	}
}

func TestDeepNestingRejectedUnparsed(t *testing.T) {
	const n = 1_000_000
	pol := validator.Policy{MaxSourceBytes: 64 << 20} // let the depth pre-scan, not the size cap, decide
	for name, tc := range deepSources(n) {
		start := time.Now()
		res, err := validator.Validate(tc.lang, "deep", []byte(tc.src), pol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		elapsed := time.Since(start)
		if len(res.Findings) != 1 || res.Findings[0].Rule != validator.Depth {
			t.Errorf("%s: want exactly one depth finding, got %v", name, res.Findings)
		}
		if res.Go != nil || res.JS != nil {
			t.Errorf("%s: a rejected source must not be parsed", name)
		}
		if elapsed > 5*time.Second {
			t.Errorf("%s: pre-scan of %d bytes took %v", name, len(tc.src), elapsed)
		}
	}
}

func TestHugeSourceRejectedBySize(t *testing.T) {
	for _, lang := range []validator.Lang{validator.Go, validator.JS} {
		src := []byte(strings.Repeat("x := 1\n", 3<<20)) // 21 MB
		res, err := validator.Validate(lang, "huge", src, validator.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Rule != validator.Size {
			t.Errorf("%s: want one size finding, got %v", lang, res.Findings)
		}
		if f := res.Findings[0]; f.Pos.Line != 1 || f.Pos.Column != 1 {
			t.Errorf("%s: size finding at %v, want 1:1", lang, f.Pos)
		}
	}
}

// TestDepthLimitBoundary: the default limit accepts ordinary code and rejects one level past it.
func TestDepthLimitBoundary(t *testing.T) {
	pol := validator.Policy{MaxDepth: 10}
	for _, tc := range []struct {
		lang   validator.Lang
		src    string
		reject bool
	}{
		{validator.JS, strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{validator.JS, strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		{validator.Go, "x := " + strings.Repeat("(", 9) + "1" + strings.Repeat(")", 9), false},
		{validator.Go, "x := " + strings.Repeat("(", 11) + "1" + strings.Repeat(")", 11), true},
		// Separators end chains: many short statements are not deep.
		{validator.JS, strings.Repeat("a = b + c;\n", 500), false},
		{validator.JS, strings.Repeat("a = b + c\n", 500), false},
		{validator.Go, strings.Repeat("a = b + c\n", 500), false},
	} {
		res, _ := validator.Validate(tc.lang, "t", []byte(tc.src), pol)
		got := len(res.Findings) > 0 && res.Findings[0].Rule == validator.Depth
		if got != tc.reject {
			t.Errorf("%s %.30q...: depth rejection = %v, want %v (%v)", tc.lang, tc.src, got, tc.reject, res.Findings)
		}
	}
}
