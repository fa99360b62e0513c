package typecheck

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
)

// ExportDir is the directory, inside this package, of the embedded export data.
const ExportDir = "exportdata"

//go:embed exportdata
var exportData embed.FS

// ExportFile is the name, inside ExportDir, of the export data of the package with import path p.
func ExportFile(p string) string { return strings.ReplaceAll(p, "/", "_") + ".x" }

// HasExportData reports whether the package with import path p has embedded export data.
func HasExportData(p string) bool {
	_, err := fs.Stat(exportData, ExportDir+"/"+ExportFile(p))
	return err == nil
}

// goVersion is the language version cells are checked against.
const goVersion = "go1.26"

// A Library holds the type information of the packages cells may import: compiled packages
// from the embedded export data (decoded on first import, one package at a time) and packages
// given as Go source (type-checked on first import). It is safe for concurrent use, and meant to
// be shared by every session of a process: a package is decoded once.
//
// A compiled package shows cells only the names its Exports function lists (the symbols the
// interpreter really has), so that a symbol the run time lacks is "undefined" here too.
type Library struct {
	exports func(path string) []string
	sources map[string]string

	mu    sync.Mutex
	fset  *token.FileSet             // positions of the library's objects
	full  map[string]*types.Package  // as decoded, shared by every decoding (types stay identical)
	views map[string]*types.Package  // what importers see
	errs  map[string]error           // failed loads, not retried
	names map[string]map[string]bool // per view, its names (see Nameable)
}

// NewLibrary returns a library over the embedded export data and the given sources (import path
// to the text of one Go file). exports lists the names a compiled package exposes; nil exposes
// every exported name.
func NewLibrary(sources map[string]string, exports func(path string) []string) *Library {
	return &Library{
		exports: exports, sources: sources, fset: token.NewFileSet(),
		full: map[string]*types.Package{}, views: map[string]*types.Package{},
		errs: map[string]error{}, names: map[string]map[string]bool{},
	}
}

// Has reports whether the library has type information for the package with import path p.
func (l *Library) Has(p string) bool {
	_, src := l.sources[p]
	return src || HasExportData(p)
}

// Import returns the package with import path p (types.Importer).
func (l *Library) Import(p string) (*types.Package, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.load(p)
}

// Nameable reports whether the exported name of package p is one the library shows (a type
// written into a cell must be one the interpreter has).
func (l *Library) Nameable(p, name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.names[p][name]
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(p string) (*types.Package, error) { return f(p) }

// load returns the view of package p, loading it on first use. l.mu is held.
func (l *Library) load(p string) (*types.Package, error) {
	if v := l.views[p]; v != nil {
		return v, nil
	}
	if err := l.errs[p]; err != nil {
		return nil, err
	}
	v, err := l.loadSource(p)
	if v == nil && err == nil {
		v, err = l.loadExport(p)
	}
	if err != nil {
		l.errs[p] = err
		return nil, err
	}
	l.views[p] = v
	names := map[string]bool{}
	for _, n := range v.Scope().Names() {
		names[n] = true
	}
	l.names[p] = names
	return v, nil
}

// loadSource type-checks a package given as source; nil, nil when p is not one.
func (l *Library) loadSource(p string) (*types.Package, error) {
	src, ok := l.sources[p]
	if !ok {
		return nil, nil
	}
	f, err := parser.ParseFile(l.fset, p+".go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", p, err)
	}
	conf := types.Config{Importer: importerFunc(l.load), GoVersion: goVersion}
	pkg, err := conf.Check(p, l.fset, []*ast.File{f}, nil)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", p, err)
	}
	return pkg, nil
}

// loadExport decodes a package's export data and builds its view.
func (l *Library) loadExport(p string) (*types.Package, error) {
	data, err := exportData.ReadFile(ExportDir + "/" + ExportFile(p))
	if err != nil {
		return nil, fmt.Errorf("no type information for package %q in this build", p)
	}
	if full := l.full[p]; full == nil || !full.Complete() {
		if _, err := gcexportdata.Read(bytes.NewReader(data), l.fset, l.full, p); err != nil {
			return nil, fmt.Errorf("package %s: %w", p, err)
		}
	}
	full := l.full[p]
	view := types.NewPackage(p, full.Name())
	names := full.Scope().Names()
	if l.exports != nil {
		names = l.exports(p)
		sort.Strings(names)
	}
	for _, n := range names {
		if obj := full.Scope().Lookup(n); obj != nil && obj.Exported() {
			view.Scope().Insert(obj)
		}
	}
	view.MarkComplete()
	return view, nil
}

// baseName is the name a package is imported under by default.
func baseName(p string) string { return path.Base(p) }
