package golang

import (
	"bytes"
	"go/importer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
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
