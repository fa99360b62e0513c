package validator_test

import (
	"go/ast"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	jsast "github.com/dop251/goja/ast"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// The fuzz targets check four properties on any input:
//  1. Validate never panics (the fuzzer reports any panic);
//  2. it stays linear-ish: time is bounded by a generous per-byte budget;
//  3. a rejected source stays rejected under whitespace, comment, parenthesis and unicode-escape
//     variants (with the same class, or as a syntax error when the variant does not parse);
//  4. the result is deterministic.

func FuzzValidateGo(f *testing.F) { fuzzLang(f, source.Go) }
func FuzzValidateJS(f *testing.F) { fuzzLang(f, source.JS) }

func fuzzLang(f *testing.F, lang source.Lang) {
	for _, c := range loadCorpus(f) {
		if c.Lang == string(lang) {
			f.Add(string(c.Source))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		res := mustValidate(t, lang, src)
		if budget := 250*time.Millisecond + time.Duration(len(src))*20*time.Microsecond; time.Since(start) > budget {
			t.Errorf("validating %d bytes took %v, over the linear budget %v", len(src), time.Since(start), budget)
		}
		if again := mustValidate(t, lang, src); !reflect.DeepEqual(res.Findings, again.Findings) {
			t.Fatalf("not deterministic:\n first  %v\n second %v", res.Findings, again.Findings)
		}
		class := firstClass(res.Findings)
		if class == "" {
			return
		}
		for name, variant := range variants(lang, src) {
			v := mustValidate(t, lang, variant)
			if !stillRejected(v.Findings, class, name == "escape") {
				t.Errorf("%s variant of a %s rejection was accepted or changed class:\n source  %q\n variant %q\n findings %v",
					name, class, src, variant, v.Findings)
			}
		}
	})
}

func mustValidate(t *testing.T, lang source.Lang, src string) *validator.Result {
	t.Helper()
	res, err := validator.Validate(lang, "fuzz", []byte(src), validator.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// firstClass returns the class of the first non-syntax finding.
func firstClass(l source.List) string {
	for _, f := range l {
		if f.Rule != source.Syntax {
			return f.Class
		}
	}
	return ""
}

// stillRejected accepts the same class, a syntax error, or (for escape variants, where a plain
// name becomes an escaped one) any rejection at all.
func stillRejected(l source.List, class string, escape bool) bool {
	for _, f := range l {
		if f.Class == class || f.Rule == source.Syntax || escape {
			return true
		}
	}
	return false
}

// escapable are names whose first letter the escape variant spells as \u00XX.
var escapable = []string{
	"constructor", "__proto__", "prototype", "caller", "callee", "eval", "Function", "Reflect",
	"Proxy", "globalThis", "require", "process", "_read_file", "_peek", "os", "exec", "syscall",
}

// variants returns semantically equivalent spellings of src (or ones that no longer parse).
func variants(lang source.Lang, src string) map[string]string {
	// Comments go after every '(' in Go, and at line starts in JS, where a '(' can sit inside a
	// regex literal that a comment would cut short.
	commented := strings.ReplaceAll(src, "(", "(/**/")
	if lang == source.JS {
		commented = strings.ReplaceAll(src, "\n", "\n/**/ ")
	}
	out := map[string]string{
		"whitespace": strings.ReplaceAll(src, " ", "  \t"),
		"comments":   "/* c */\n" + commented + "\n// c\n",
		"parens":     wrapArguments(lang, src),
	}
	esc := src
	for _, w := range escapable {
		esc = strings.ReplaceAll(esc, w, `\u00`+hex2(w[0])+w[1:])
	}
	if esc != src {
		out["escape"] = esc
	}
	return out
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// wrapArguments puts parentheses around every call argument and member key, found in the parsed
// source, which never changes what the code means.
func wrapArguments(lang source.Lang, src string) string {
	res, err := validator.Validate(lang, "v", []byte(src), validator.Policy{})
	if err != nil {
		return src
	}
	var spans [][2]int
	switch {
	case res.Go != nil:
		u := res.Go
		visit := func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				for _, a := range c.Args {
					spans = append(spans, [2]int{u.Position(a.Pos()).Offset, u.Position(a.End()).Offset})
				}
			}
			return true
		}
		ast.Inspect(u.Decls, visit)
		if u.Body != nil {
			ast.Inspect(u.Body, visit)
		}
	case res.JS != nil:
		jsNodes(reflect.ValueOf(res.JS.Program), func(n jsast.Node) {
			var args []jsast.Expression
			switch n := n.(type) {
			case *jsast.CallExpression:
				args = n.ArgumentList
			case *jsast.BracketExpression:
				args = []jsast.Expression{n.Member}
			}
			for _, a := range args {
				spans = append(spans, [2]int{int(a.Idx0()) - 1, int(a.Idx1()) - 1})
			}
		})
	}
	return insertParens(src, spans)
}

func insertParens(src string, spans [][2]int) string {
	type ins struct {
		at   int
		text string
	}
	var all []ins
	for _, s := range spans {
		if s[0] >= 0 && s[0] <= s[1] && s[1] <= len(src) {
			all = append(all, ins{s[0], "("}, ins{s[1], ")"})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at > all[j].at })
	for _, in := range all {
		src = src[:in.at] + in.text + src[in.at:]
	}
	return src
}

// jsNodes calls f for every goja AST node reachable from v.
func jsNodes(v reflect.Value, f func(jsast.Node)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(jsast.Node); ok && v.Kind() == reflect.Pointer {
			f(n)
		}
		jsNodes(v.Elem(), f)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				jsNodes(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			jsNodes(v.Index(i), f)
		}
	}
}
