package limits_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
)

// TestAPIFieldsAreInTable: each field of API names (by its tag) the entry of Table that
// describes it, whose default is the field's effective value for zero; each key is described
// once.
func TestAPIFieldsAreInTable(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range limits.Table {
		if seen[l.Key] {
			t.Errorf("%s is in Table twice", l.Key)
		}
		seen[l.Key] = true
		if l.Doc == "" || strings.Contains(l.Doc, "\n") {
			t.Errorf("%s: want one line of description, have %q", l.Key, l.Doc)
		}
		switch l.Default.(type) {
		case int, int64, float64, time.Duration:
		default:
			t.Errorf("%s: default %v is a %T", l.Key, l.Default, l.Default)
		}
	}
	def := reflect.ValueOf(limits.API{}.Effective())
	typ := def.Type()
	for i := range typ.NumField() {
		f := typ.Field(i)
		l, ok := limits.Lookup(f.Tag.Get("limit"))
		if !ok {
			t.Errorf("API.%s names %q, which is not in Table", f.Name, f.Tag.Get("limit"))
			continue
		}
		if got := reflect.ValueOf(l.Default).Convert(f.Type).Int(); got != def.Field(i).Int() || got <= 0 {
			t.Errorf("API.%s: Table's default is %d, Effective gives %d", f.Name, got, def.Field(i).Int())
		}
	}
}

// TestEffective: zero and negative fields take the default; set fields stay.
func TestEffective(t *testing.T) {
	got := limits.API{PeekChars: 7, Chunks: -1}.Effective()
	if got.PeekChars != 7 || got.Chunks != limits.Chunks || got.OutputChars != limits.OutputChars || got.BatchWidth != limits.BatchWidth {
		t.Errorf("Effective = %+v", got)
	}
	if limits.JSHeap(0) != limits.WorkerMemory/2 || limits.JSHeap(1<<30) != 1<<29 {
		t.Errorf("JSHeap(0) = %d, JSHeap(1 GiB) = %d", limits.JSHeap(0), limits.JSHeap(1<<30))
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 16000: "16,000", 32_000_000: "32,000,000", -1234: "-1,234"} {
		if got := limits.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStandardLibraryOnly: limits is a leaf every package may import, the confined worker's
// included, so it imports the standard library only.
func TestStandardLibraryOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: limits imports the standard library only", name, path)
			}
		}
	}
}

// TestOr: zero or less means the default; anything positive is kept, in every type it serves.
func TestOr(t *testing.T) {
	for _, tc := range []struct{ v, d, want int }{{0, 5, 5}, {-1, 5, 5}, {1, 5, 1}, {7, 5, 7}} {
		if got := limits.Or(tc.v, tc.d); got != tc.want {
			t.Errorf("Or(%d, %d) = %d; want %d", tc.v, tc.d, got, tc.want)
		}
	}
	if got := limits.Or(time.Duration(0), time.Second); got != time.Second {
		t.Errorf("Or(0s, 1s) = %v", got)
	}
	if got := limits.Or(-0.5, 2.0); got != 2.0 {
		t.Errorf("Or(-0.5, 2) = %v", got)
	}
}
