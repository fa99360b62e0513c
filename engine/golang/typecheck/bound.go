package typecheck

import (
	"fmt"
	"go/ast"
	"sort"
)

// go/types recurses over a type's structure, and generic types can make that structure
// exponentially deep from a few lines:
//
//	type T0[P any] struct{ p P }
//	type T1[P any] struct{ p T0[T0[P]] }
//	...                                    // T59[int] is 2^59 levels deep
//
// which overflows the goroutine stack: a fatal error no recover stops. The validator bounds a
// cell's size and nesting, not this; so before the check, the depth of every type the cell
// declares is estimated from its declaration (a generic type's depth when instantiated with
// depth-0 arguments, plus theirs), and a cell over maxTypeDepth is refused. Real types are a few
// levels deep.

// maxTypeDepth is the deepest a declared type may be estimated to be.
const maxTypeDepth = 1000

// typeDepths estimates the depth of the cell's type declarations, records it for later cells,
// and reports those too deep.
func (c *Cell) typeDepths() List {
	e := depthEstimator{specs: map[string]*ast.TypeSpec{}, memo: map[string]int{}, prior: c.s.depths}
	for _, d := range c.u.Decls.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					e.specs[ts.Name.Name] = ts
				}
			}
		}
	}
	var errs List
	for name, ts := range e.specs {
		n := e.depth(name)
		c.depths[name] = n
		if n > maxTypeDepth {
			errs = append(errs, Error{Pos: ts.Pos(), Msg: fmt.Sprintf(
				"type %s nests too deeply when instantiated (at least %d levels; the limit is %d): declare simpler generic types", name, maxTypeDepth, maxTypeDepth)})
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Pos < errs[j].Pos })
	return errs
}

type depthEstimator struct {
	specs map[string]*ast.TypeSpec
	memo  map[string]int
	prior map[string]int // earlier cells' types
}

// saturated caps the estimates (they may grow exponentially).
const saturated = 1 << 40

func (e *depthEstimator) depth(name string) int {
	if n, ok := e.memo[name]; ok {
		return n
	}
	ts, ok := e.specs[name]
	if !ok {
		return e.prior[name]
	}
	e.memo[name] = 0 // a recursive reference (through a pointer, a slice) adds nothing
	n := min(1+e.expr(ts.Type), saturated)
	e.memo[name] = n
	return n
}

// expr estimates the depth of a type expression whose type parameters are of depth 0.
func (e *depthEstimator) expr(x ast.Expr) int {
	switch x := x.(type) {
	case *ast.Ident:
		return e.depth(x.Name)
	case *ast.ParenExpr:
		return e.expr(x.X)
	case *ast.StarExpr:
		return 1 + e.expr(x.X)
	case *ast.Ellipsis:
		return 1 + e.expr(x.Elt)
	case *ast.ArrayType:
		return 1 + e.expr(x.Elt)
	case *ast.ChanType:
		return 1 + e.expr(x.Value)
	case *ast.MapType:
		return 1 + max(e.expr(x.Key), e.expr(x.Value))
	case *ast.IndexExpr:
		return min(e.expr(x.X)+e.expr(x.Index), saturated)
	case *ast.IndexListExpr:
		n := 0
		for _, i := range x.Indices {
			n = max(n, e.expr(i))
		}
		return min(e.expr(x.X)+n, saturated)
	case *ast.StructType:
		return 1 + e.fields(x.Fields)
	case *ast.InterfaceType:
		return 1 + e.fields(x.Methods)
	case *ast.FuncType:
		return 1 + max(e.fields(x.Params), e.fields(x.Results))
	}
	return 1
}

func (e *depthEstimator) fields(fl *ast.FieldList) int {
	n := 0
	if fl == nil {
		return n
	}
	for _, f := range fl.List {
		n = max(n, e.expr(f.Type))
	}
	return n
}
