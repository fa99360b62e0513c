package golang

import (
	"fmt"
	"strings"

	"github.com/rlm-sandbox/rlm/engine"
)

// preludeFile is the file name of the trusted prelude. yaegi scopes imports by file name, so the
// prelude's import of the bridge is visible in this file only.
const preludeFile = "rlm_prelude.go"

// prelude returns the trusted Go prelude: the model API as top-level functions, generated from
// the session's registry (engine.API and its tools), its types, the global context and one variable per context document (ctx0, ctx1,
// …; n of them), and the helpers the desugaring pass calls.
func prelude(api engine.Registry, contextName string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\nimport %q\n\n", bridgePath)
	for _, t := range []string{"Context", "Match", "Slice", "Tally", "FileInfo", "Opts"} {
		fmt.Fprintf(&b, "type %s = %s.%s\n", t, bridgePath, t)
	}
	fmt.Fprintf(&b, "\nvar context = Context{Name: %q}\n", contextName)
	for i := range n {
		fmt.Fprintf(&b, "var ctx%d = Context{Name: \"ctx%d\"}\n", i, i)
	}
	b.WriteString("\n")
	for _, f := range api.Funcs() {
		b.WriteString(preludeFunc(f))
	}
	b.WriteString(preludeHelpers)
	return b.String()
}

// preludeFunc generates one API function: its arguments go to the bridge, its result comes back
// as the prelude's type.
func preludeFunc(f engine.Func) string {
	var params, args []string
	for _, p := range f.Params {
		params = append(params, p.Go())
		a := p.Name
		if p.Arity != engine.One && len(f.Params) == 1 {
			a += "..." // print(values...); a variadic after other parameters goes as one slice
		}
		args = append(args, a)
	}
	call := fmt.Sprintf("%s.Call(%q", bridgePath, f.Name)
	if len(args) > 0 {
		call += ", " + strings.Join(args, ", ")
	}
	call += ")"
	body := call
	switch f.Result {
	case "":
	case "any": // a tool's plain data: the bridge's result as it is
		body = "return " + call
	default:
		body = fmt.Sprintf("return %s.(%s)", call, f.Result)
	}
	return fmt.Sprintf("// %s: %s\nfunc %s(%s) %s {\n\t%s\n}\n\n", f.Name, f.Describe(engine.Limits{}), f.Name, strings.Join(params, ", "), f.Result, body)
}

// preludeHelpers are called by code the desugaring pass writes; their names start with "_", which
// model code cannot use while the validator is on.
const preludeHelpers = `type _ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func _min[T _ordered](x T, ys ...T) T {
	for _, y := range ys {
		if y < x || y != y {
			x = y
		}
	}
	return x
}

func _max[T _ordered](x T, ys ...T) T {
	for _, y := range ys {
		if y > x || y != y {
			x = y
		}
	}
	return x
}

func _clear(v any) { rlmhost.Clear(v) }

func _runePred(p string) func(rune) bool { return rlmhost.RunePred(p) }

func _sortBy(x any, spec string, maps ...any) bool { return rlmhost.SortBy(x, spec, maps...) }

func _boxV[T any](v T, str func(T) (func() string, int)) any {
	f, k := str(v)
	switch k {
	case 0:
		return v
	case -1:
		return nil
	}
	return rlmhost.Box(v, f, k == 2)
}

func _boxSlice[T any](xs []T, str func(T) (func() string, int)) []any {
	if xs == nil {
		return nil
	}
	out := make([]any, len(xs))
	for i := range xs {
		x := xs[i]
		if f, k := str(x); k > 0 {
			out[i] = rlmhost.Box(x, f, k == 2)
		} else if k == 0 {
			out[i] = x
		}
	}
	return out
}

func _boxMap[K comparable, V any](m map[K]V, str func(V) (func() string, int)) map[K]any {
	if m == nil {
		return nil
	}
	out := make(map[K]any, len(m))
	for k := range m {
		v := m[k]
		if f, n := str(v); n > 0 {
			out[k] = rlmhost.Box(v, f, n == 2)
		} else if n == 0 {
			out[k] = v
		} else {
			out[k] = nil
		}
	}
	return out
}

func _errorsAs(err error, target any) bool { return rlmhost.ErrorsAs(err, target) }

func _errorsIs(err, target error) bool { return rlmhost.ErrorsIs(err, target) }

func _at(gen uint64, i int) { rlmhost.At(gen, i) }

func _defer(f func()) { rlmhost.Defer(f) }

func _runDefers() { rlmhost.RunDefers() }

func _seq1[T any](seq func(func(T) bool)) []T {
	var out []T
	seq(func(v T) bool {
		out = append(out, v)
		return true
	})
	return out
}

func _seq2[K, V any](seq func(func(K, V) bool)) ([]K, []V) {
	var ks []K
	var vs []V
	seq(func(k K, v V) bool {
		ks = append(ks, k)
		vs = append(vs, v)
		return true
	})
	return ks, vs
}
`
