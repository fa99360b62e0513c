package validator_test

import (
	"fmt"
	goparser "go/parser"
	"go/token"
	"io"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"
	jsparser "github.com/dop251/goja/parser"
	"github.com/traefik/yaegi/interp"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// The benchmarks put the validator's cost beside the rest of a cell's cost in the real engines,
// for a typical model-written cell (testdata/cell2k.*): validate, then compile the validated AST
// and run it. The validator's share is Validate / Cell.
//
//	go test ./validator -run '^$' -bench . -benchmem

func readCell(b *testing.B, name string) []byte {
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

func BenchmarkValidateGo(b *testing.B) {
	src := readCell(b, "cell2k.go.txt")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		res, _ := validator.Validate(source.Go, "cell.go", src, validator.Policy{})
		if len(res.Findings) > 0 {
			b.Fatal(res.Findings)
		}
	}
}

func BenchmarkValidateJS(b *testing.B) {
	src := readCell(b, "cell2k.js")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		res, _ := validator.Validate(source.JS, "cell.js", src, validator.Policy{})
		if len(res.Findings) > 0 {
			b.Fatal(res.Findings)
		}
	}
}

// benchSymbols is a minimal function-level allow-list for the benchmark cell.
var benchSymbols = interp.Exports{
	"fmt/fmt":         {"Println": reflect.ValueOf(fmt.Println), "Fprintf": reflect.ValueOf(fmt.Fprintf)},
	"sort/sort":       {"Strings": reflect.ValueOf(sort.Strings)},
	"strconv/strconv": {"Atoi": reflect.ValueOf(strconv.Atoi)},
	"strings/strings": {
		"Split": reflect.ValueOf(strings.Split), "Fields": reflect.ValueOf(strings.Fields),
		"Trim": reflect.ValueOf(strings.Trim), "Builder": reflect.ValueOf((*strings.Builder)(nil)),
	},
}

// BenchmarkCellGo is a whole Go cell: validate into a fresh yaegi interpreter's FileSet, then
// compile and run the validated AST. It uses the whole-program form of the same cell
// (cell2k_program.go.txt), which yaegi v0.16.1 compiles as one file.
func BenchmarkCellGo(b *testing.B) {
	src := readCell(b, "cell2k_program.go.txt")
	for b.Loop() {
		i := interp.New(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
		if err := i.Use(benchSymbols); err != nil {
			b.Fatal(err)
		}
		res, _ := validator.Validate(source.Go, "cell.go", src, validator.Policy{}, validator.GoFileSet(i.FileSet()))
		if err := runGo(i, res.Go); err != nil {
			b.Fatal(err)
		}
	}
}

func runGo(i *interp.Interpreter, u *source.GoUnit) error {
	decls, err := i.CompileAST(u.Decls)
	if err != nil {
		return fmt.Errorf("declarations: %w", err)
	}
	if _, err := i.Execute(decls); err != nil || u.Body == nil {
		return err
	}
	body, err := i.CompileAST(u.Body)
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	_, err = i.Execute(body)
	return err
}

// BenchmarkCellJS is a whole JS cell: validate, then compile and run the validated AST in a
// fresh goja runtime.
func BenchmarkCellJS(b *testing.B) {
	src := readCell(b, "cell2k.js")
	for b.Loop() {
		res, _ := validator.Validate(source.JS, "cell.js", src, validator.Policy{})
		vm := goja.New()
		_ = vm.Set("print", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
		prg, err := goja.CompileAST(res.JS.Program, true)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := vm.RunProgram(prg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOnlyGo and BenchmarkParseOnlyJS are the floor: the parser alone, which the
// validator has to run anyway (and the engine then reuses).
func BenchmarkParseOnlyGo(b *testing.B) {
	src := readCell(b, "cell2k_program.go.txt")
	for b.Loop() {
		if _, err := goparser.ParseFile(token.NewFileSet(), "cell.go", src, goparser.SkipObjectResolution); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseOnlyJS(b *testing.B) {
	src := string(readCell(b, "cell2k.js"))
	for b.Loop() {
		if _, err := jsparser.ParseFile(nil, "cell.js", src, 0, jsparser.WithDisableSourceMaps); err != nil {
			b.Fatal(err)
		}
	}
}
