package golang

import (
	"fmt"
	"go/ast"
	"io"
	"path"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// sourcePackages are allowed packages that exist only as interpreted source (their API is
// generic, which yaegi cannot instantiate from compiled code), with the packages their source
// imports; see packages.go.
var sourcePackages = map[string][]string{"cmp": nil, "maps": nil, "slices": {"cmp", "sort"}}

// allowedImports are the packages cells may import: those of the generated symbol tables, which
// hold the packages of the validator's default policy less its denied symbols
// (TestGenerateSymbols, TestImportsAreThePolicys), and the interpreted ones. The engine reads no
// policy at run time: what it exposes is what it was generated with.
var allowedImports = sync.OnceValue(func() []string {
	set := map[string]bool{}
	for key := range symbolTable {
		set[path.Dir(key)] = true
	}
	for key := range symbolVars {
		set[path.Dir(key)] = true
	}
	for p := range sourcePackages {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
})

// allowed reports whether cells may import the package with import path p.
func allowed(p string) bool {
	_, ok := slices.BinarySearch(allowedImports(), p)
	return ok
}

// ensureImports registers the packages a unit imports, on first use: building a package's
// symbols (deep copies of unicode's tables, say) and compiling the generic packages is most of
// the cost of a new engine.
func (e *Engine) ensureImports(f *ast.File) error {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if err := e.ensure(p); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) ensure(p string) error {
	if e.loaded[p] || !allowed(p) {
		return nil
	}
	e.loaded[p] = true
	if deps, ok := sourcePackages[p]; ok {
		for _, d := range deps {
			if err := e.ensure(d); err != nil {
				return err
			}
		}
		return e.load(p+".go", sourcePackageText[p])
	}
	if ex := e.exportsFor(p); ex != nil {
		return e.it.Use(ex)
	}
	return nil
}

// symbolsOf returns the generated symbols of the package with yaegi key "path/name" (nil when
// the package is not allowed), building them on first use.
func symbolsOf(key string) map[string]reflect.Value {
	if build := symbolTable[key]; build != nil {
		return build()
	}
	return nil
}

// varsOf returns the generated variable pointers of a package, like symbolsOf.
func varsOf(key string) map[string]any {
	if build := symbolVars[key]; build != nil {
		return build()
	}
	return nil
}

// exports builds every symbol one engine may see: the generated table (the policy's packages
// less its denied symbols), deep copies of the package variables, fmt's printing functions bound
// to the engine's capture, and the bridge. Engines register packages lazily (see ensure), one
// exportsFor at a time; exports is the union, for tests.
func (e *Engine) exports() interp.Exports {
	out := interp.Exports{bridgePath + "/" + bridgePath: e.bridgeSymbols()}
	for _, ip := range allowedImports() {
		for k, v := range e.exportsFor(ip) {
			out[k] = v
		}
	}
	return out
}

// exportsFor builds the symbols of one allowed package.
//
// The fmt package is registered under the key "fmt/./fmt" rather than "fmt/fmt": yaegi treats a
// Use of the literal key "fmt/fmt" as "this is the whole standard library" and then adds
// fmt.Scan, fmt.Scanf and fmt.Scanln back (reading the interpreter's stdin) and compiles its own
// generic slices and maps sources. Both keys resolve to the import path "fmt", package fmt.
func (e *Engine) exportsFor(ip string) interp.Exports {
	if e.copier == nil {
		e.copier = &varCopier{seen: map[unsafe.Pointer]reflect.Value{}}
	}
	key := ip + "/" + path.Base(ip)
	syms := map[string]reflect.Value{}
	for name, v := range symbolsOf(key) {
		syms[name] = v
	}
	for name, p := range varsOf(key) {
		syms[name] = e.copier.copyVar(p)
	}
	for name, f := range hostResults[ip] {
		if _, ok := syms[name]; ok {
			syms[name] = f
		}
	}
	if len(syms) == 0 {
		return nil
	}
	out := interp.Exports{}
	if ip == "fmt" {
		e.bindPrinters(syms)
		key = "fmt/./fmt"
		out["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(mapTypes(syms))}
	}
	out[key] = syms
	return out
}

// bindPrinters replaces fmt's functions that write to the process's standard output with ones
// that write to the engine's capture. Print and Println (which the API's print becomes) also
// state when a search page does not hold every match (see printable).
func (e *Engine) bindPrinters(syms map[string]reflect.Value) {
	w := io.Writer(e.out)
	if _, ok := syms["Print"]; ok {
		syms["Print"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(w, printable(a)...) })
	}
	if _, ok := syms["Printf"]; ok {
		syms["Printf"] = reflect.ValueOf(func(f string, a ...any) (int, error) { return fmt.Fprintf(w, f, a...) })
	}
	if _, ok := syms["Println"]; ok {
		syms["Println"] = reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(w, printable(a)...) })
	}
}

// mapTypes tells yaegi which interfaces to wrap interpreted values in when they are passed as
// interface{} to fmt's formatting functions, so their Format, Error and String methods are called.
func mapTypes(f map[string]reflect.Value) map[reflect.Value][]reflect.Type {
	mt := []reflect.Type{ // in the order fmt looks for them
		reflect.TypeOf((*fmt.Formatter)(nil)).Elem(),
		reflect.TypeOf((*error)(nil)).Elem(),
		reflect.TypeOf((*fmt.Stringer)(nil)).Elem(),
	}
	m := map[reflect.Value][]reflect.Type{}
	for _, name := range []string{"Errorf", "Fprint", "Fprintf", "Fprintln", "Print", "Printf", "Println", "Sprint", "Sprintf", "Sprintln", "Append", "Appendf", "Appendln"} {
		if v, ok := f[name]; ok {
			m[v] = mt
		}
	}
	return m
}

// varCopier deep-copies package variables so that no live host value reaches model code:
// `p := &io.EOF; *p = nil` or `unicode.Upper.R16[0] = ...` change the engine's copy only.
// Pointers are copied once each, so aliases (unicode.Lu and unicode.Categories["Lu"]) stay
// aliases of the same copy.
type varCopier struct {
	seen map[unsafe.Pointer]reflect.Value
}

// copyVar returns an addressable copy of the variable p points to.
func (c *varCopier) copyVar(p any) reflect.Value {
	src := reflect.ValueOf(p).Elem()
	dst := reflect.New(src.Type()).Elem()
	dst.Set(c.copy(src))
	return dst
}

func (c *varCopier) copy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if cp, ok := c.seen[v.UnsafePointer()]; ok {
			return cp
		}
		cp := reflect.New(v.Type().Elem())
		c.seen[v.UnsafePointer()] = cp
		cp.Elem().Set(v.Elem()) // unexported fields: a shallow copy, unreachable from model code
		c.copyFields(cp.Elem())
		return cp
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			cp.Index(i).Set(c.copy(v.Index(i)))
		}
		return cp
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			cp.SetMapIndex(it.Key(), c.copy(it.Value()))
		}
		return cp
	case reflect.Struct:
		cp := reflect.New(v.Type()).Elem()
		cp.Set(v)
		c.copyFields(cp)
		return cp
	}
	// Interfaces (error values, io.Discard) are immutable from model code: kept as they are.
	return v
}

// copyFields replaces the exported pointer, slice, map and struct fields of an addressable
// struct with copies.
func (c *varCopier) copyFields(s reflect.Value) {
	if s.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		if !s.Type().Field(i).IsExported() || !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Struct:
			f.Set(c.copy(f))
		}
	}
}
