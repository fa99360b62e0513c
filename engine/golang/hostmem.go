package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"hash/crc32"
	"reflect"

	"github.com/rlm-sandbox/rlm/engine/golang/typecheck"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
)

// The symbol table hands cells deep copies of the packages' variables (symbols.go), but compiled
// functions and methods can still return the host's own memory:
//
//   - crc32.MakeTable(crc32.IEEE) returns crc32.IEEETable itself, and MakeTable(Castagnoli) the
//     package's private table: hostResults wraps MakeTable so that it always returns a copy;
//   - time.Time's Location returns the host's time.UTC or time.Local themselves (a zero Time's
//     is UTC, Now's is Local), and a method's result cannot be copied: hostStores refuses, from
//     the cell's types, every write of a time.Location that is not to a variable of the cell's.

// hostResults replace, per package, the functions whose results can be host memory.
var hostResults = map[string]map[string]reflect.Value{
	"hash/crc32": {"MakeTable": reflect.ValueOf(func(poly uint32) *crc32.Table {
		t := *crc32.MakeTable(poly)
		return &t
	})},
}

// sharedTypes are the types ("path.Name") of the host memory compiled methods return.
var sharedTypes = []string{"time.Location"}

// hostStores reports the first write into a value of a shared type (or of a type with the same
// underlying type) that is not a plain variable: *loc = v, p.f = v with f of that type, or a
// generic instantiated with it, whose body could do either through a *T.
func hostStores(tc *typecheck.Cell, u *source.GoUnit) error {
	shared := sharedUnderlying()
	var bad ast.Node
	var what string
	isShared := func(t types.Type) bool {
		for name, s := range shared {
			if t != nil && types.Identical(t.Underlying(), s) {
				what = name
				return true
			}
		}
		return false
	}
	check := func(lhs ast.Expr) {
		if _, plain := ast.Unparen(lhs).(*ast.Ident); !plain && bad == nil && isShared(tc.Info.TypeOf(lhs)) {
			bad = lhs
		}
	}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				check(l)
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				check(n.Key)
				check(n.Value)
			}
		}
		return bad == nil
	}
	ast.Inspect(u.Decls, visit)
	if u.Body != nil && bad == nil {
		ast.Inspect(u.Body, visit)
	}
	for id, inst := range tc.Info.Instances {
		for t := range inst.TypeArgs.Types() {
			if isShared(t) && (bad == nil || id.Pos() < bad.Pos()) {
				bad = id
			}
		}
	}
	if bad == nil {
		return nil
	}
	return &fault.Error{Kind: fault.Denied, Pos: u.Position(bad.Pos()), Err: notRun(nil), Msg: fmt.Sprintf(
		"this writes a %s in place, which can be the host's own (time.Time's Location returns time.UTC or time.Local themselves); make a new one with time.FixedZone instead", what)}
}

// sharedUnderlying returns the underlying types of sharedTypes, by name, from the engine's type
// library.
func sharedUnderlying() map[string]types.Type {
	out := map[string]types.Type{}
	for _, name := range sharedTypes {
		i := len(name) - 1
		for name[i] != '.' {
			i--
		}
		pkg, err := library().Import(name[:i])
		if err != nil {
			continue
		}
		if o, ok := pkg.Scope().Lookup(name[i+1:]).(*types.TypeName); ok {
			out[name] = o.Type().Underlying()
		}
	}
	return out
}
