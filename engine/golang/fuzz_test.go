package golang

import (
	"errors"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/engine/golang/desugar"
	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// FuzzFrontEnd feeds the typed front end (the type check and the desugaring, not the
// interpreter) any cell the validator accepts, seeded from the Go corpus. On any input: no panic
// (the checker's own recover would turn one into an internal error, which fails here too), a
// generous time bound, and the same result twice.
func FuzzFrontEnd(f *testing.F) {
	cases, err := corpus.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if c.Lang == "go" {
			f.Add(string(c.Source))
		}
	}
	f.Add("func Sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }\nprint(Sum(1, 2))")
	f.Add("parts := strings.Split(\"a,b\", \",\")\nx := parts[0]\nfor v := range slices.Values(parts) { print(v, x) }")
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		first := frontEnd(t, src)
		if d := time.Since(start); d > 2*time.Second+time.Duration(len(src))*20*time.Microsecond {
			t.Errorf("the front end took %v on %d bytes", d, len(src))
		}
		if again := frontEnd(t, src); again != first {
			t.Errorf("not deterministic:\n first  %s\n second %s", first, again)
		}
	})
}

// frontEnd validates, checks and desugars src in a fresh session and describes the outcome.
func frontEnd(t *testing.T, src string) string {
	fset := token.NewFileSet()
	res, err := validator.Validate(source.Go, "cell.go", []byte(src), validator.Policy{}, validator.GoFileSet(fset))
	if err != nil {
		t.Fatal(err)
	}
	if res.Go == nil || len(res.Findings) > 0 {
		return "rejected"
	}
	prelude := prelude(nil, "ctx0", 2)
	tc, err := typecheck.NewSession(library(), allowedImports(), prelude, bridgePath).Check(res.Go)
	var l typecheck.List
	switch {
	case errors.As(err, &l):
		return "errors: " + l.Error()
	case err != nil:
		t.Fatalf("%v\nsource: %q", err, src)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("desugaring panicked: %v\nsource: %q", r, src)
			}
		}()
		d := desugar.New(desugar.NewSession(), res.Go, 1, tc)
		d.File(res.Go.Decls)
		if res.Go.Body != nil {
			d.Body(res.Go.Body)
		}
	}()
	return "ok, added " + strings.Join(tc.Added, ",")
}
