package golang

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
)

// A snippet's top-level `x := f(...)` where f is generic does not compile in yaegi v0.16.1: its
// global type analysis types the variable before instantiating f, and crashes. The engine runs
// such a statement in three steps instead:
//
//  1. the statements before it, then func() { _p := f(...); _stash(&_p) }(), which computes the
//     value inside a function (where yaegi instantiates f correctly) and hands its address to the
//     host;
//  2. `var x T`, with T written from the value's type;
//  3. `x = *_take(0).(*T)`.
//
// So the cell runs in segments split at such statements; the value is computed once. T can be
// written for predeclared types, types of the allowed packages (imported in the cell's file),
// the session's struct types, and composites of these; otherwise the cell fails with a message
// asking for an explicit declaration.

// body runs a snippet's statements, split at the top-level definitions listed in splits.
func (c *cell) body(ctx context.Context, b *ast.BlockStmt, splits []int) error {
	start := 0
	for _, k := range splits {
		if err := c.stmts(ctx, b.List[start:k]); err != nil {
			return err
		}
		if err := c.genericDefine(ctx, b.List[k].(*ast.AssignStmt)); err != nil {
			return err
		}
		start = k + 1
	}
	return c.stmts(ctx, b.List[start:])
}

func (c *cell) stmts(ctx context.Context, list []ast.Stmt) error {
	if len(list) == 0 {
		return nil
	}
	b := &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[len(list)-1].End()}
	return c.run(ctx, b, b)
}

func (c *cell) genericDefine(ctx context.Context, as *ast.AssignStmt) error {
	pos := as.Pos()
	var probe, ptrs []ast.Expr
	var names []string
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			probe = append(probe, ident("_", pos))
			continue
		}
		t := fmt.Sprintf("_p%d", i)
		probe = append(probe, ident(t, pos))
		ptrs = append(ptrs, &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: ident(t, pos)})
		names = append(names, id.Name)
	}
	lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}}, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
		&ast.AssignStmt{Lhs: probe, TokPos: as.TokPos, Tok: token.DEFINE, Rhs: as.Rhs},
		&ast.ExprStmt{X: &ast.CallExpr{Fun: ident("_stash", pos), Lparen: pos, Args: ptrs, Rparen: pos}},
	}, Rbrace: as.End()}}
	probeStmt := &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: as.End(), Rparen: as.End()}}
	c.e.withState(func(st *cellState) { st.stash = nil })
	if err := c.stmts(ctx, []ast.Stmt{probeStmt}); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	return c.declareStashed(ctx, as, names)
}

// declareStashed declares the variables with the types of the stashed values and assigns them.
func (c *cell) declareStashed(ctx context.Context, as *ast.AssignStmt, names []string) error {
	file := c.u.Fset.Position(as.Pos()).Filename
	tn := &typeNamer{file: filepath.Base(file), imports: c.e.sess.imports}
	var decl, lhs, rhs []string
	for i, n := range names {
		stash := c.e.snapshot().stash
		if i >= len(stash) {
			return &Error{Kind: fault.Code, Pos: c.u.Position(as.Pos()), Msg: "internal error: value not stashed"}
		}
		t := reflect.TypeOf(stash[i]).Elem()
		ts, ok := tn.name(t, c)
		if !ok {
			return &Error{Kind: fault.Code, Pos: c.u.Position(as.Pos()), Msg: fmt.Sprintf(
				"cannot infer the type of %s here (yaegi cannot type a top-level := from a generic call); declare it first: var %s T; %s = ...", n, n, n)}
		}
		decl = append(decl, fmt.Sprintf("var %s %s", n, ts))
		lhs = append(lhs, n)
		rhs = append(rhs, fmt.Sprintf("*_take(%d).(*%s)", i, ts))
	}
	if err := c.runSource(ctx, file, "package main\n"+strings.Join(decl, "\n")+"\n", false); err != nil {
		return err
	}
	assign := fmt.Sprintf("package main; func _() { %s = %s }", strings.Join(lhs, ", "), strings.Join(rhs, ", "))
	return c.runSource(ctx, file, assign, true)
}

// runSource compiles engine-written source in the cell's file (so the cell's imports apply) and
// runs it: the whole file, or the body of its first function.
func (c *cell) runSource(ctx context.Context, file, src string, body bool) error {
	f, err := parser.ParseFile(c.u.Fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return &Error{Kind: fault.Code, Msg: "internal error: " + err.Error()}
	}
	if body {
		return c.run(ctx, f.Decls[0].(*ast.FuncDecl).Body, nil)
	}
	return c.run(ctx, f, nil)
}

// typeNamer writes a reflect.Type as Go source valid in the cell's file.
type typeNamer struct {
	file    string
	imports map[string]bool
	structs map[reflect.Type]string // the session's struct types, loaded on first need
}

func (tn *typeNamer) name(t reflect.Type, c *cell) (string, bool) {
	switch {
	case t == errorType:
		return "error", true
	case t.PkgPath() == "" && t.Name() != "":
		return t.Name(), true
	case t.PkgPath() != "":
		pkg := path.Base(t.PkgPath())
		if !tn.imports[tn.file+"\x00\x00"+t.PkgPath()] || strings.Contains(t.PkgPath(), "yaegi") {
			return "", false
		}
		return pkg + "." + t.Name(), true
	}
	elem := func(prefix string, e reflect.Type) (string, bool) {
		s, ok := tn.name(e, c)
		return prefix + s, ok
	}
	switch t.Kind() {
	case reflect.Slice:
		return elem("[]", t.Elem())
	case reflect.Array:
		return elem(fmt.Sprintf("[%d]", t.Len()), t.Elem())
	case reflect.Pointer:
		return elem("*", t.Elem())
	case reflect.Map:
		k, ok := tn.name(t.Key(), c)
		if !ok {
			return "", false
		}
		return elem("map["+k+"]", t.Elem())
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any", true
		}
	case reflect.Struct:
		if tn.structs == nil {
			tn.structs = c.sessionStructs()
		}
		s := tn.structs[t]
		return s, s != ""
	}
	return "", false
}

// sessionStructs maps the reflect types of the session's and the cell's (non-generic) struct
// types to their names, by asking the interpreter for a pointer to a zero value of each.
func (c *cell) sessionStructs() map[reflect.Type]string {
	names := append([]string(nil), c.structs...)
	sort.Strings(names)
	out := map[reflect.Type]string{}
	if len(names) == 0 {
		return out
	}
	var args []string
	for _, n := range names {
		args = append(args, "new("+n+")")
	}
	saved := c.e.snapshot().stash
	defer c.e.withState(func(st *cellState) { st.stash = saved })
	if err := c.runSource(context.Background(), "rlm_engine.go", "package main; func _() { _stash("+strings.Join(args, ", ")+") }", true); err != nil {
		return out
	}
	for i, p := range c.e.snapshot().stash {
		if t := reflect.TypeOf(p).Elem(); t.Kind() == reflect.Struct {
			if _, dup := out[t]; dup {
				out[t] = "" // two types with the same fields: ambiguous
			} else {
				out[t] = names[i]
			}
		}
	}
	return out
}
