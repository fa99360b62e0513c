package golang

import (
	"fmt"
	"reflect"

	"github.com/rlm-sandbox/rlm/engine/golang/runepred"
	"github.com/rlm-sandbox/rlm/engine/golang/sortspec"
	"github.com/rlm-sandbox/rlm/fault"
)

// The shims below make interpreted values behave like compiled ones where yaegi v0.16.1 loses
// their methods at the boundary to compiled code. They take and return plain values only; model
// code calling them directly can do nothing it could not do anyway.

var (
	errorType    = reflect.TypeOf((*error)(nil)).Elem()
	stringerType = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
)

// box wraps a value held in an interpreted interface type whose Error or String method compiled
// code cannot see (yaegi drops them when such a value crosses into compiled code), so that fmt
// formats it as Go would. str calls the value's Error (isErr) or String method. Values whose
// compiled type already has the method, and nil, pass through.
func box(v any, str func() string, isErr bool) any {
	if v == nil || str == nil {
		return v
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return v // fmt prints a nil pointer as <nil>, as Go does when its method panics
	}
	t := reflect.TypeOf(v)
	if t.Implements(errorType) || (!isErr && t.Implements(stringerType)) {
		return v
	}
	b := &boxed{v: v, str: str}
	if isErr {
		return &boxedError{boxed: b}
	}
	return b
}

type boxed struct {
	v   any
	str func() string
}

// Format applies Go's rules: %v %s %q %x %X use the method's text, other verbs (and %#v) the
// value itself.
func (b *boxed) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, fmt.FormatString(f, verb), b.v)
	case verb == 'v' || verb == 's' || verb == 'q' || verb == 'x' || verb == 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), b.str())
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), b.v)
	}
}

type boxedError struct{ *boxed }

func (b *boxedError) Error() string { return b.str() }

// candidates returns e and the interpreted values e may stand for: the value in a box, or in
// one of yaegi's interface wrappers (a struct whose first field is IValue).
func candidates(e error) []any {
	out := []any{e}
	switch b := e.(type) {
	case *boxedError:
		return append(out, b.v)
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return out
	}
	rv := reflect.ValueOf(e)
	if rv.Kind() == reflect.Struct && rv.NumField() > 0 && rv.Type().Field(0).Name == "IValue" {
		if iv := rv.Field(0); iv.CanInterface() && !iv.IsZero() {
			out = append(out, iv.Interface())
		}
	}
	return out
}

// walkErrors calls visit on err and every error it wraps, depth first, until visit returns true.
func walkErrors(err error, depth int, visit func(error) bool) bool {
	if err == nil || depth > 100 {
		return false
	}
	if visit(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walkErrors(u.Unwrap(), depth+1, visit)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if walkErrors(e, depth+1, visit) {
				return true
			}
		}
	}
	return false
}

// errorsAs is errors.As that also finds interpreted error values.
func errorsAs(err error, target any) bool {
	tv := reflect.ValueOf(target)
	if target == nil || tv.Kind() != reflect.Pointer || tv.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	want := tv.Type().Elem()
	return walkErrors(err, 0, func(e error) bool {
		for _, c := range candidates(e) {
			if c != nil && reflect.TypeOf(c).AssignableTo(want) {
				tv.Elem().Set(reflect.ValueOf(c))
				return true
			}
		}
		if x, ok := e.(interface{ As(any) bool }); ok && x.As(target) {
			return true
		}
		return false
	})
}

// errorsIs is errors.Is that also compares interpreted error values.
func errorsIs(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	want := candidates(target)
	return walkErrors(err, 0, func(e error) bool {
		for _, c := range candidates(e) {
			for _, w := range want {
				if c != nil && w != nil && reflect.TypeOf(c).Comparable() && reflect.TypeOf(c) == reflect.TypeOf(w) && c == w {
					return true
				}
			}
		}
		x, ok := e.(interface{ Is(error) bool })
		return ok && x.Is(target)
	})
}

// clearValue is the clear builtin: it deletes a map's entries or zeroes a slice's elements.
func clearValue(v any) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		rv.Clear()
	case reflect.Slice:
		rv.Clear()
	case reflect.Invalid:
	default:
		panic(fmt.Sprintf("invalid argument: clear(%T): argument must be a map or a slice", v))
	}
}

// yaegi builds interpreted struct types with reflect.StructOf, renaming each unexported field f
// to Xf so that reflect accepts it. encoding/json would then print fields Go hides; jsonType and
// jsonValue drop them from FINAL's serialisation. (A field the cell itself named Xf, with f
// lower case, is indistinguishable and dropped too.)

func hiddenField(f reflect.StructField) bool {
	return len(f.Name) > 1 && f.Name[0] == 'X' && (f.Name[1] == '_' || f.Name[1] >= 'a' && f.Name[1] <= 'z')
}

// jsonType returns t with the hidden fields of its unnamed struct types removed.
func jsonType(t reflect.Type, depth int) reflect.Type {
	if depth > 20 {
		return t
	}
	switch t.Kind() {
	case reflect.Pointer:
		if e := jsonType(t.Elem(), depth+1); e != t.Elem() {
			return reflect.PointerTo(e)
		}
	case reflect.Slice:
		if e := jsonType(t.Elem(), depth+1); e != t.Elem() {
			return reflect.SliceOf(e)
		}
	case reflect.Array:
		if e := jsonType(t.Elem(), depth+1); e != t.Elem() {
			return reflect.ArrayOf(t.Len(), e)
		}
	case reflect.Map:
		if e := jsonType(t.Elem(), depth+1); e != t.Elem() {
			return reflect.MapOf(t.Key(), e)
		}
	case reflect.Struct:
		if t.Name() != "" {
			return t
		}
		var fields []reflect.StructField
		changed := false
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if hiddenField(f) || !f.IsExported() {
				changed = true
				continue
			}
			if ft := jsonType(f.Type, depth+1); ft != f.Type {
				f.Type, changed = ft, true
			}
			f.Index, f.Offset = nil, 0
			fields = append(fields, f)
		}
		if changed {
			return reflect.StructOf(fields)
		}
	}
	return t
}

// jsonValue copies v into type vt (from jsonType).
func jsonValue(v reflect.Value, vt reflect.Type) reflect.Value {
	if v.Type() == vt {
		return v
	}
	out := reflect.New(vt).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(vt.Elem())
			p.Elem().Set(jsonValue(v.Elem(), vt.Elem()))
			out.Set(p)
		}
	case reflect.Slice:
		if !v.IsNil() {
			out.Set(reflect.MakeSlice(vt, v.Len(), v.Len()))
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(jsonValue(v.Index(i), vt.Elem()))
		}
	case reflect.Map:
		if !v.IsNil() {
			out.Set(reflect.MakeMapWithSize(vt, v.Len()))
			for it := v.MapRange(); it.Next(); {
				out.SetMapIndex(it.Key(), jsonValue(it.Value(), vt.Elem()))
			}
		}
	case reflect.Struct:
		for i := 0; i < vt.NumField(); i++ {
			f := vt.Field(i)
			out.Field(i).Set(jsonValue(v.FieldByName(f.Name), f.Type))
		}
	}
	return out
}

// runePred compiles a predicate the desugaring pass wrote for a func literal (see
// desugar/runepred.go), once per text in a session; cells' goroutines may call it at once.
func (e *Engine) runePred(src string) func(rune) bool {
	if f, ok := e.preds.Load(src); ok {
		return f.(func(rune) bool)
	}
	n, err := runepred.Parse(src)
	if err != nil {
		hostFail(fault.Code, "%v", err)
	}
	f, _ := e.preds.LoadOrStore(src, n.Func())
	return f.(func(rune) bool)
}

// sortBy sorts x with a spec the desugaring pass wrote for a comparator literal (see
// desugar/sortcmp.go), parsed once per text in a session; false when the literal must run.
func (e *Engine) sortBy(x any, spec string, maps ...any) bool {
	s, ok := e.sorts.Load(spec)
	if !ok {
		parsed, err := sortspec.Parse(spec)
		if err != nil {
			hostFail(fault.Code, "%v", err)
		}
		s, _ = e.sorts.LoadOrStore(spec, parsed)
	}
	return s.(*sortspec.Spec).Sort(x, maps...)
}
