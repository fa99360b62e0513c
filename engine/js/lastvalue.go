package js

import (
	"fmt"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"

	"github.com/rlm-sandbox/rlm/source"
)

// unshownNote is the note a cell's output ends with when its last statement is an expression
// whose value a notebook would show (`hits.length`, `1+1`, `counts`): print shows values, the
// cell's value is not shown, as Go reports such a line ("is not used; print a value to see it").
// A call, an assignment, an update, await, delete or void ends a cell with no note: they are
// run for what they do.
func unshownNote(unit *source.JSUnit) string {
	body := unit.Program.Body
	if len(body) == 0 {
		return ""
	}
	st, ok := body[len(body)-1].(*ast.ExpressionStatement)
	if !ok || !valueOnly(st.Expression) {
		return ""
	}
	p := unit.Position(st.Idx0())
	return fmt.Sprintf("note: %s: the value of this expression is not shown (a cell shows only what it prints); print(...) it to see it\n", p)
}

// valueOnly: e computes a value and does nothing else a cell would be run for.
func valueOnly(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.Identifier, *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral,
		*ast.DotExpression, *ast.BracketExpression, *ast.BinaryExpression, *ast.ArrayLiteral,
		*ast.ThisExpression, *ast.RegExpLiteral:
		return true
	case *ast.TemplateLiteral:
		return x.Tag == nil
	case *ast.UnaryExpression:
		switch x.Operator {
		case token.DELETE, token.VOID, token.INCREMENT, token.DECREMENT:
			return false
		}
		return true
	}
	return false
}
