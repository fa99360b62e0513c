package golang

import (
	"bytes"
	"flag"
	"fmt"
	"go/constant"
	"go/format"
	"go/importer"
	"go/token"
	"go/types"
	"math/big"
	"os"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/validator"
)

var update = flag.Bool("update", false, "rewrite symbols_gen.go")

// TestGenerateSymbols regenerates symbols_gen.go from the Go toolchain's own sources, for exactly
// the packages of the validator's default policy minus its denied symbols, and fails if the
// committed file differs (run with -update to rewrite it).
func TestGenerateSymbols(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the standard library's sources")
	}
	src, err := generateSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("symbols_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("symbols_gen.go")
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf("symbols_gen.go is stale (%v); run go test ./engine/golang -run TestGenerateSymbols -update", err)
	}
}

// symGen collects the generated text of every package.
type symGen struct {
	denied  map[string]bool
	imports map[string]string // path -> name used in the generated file
	table   bytes.Buffer      // entries of symbolTable
	vars    bytes.Buffer      // entries of symbolVars
	wraps   bytes.Buffer      // interface wrapper types
}

func generateSymbols() ([]byte, error) {
	pol := validator.Policy{}.Effective().Go
	g := &symGen{denied: map[string]bool{}, imports: map[string]string{}}
	for _, s := range pol.DeniedSymbols {
		g.denied[s] = true
	}
	paths := append([]string(nil), pol.Imports...)
	sort.Strings(paths)
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	for _, p := range paths {
		pkg, err := imp.Import(p)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		g.pkg(pkg)
	}
	return g.file()
}

// qualify names a package in the generated file, importing it.
func (g *symGen) qualify(p *types.Package) string {
	if n, ok := g.imports[p.Path()]; ok {
		return n
	}
	name := p.Name()
	for _, n := range g.imports {
		if n == name {
			name = strings.ReplaceAll(p.Path(), "/", "_")
		}
	}
	g.imports[p.Path()] = name
	return name
}

func (g *symGen) pkg(p *types.Package) {
	var vals, vars []string
	q := p.Name() // registered as an import below, if anything is emitted
	for _, name := range p.Scope().Names() {
		o := p.Scope().Lookup(name)
		if !o.Exported() || g.denied[p.Path()+"."+name] {
			continue
		}
		ref := q + "." + name
		switch o := o.(type) {
		case *types.Const:
			vals = append(vals, fmt.Sprintf("%q: reflect.ValueOf(%s),", name, constExpr(ref, o)))
		case *types.Func:
			if o.Type().(*types.Signature).TypeParams().Len() == 0 {
				vals = append(vals, fmt.Sprintf("%q: reflect.ValueOf(%s),", name, ref))
			}
		case *types.Var:
			vars = append(vars, fmt.Sprintf("%q: &%s,", name, ref))
		case *types.TypeName:
			if named, ok := o.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
				continue
			}
			if it, ok := o.Type().Underlying().(*types.Interface); ok && !it.IsMethodSet() {
				continue // a constraint: not a type values can have
			}
			vals = append(vals, fmt.Sprintf("%q: reflect.ValueOf((*%s)(nil)),", name, ref))
			if w := g.wrapper(p, name, o.Type()); w != "" {
				vals = append(vals, fmt.Sprintf("%q: reflect.ValueOf((*%s)(nil)),", "_"+name, w))
			}
		}
	}
	key := p.Path() + "/" + p.Name()
	if len(vals)+len(vars) > 0 && g.qualify(p) != q {
		panic("package name clash: " + p.Path())
	}
	if len(vals) > 0 {
		fmt.Fprintf(&g.table, "%q: sync.OnceValue(func() map[string]reflect.Value {\nreturn map[string]reflect.Value{\n%s\n}\n}),\n",
			key, strings.Join(vals, "\n"))
	}
	if len(vars) > 0 {
		fmt.Fprintf(&g.vars, "%q: sync.OnceValue(func() map[string]any {\nreturn map[string]any{\n%s\n}\n}),\n",
			key, strings.Join(vars, "\n"))
	}
}

// constExpr is the generated expression for a constant: untyped constants keep their exact value.
func constExpr(ref string, c *types.Const) string {
	b, ok := c.Type().(*types.Basic)
	if !ok || b.Info()&types.IsUntyped == 0 {
		return ref
	}
	v := c.Val()
	switch v.Kind() {
	case constant.Bool:
		return fmt.Sprintf("constant.MakeBool(%v)", constant.BoolVal(v))
	case constant.String:
		return fmt.Sprintf("constant.MakeFromLiteral(%q, token.STRING, 0)", v.ExactString())
	case constant.Int:
		return fmt.Sprintf("constant.MakeFromLiteral(%q, token.INT, 0)", v.ExactString())
	case constant.Float:
		r, _ := new(big.Rat).SetString(v.ExactString())
		f := new(big.Float).SetPrec(512).SetRat(r)
		return fmt.Sprintf("constant.MakeFromLiteral(%q, token.FLOAT, 0)", f.Text('g', -1))
	}
	return ref
}

// wrapper emits a struct that lets interpreted types implement the interface type t, and
// returns its name, or "" when t is not an interface interpreted code can implement.
func (g *symGen) wrapper(p *types.Package, name string, t types.Type) string {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return ""
	}
	for i := 0; i < it.NumMethods(); i++ {
		if !it.Method(i).Exported() {
			return ""
		}
	}
	wname := "w" + camel(p.Path()) + name
	qual := func(p *types.Package) string { return g.qualify(p) }
	var fields, methods bytes.Buffer
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		sig := m.Type().(*types.Signature)
		params, args := sigParams(sig, qual)
		results := types.TypeString(sig.Results(), qual)
		fmt.Fprintf(&fields, "W%s func%s %s\n", m.Name(), params, results)
		ret := ""
		if sig.Results().Len() > 0 {
			ret = "return "
		}
		guard := ""
		if m.Name() == "String" && sig.Params().Len() == 0 {
			guard = "if w.WString == nil { return \"\" }\n"
		}
		fmt.Fprintf(&methods, "func (w %s) %s%s %s {\n%s%sw.W%s(%s)\n}\n\n",
			wname, m.Name(), params, results, guard, ret, m.Name(), args)
	}
	fmt.Fprintf(&g.wraps, "// %s lets interpreted types implement %s.%s.\ntype %s struct {\nIValue any\n%s}\n\n%s",
		wname, p.Name(), name, wname, fields.String(), methods.String())
	return wname
}

// camel turns "encoding/json" into "EncodingJson".
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "/") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// sigParams returns a signature's parameter list with generated names, and the matching call
// arguments.
func sigParams(sig *types.Signature, qual types.Qualifier) (params, args string) {
	var ps, as []string
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		n := fmt.Sprintf("a%d", i)
		ts := types.TypeString(v.Type(), qual)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			ts = "..." + strings.TrimPrefix(ts, "[]")
			n += "..."
			ps = append(ps, fmt.Sprintf("a%d %s", i, ts))
		} else {
			ps = append(ps, n+" "+ts)
		}
		as = append(as, n)
	}
	return "(" + strings.Join(ps, ", ") + ")", strings.Join(as, ", ")
}

func (g *symGen) file() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by TestGenerateSymbols (go test ./engine/golang -run TestGenerateSymbols -update). DO NOT EDIT.\n\n")
	b.WriteString("package golang\n\nimport (\n\"go/constant\"\n\"go/token\"\n\"reflect\"\n\"sync\"\n")
	paths := make([]string, 0, len(g.imports))
	for p := range g.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if g.imports[p] != path.Base(p) {
			fmt.Fprintf(&b, "%s ", g.imports[p])
		}
		fmt.Fprintf(&b, "%q\n", p)
	}
	b.WriteString(")\n\n")
	b.WriteString("// symbolTable holds the functions, types, constants and interface wrappers of the allowed\n")
	b.WriteString("// packages, keyed \"path/name\" as yaegi expects. Denied symbols are absent. Each package's\n")
	b.WriteString("// table is built on first use (see symbolsOf): a process that never imports it, or never\n")
	b.WriteString("// runs Go at all, does not build it at start-up.\n")
	fmt.Fprintf(&b, "var symbolTable = map[string]func() map[string]reflect.Value{\n%s}\n\n", g.table.String())
	b.WriteString("// symbolVars points at the allowed packages' variables, built on first use like symbolTable\n")
	b.WriteString("// (see varsOf). They are never exposed as they are: every engine gets deep copies (see copyVars).\n")
	fmt.Fprintf(&b, "var symbolVars = map[string]func() map[string]any{\n%s}\n\n", g.vars.String())
	b.Write(g.wraps.Bytes())
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w\n%s", err, b.Bytes())
	}
	return src, nil
}
