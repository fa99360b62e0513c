package js

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/unistring"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
)

// compile turns a validated cell into a program, in strict mode, without parsing again.
//
// Top-level let, const and class declarations become var declarations (REPL semantics): a
// later cell, or the same cell run again after an error, may declare the same name again, and
// a declaration is never stuck in its temporal dead zone. The price: top-level const bindings
// can be reassigned, and reading a top-level binding before its declaration gives undefined.
// Declarations inside blocks and functions keep their normal semantics.
func (e *Engine) compile(unit *source.JSUnit) (*goja.Program, error) {
	names := topLevelNames(unit.Program.Body)
	if err := e.checkNames(unit, names); err != nil {
		return nil, err
	}
	src := unit.Program
	if !e.cfg.AsWritten {
		src = rewriteCopy(unit.Program)
	}
	prg := &ast.Program{
		Body:            make([]ast.Statement, len(src.Body)),
		DeclarationList: append([]*ast.VariableDeclaration(nil), src.DeclarationList...),
		File:            src.File,
	}
	for i, st := range src.Body {
		if v := asVar(st); v != nil {
			prg.Body[i] = v
			prg.DeclarationList = append(prg.DeclarationList, &ast.VariableDeclaration{Var: v.Var, List: v.List})
			continue
		}
		prg.Body[i] = st
	}
	return compileAST(prg, unit)
}

// rewriteCopy is a copy of the unit's program with its innermost for…of loops (forof.go), its
// array patterns (destructure.go), its appends of text (concat.go), its splits on white
// space (splitws.go), its global matches of ASCII patterns (matchascii.go) and its numeric sorts
// (sortnum.go) rewritten; the unit itself is left as the validator saw it.
// A rewrite that fails leaves the program as it is.
func rewriteCopy(p *ast.Program) (out *ast.Program) {
	defer func() {
		if recover() != nil {
			out = p
		}
	}()
	if !holdsRewritable(reflect.ValueOf(p.Body)) {
		return p // nothing to rewrite: no copy
	}
	used := identNames(reflect.ValueOf(p.Body))
	for _, name := range helperNames {
		if used[name] {
			return p // the cell names a helper: it runs as written
		}
	}
	c := deepCopy(p).(*ast.Program)
	rewriteForOf(c.Body)
	rewriteDestructure(c.Body)
	rewriteConcat(c.Body)
	rewriteSplitWS(c.Body)
	rewriteMatchASCII(c.Body)
	rewriteSortNum(c.Body)
	return c
}

// helperNames are the globals the rewritten code calls.
var helperNames = []unistring.String{plainArrayName, takeName, restName, catName, splitWSName, splitWSOfName, matchOfName, sortNumName}

// holdsRewritable reports whether v holds a for…of loop, an assignment, an array pattern, a
// regexp or a function literal, which a rewrite may apply to.
func holdsRewritable(v reflect.Value) bool {
	found := false
	each(v, func(x reflect.Value) bool {
		switch x.Interface().(type) {
		case ast.ForOfStatement, ast.AssignExpression, ast.ArrayPattern, ast.RegExpLiteral, ast.ArrowFunctionLiteral, ast.FunctionLiteral:
			found = true
		}
		return !found
	})
	return found
}

func compileAST(prg *ast.Program, unit *source.JSUnit) (p *goja.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fault.New(fault.Code, "the cell could not be compiled: %v", r)
		}
	}()
	p, err = goja.CompileAST(prg, true)
	if err == nil {
		return p, nil
	}
	var msg string
	var off = -1
	switch ce := err.(type) {
	case *goja.CompilerSyntaxError:
		msg, off = "SyntaxError: "+ce.Message+unit.SyntaxHint(ce.Offset, ce.Message), ce.Offset
	case *goja.CompilerReferenceError:
		msg, off = "ReferenceError: "+ce.Message, ce.Offset
	default:
		msg = err.Error()
	}
	ce := &fault.Error{Kind: fault.Code, Msg: msg, Err: err}
	if off >= 0 {
		ce.Pos = unit.Position(file.Idx(off + 1))
	}
	return nil, ce
}

// asVar returns the var statement that replaces a top-level let, const or class declaration,
// or nil for any other statement.
func asVar(st ast.Statement) *ast.VariableStatement {
	switch st := st.(type) {
	case *ast.LexicalDeclaration:
		list := make([]*ast.Binding, len(st.List))
		for i, b := range st.List {
			nb := *b
			if nb.Initializer == nil {
				// `let x;` run again must reset x, as a fresh declaration would.
				nb.Initializer = &ast.Identifier{Name: "undefined", Idx: st.Idx}
			}
			list[i] = &nb
		}
		return &ast.VariableStatement{Var: st.Idx, List: list}
	case *ast.ClassDeclaration:
		if st.Class == nil || st.Class.Name == nil {
			return nil
		}
		name := &ast.Identifier{Name: st.Class.Name.Name, Idx: st.Class.Name.Idx}
		return &ast.VariableStatement{Var: st.Class.Class, List: []*ast.Binding{{Target: name, Initializer: st.Class}}}
	}
	return nil
}

// topLevelNames lists the names a cell declares at the top level, with their positions.
func topLevelNames(body []ast.Statement) map[string]file.Idx {
	names := map[string]file.Idx{}
	for _, st := range body {
		for {
			l, ok := st.(*ast.LabelledStatement)
			if !ok {
				break
			}
			st = l.Statement
		}
		switch st := st.(type) {
		case *ast.VariableStatement:
			bindingNames(st.List, names)
		case *ast.LexicalDeclaration:
			bindingNames(st.List, names)
		case *ast.FunctionDeclaration:
			if st.Function != nil && st.Function.Name != nil {
				names[string(st.Function.Name.Name)] = st.Function.Name.Idx
			}
		case *ast.ClassDeclaration:
			if st.Class != nil && st.Class.Name != nil {
				names[string(st.Class.Name.Name)] = st.Class.Name.Idx
			}
		}
	}
	return names
}

func bindingNames(list []*ast.Binding, names map[string]file.Idx) {
	for _, b := range list {
		patternNames(b.Target, names)
	}
}

// patternNames collects the identifiers a binding target binds.
func patternNames(t ast.Node, names map[string]file.Idx) {
	switch t := t.(type) {
	case *ast.Identifier:
		names[string(t.Name)] = t.Idx
	case *ast.ArrayPattern:
		for _, el := range t.Elements {
			patternNames(el, names)
		}
		patternNames(t.Rest, names)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				names[string(p.Name.Name)] = p.Name.Idx
			case *ast.PropertyKeyed:
				patternNames(p.Value, names)
			}
		}
		patternNames(t.Rest, names)
	case *ast.AssignExpression:
		patternNames(t.Left, names)
	}
}

// checkNames refuses top-level declarations of the built-ins' names and of context, ctxN and
// console: those globals are read-only, and the declaration would fail at run time with a less
// helpful error. The context tools' names (shadowable) may be redeclared: the model's variable
// then hides the function for the session (let count = 0 is too common to refuse).
//
// The refusal also keeps the validator's scoping sound under the var rewrite above: a name the
// validator denies (self, module, ...) that a cell declares at the top level shadows it in the
// validator's eyes, and here it is a global property. No denied name is a global of the
// hardened runtime (TestDeniedNamesAreNotGlobals), so that property is the cell's own, or an
// earlier cell's.
func (e *Engine) checkNames(unit *source.JSUnit, names map[string]file.Idx) error {
	var clash []string
	for name := range names {
		if e.baseline[name] && !shadowable[name] {
			clash = append(clash, name)
		}
	}
	if len(clash) == 0 {
		return nil
	}
	sort.Strings(clash)
	name := clash[0]
	what := "a built-in global"
	if _, ok := e.cfg.API.Lookup(name); ok || name == "context" || name == "console" {
		what = "part of the sandbox API"
	}
	msg := fmt.Sprintf("SyntaxError: cannot declare %q at the top level: it is %s and read-only; choose another name (names: %s)",
		name, what, strings.Join(clash, ", "))
	return &fault.Error{Kind: fault.Code, Msg: msg, Pos: unit.Position(names[name])}
}
