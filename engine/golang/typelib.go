package golang

//go:generate go test -run TestGenerateTypeData -update

import (
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
)

// library is the type information cells are checked against: the compiled packages' export
// data embedded in typecheck (showing of each package only the symbols the engine has, see
// runtimeNames), and the interpreted packages and the bridge as source. It is built on first
// use and shared by every engine of the process; a package is decoded on its first import.
var library = sync.OnceValue(func() *typecheck.Library {
	sources := map[string]string{bridgePath: bridgeSource()}
	for p, src := range sourcePackageText {
		sources[p] = src
	}
	return typecheck.NewLibrary(sources, runtimeNames)
})

// runtimeNames lists the symbols the engine has of compiled package p.
func runtimeNames(p string) []string {
	key := p + "/" + path.Base(p)
	var out []string
	for n := range symbolsOf(key) {
		if !strings.HasPrefix(n, "_") {
			out = append(out, n)
		}
	}
	for n := range varsOf(key) {
		out = append(out, n)
	}
	return out
}

// bridgeSource writes the bridge package as Go source for the type checker, from the bridge's
// own symbols: its types as struct types, its functions with their signatures.
func bridgeSource() string {
	syms := (&Engine{}).bridgeSymbols()
	names := make([]string, 0, len(syms))
	for n := range syms {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", bridgePath)
	for _, n := range names {
		v := syms[n]
		switch t := v.Type(); {
		case t.Kind() == reflect.Pointer && v.IsNil():
			fmt.Fprintf(&b, "type %s %s\n\n", n, goType(t.Elem(), true))
		case t.Kind() == reflect.Func:
			fmt.Fprintf(&b, "func %s%s { panic(0) }\n\n", n, goSignature(t))
		}
	}
	return b.String()
}

// goType writes a reflect type as Go source in the bridge package: the bridge's own types by
// name (unless top, where a type's definition is written).
func goType(t reflect.Type, top bool) string {
	if !top && t.Name() != "" {
		if t.PkgPath() == reflect.TypeOf(Context{}).PkgPath() {
			return t.Name()
		}
		return t.String()
	}
	switch t.Kind() {
	case reflect.Struct:
		var fields []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fields = append(fields, f.Name+" "+goType(f.Type, false))
		}
		return "struct {\n\t" + strings.Join(fields, "\n\t") + "\n}"
	case reflect.Slice:
		return "[]" + goType(t.Elem(), false)
	case reflect.Pointer:
		return "*" + goType(t.Elem(), false)
	case reflect.Map:
		return "map[" + goType(t.Key(), false) + "]" + goType(t.Elem(), false)
	case reflect.Func:
		return "func" + goSignature(t)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any"
		}
	}
	return t.String()
}

func goSignature(t reflect.Type) string {
	var in, out []string
	for i := 0; i < t.NumIn(); i++ {
		if t.IsVariadic() && i == t.NumIn()-1 {
			in = append(in, fmt.Sprintf("a%d ...%s", i, goType(t.In(i).Elem(), false)))
		} else {
			in = append(in, fmt.Sprintf("a%d %s", i, goType(t.In(i), false)))
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		out = append(out, goType(t.Out(i), false))
	}
	return "(" + strings.Join(in, ", ") + ") (" + strings.Join(out, ", ") + ")"
}
