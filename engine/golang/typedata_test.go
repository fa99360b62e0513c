package golang

import (
	"bytes"
	"go/importer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/gcexportdata"

	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/validator"
)

// TestGenerateTypeData writes, for every compiled package of the validator's default Go policy,
// the toolchain's type information as export data into typecheck/exportdata/, and fails if the
// committed files differ (rewrite them with go generate ./engine/golang). It needs the Go
// toolchain; the engine, which embeds the files, does not.
func TestGenerateTypeData(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -export over the standard library")
	}
	want, err := generateTypeData()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("typecheck", typecheck.ExportDir)
	if *update {
		old, _ := filepath.Glob(filepath.Join(dir, "*.x"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.x"))
	for _, f := range got {
		if _, ok := want[filepath.Base(f)]; !ok {
			t.Errorf("%s is not generated from the policy any more; run go generate ./engine/golang", f)
		}
	}
	for name, b := range want {
		if old, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(old, b) {
			t.Errorf("%s is stale (%v); run go generate ./engine/golang", name, err)
		}
	}
}

// generateTypeData returns the export data of every compiled policy package, by file name.
func generateTypeData() (map[string][]byte, error) {
	paths := slices.Clone(validator.Policy{}.Effective().Go.Imports)
	slices.Sort(paths)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", nil)
	out := map[string][]byte{}
	for _, p := range paths {
		if _, src := sourcePackages[p]; src {
			continue
		}
		pkg, err := imp.Import(p)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := gcexportdata.Write(&b, fset, pkg); err != nil {
			return nil, err
		}
		out[typecheck.ExportFile(p)] = b.Bytes()
	}
	return out, nil
}

// TestTypeDataCoversRuntime fails when the embedded type data is stale relative to the policy
// and the engine's symbols (it needs no toolchain): a policy package without type data, export
// data of a package outside the policy, a symbol the engine has that the type data lacks, or a
// denied symbol the checker would show.
func TestTypeDataCoversRuntime(t *testing.T) {
	pol := validator.Policy{}.Effective().Go
	inPolicy := map[string]bool{}
	sources := map[string]string{bridgePath: bridgeSource()}
	for p, src := range sourcePackageText {
		sources[p] = src
	}
	all := typecheck.NewLibrary(sources, nil) // every exported name, unfiltered
	for _, p := range pol.Imports {
		inPolicy[p] = true
		if !library().Has(p) {
			t.Errorf("package %s is in the policy but has no type data; run go generate ./engine/golang", p)
			continue
		}
		full, err := all.Import(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, n := range runtimeNames(p) {
			if full.Scope().Lookup(n) == nil {
				t.Errorf("%s.%s: the engine has it, the type data does not; run go generate ./engine/golang", p, n)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join("typecheck", typecheck.ExportDir, "*.x"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no export data files: %v", err)
	}
	for _, f := range files {
		found := false
		for p := range inPolicy {
			found = found || typecheck.ExportFile(p) == filepath.Base(f)
		}
		if !found {
			t.Errorf("%s: export data of a package outside the policy", f)
		}
	}
	for _, sym := range pol.DeniedSymbols {
		i := strings.LastIndex(sym, ".")
		view, err := library().Import(sym[:i])
		if err != nil {
			t.Errorf("%s: %v", sym, err)
		} else if view.Scope().Lookup(sym[i+1:]) != nil {
			t.Errorf("the checker shows denied symbol %s", sym)
		}
	}
}
