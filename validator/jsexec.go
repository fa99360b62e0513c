package validator

import (
	"fmt"
	"math"
	"strings"

	jsast "github.com/dop251/goja/ast"
	jsfile "github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// loop checks a while/for/do-while loop whose condition is constantly true for a way out.
func (j *jsChecker) loop(at jsfile.Idx, test jsast.Expression, body jsast.Statement) {
	j.expr(test)
	j.stmt(body)
	if alwaysTrue(test) && !j.hasJSExit(body) {
		j.report(at, Hang, "this loop's condition is always true and its body has no break, return, throw or yield")
	}
}

func alwaysTrue(e jsast.Expression) bool {
	switch e := e.(type) {
	case nil:
		return true
	case *jsast.BooleanLiteral:
		return e.Value
	case *jsast.NumberLiteral:
		v, ok := numberValue(e)
		return ok && v != 0 && !math.IsNaN(v)
	case *jsast.StringLiteral:
		return len(e.Value) > 0
	case *jsast.UnaryExpression:
		return e.Operator == token.NOT && alwaysFalse(e.Operand)
	}
	return false
}

func alwaysFalse(e jsast.Expression) bool {
	switch e := e.(type) {
	case *jsast.BooleanLiteral:
		return !e.Value
	case *jsast.NumberLiteral:
		v, ok := numberValue(e)
		return ok && v == 0
	case *jsast.UnaryExpression:
		return e.Operator == token.NOT && alwaysTrue(e.Operand)
	}
	return false
}

// hasJSExit reports whether a loop body has a way out: a return or throw, a break that targets
// this loop (unlabeled and not inside an inner loop or switch, or labeled with a label outside
// the body), a continue to an outer label, or a yield or await (the loop is then driven from
// outside). It does not look into nested functions.
func (j *jsChecker) hasJSExit(body jsast.Statement) bool {
	raw := string(j.c.src[min(int(body.Idx0())-1, len(j.c.src)):min(int(body.Idx1())-1, len(j.c.src))])
	if strings.Contains(raw, "yield") || strings.Contains(raw, "await") {
		return true
	}
	inner := map[string]bool{}
	collectJSLabels(body, inner)
	return jsExit(body, 0, inner)
}

func jsExit(s jsast.Statement, depth int, inner map[string]bool) bool {
	switch s := s.(type) {
	case *jsast.BranchStatement:
		if s.Label == nil {
			return s.Token == token.BREAK && depth == 0
		}
		return !inner[string(s.Label.Name)]
	case *jsast.ReturnStatement, *jsast.ThrowStatement:
		return true
	case *jsast.BlockStatement:
		return anyJSExit(s.List, depth, inner)
	case *jsast.IfStatement:
		return jsExit(s.Consequent, depth, inner) || jsExit(s.Alternate, depth, inner)
	case *jsast.LabelledStatement:
		return jsExit(s.Statement, depth, inner)
	case *jsast.TryStatement:
		return jsExit(s.Body, depth, inner) || s.Catch != nil && jsExit(s.Catch.Body, depth, inner) ||
			s.Finally != nil && jsExit(s.Finally, depth, inner)
	case *jsast.SwitchStatement:
		for _, c := range s.Body {
			if anyJSExit(c.Consequent, depth+1, inner) {
				return true
			}
		}
	case *jsast.ForStatement:
		return jsExit(s.Body, depth+1, inner)
	case *jsast.ForInStatement:
		return jsExit(s.Body, depth+1, inner)
	case *jsast.ForOfStatement:
		return jsExit(s.Body, depth+1, inner)
	case *jsast.WhileStatement:
		return jsExit(s.Body, depth+1, inner)
	case *jsast.DoWhileStatement:
		return jsExit(s.Body, depth+1, inner)
	}
	return false
}

func anyJSExit(list []jsast.Statement, depth int, inner map[string]bool) bool {
	for _, s := range list {
		if jsExit(s, depth, inner) {
			return true
		}
	}
	return false
}

// collectJSLabels records the labels declared inside a statement (not inside nested functions).
func collectJSLabels(s jsast.Statement, out map[string]bool) {
	switch s := s.(type) {
	case *jsast.LabelledStatement:
		out[string(s.Label.Name)] = true
		collectJSLabels(s.Statement, out)
	case *jsast.BlockStatement:
		for _, x := range s.List {
			collectJSLabels(x, out)
		}
	case *jsast.IfStatement:
		collectJSLabels(s.Consequent, out)
		collectJSLabels(s.Alternate, out)
	case *jsast.TryStatement:
		collectJSLabels(s.Body, out)
		if s.Catch != nil {
			collectJSLabels(s.Catch.Body, out)
		}
		if s.Finally != nil {
			collectJSLabels(s.Finally, out)
		}
	case *jsast.SwitchStatement:
		for _, c := range s.Body {
			for _, x := range c.Consequent {
				collectJSLabels(x, out)
			}
		}
	case *jsast.ForStatement:
		collectJSLabels(s.Body, out)
	case *jsast.ForInStatement:
		collectJSLabels(s.Body, out)
	case *jsast.ForOfStatement:
		collectJSLabels(s.Body, out)
	case *jsast.WhileStatement:
		collectJSLabels(s.Body, out)
	case *jsast.DoWhileStatement:
		collectJSLabels(s.Body, out)
	}
}

// allocCallees are constructors whose single numeric argument is an allocation size.
var allocCallees = map[string]bool{
	"Array": true, "ArrayBuffer": true, "DataView": true, "Int8Array": true, "Uint8Array": true,
	"Uint8ClampedArray": true, "Int16Array": true, "Uint16Array": true, "Int32Array": true,
	"Uint32Array": true, "Float32Array": true, "Float64Array": true, "BigInt64Array": true,
	"BigUint64Array": true,
}

// allocMethods are string methods whose first argument is a result length or count.
var allocMethods = map[string]bool{"repeat": true, "padStart": true, "padEnd": true}

// regexMethods are string methods that turn a string argument into a RegExp.
var regexMethods = map[string]bool{"match": true, "matchAll": true, "search": true}

// callChecks looks at calls and constructions for constant allocation sizes and regex patterns.
func (j *jsChecker) callChecks(callee jsast.Expression, args []jsast.Expression) {
	if oc, ok := callee.(*jsast.OptionalChain); ok {
		callee = oc.Expression
	}
	switch c := callee.(type) {
	case *jsast.Identifier:
		if allocCallees[string(c.Name)] && len(args) == 1 {
			j.allocArg(args[0], string(c.Name)+" size")
		}
		if c.Name == "RegExp" && len(args) > 0 {
			j.regexArg(args[0])
		}
	case *jsast.DotExpression:
		name := string(c.Identifier.Name)
		if allocMethods[name] && len(args) > 0 {
			j.allocArg(args[0], name+" length")
		}
		if regexMethods[name] && len(args) > 0 {
			j.regexArg(args[0])
		}
		if name == "from" && len(args) > 0 {
			j.arrayFromLength(args[0])
		}
	}
}

func (j *jsChecker) allocArg(e jsast.Expression, what string) {
	v, ok := foldNumber(e, 0)
	if ok && v > float64(j.c.pol.MaxConstAlloc) {
		j.report(e.Idx0(), AllocSize, fmt.Sprintf("%s %s is over the limit of %d", what, formatSize(v), j.c.pol.MaxConstAlloc))
	}
}

// arrayFromLength checks Array.from({length: n}).
func (j *jsChecker) arrayFromLength(arg jsast.Expression) {
	obj, ok := arg.(*jsast.ObjectLiteral)
	if !ok {
		return
	}
	for _, p := range obj.Value {
		if kp, ok := p.(*jsast.PropertyKeyed); ok && !kp.Computed {
			if name, _ := keyName(kp.Key); name == "length" {
				j.allocArg(kp.Value, "Array.from length")
			}
		}
	}
}

// lengthAssign checks a.length = n, which grows an array to n elements.
func (j *jsChecker) lengthAssign(e *jsast.AssignExpression) {
	if d, ok := e.Left.(*jsast.DotExpression); ok && d.Identifier.Name == "length" {
		j.allocArg(e.Right, "length")
	}
}

func (j *jsChecker) regexArg(e jsast.Expression) {
	if vals, _, ok := foldStrings(e, 0); ok {
		for _, v := range vals {
			j.regex(e.Idx0(), v)
		}
	}
}

// regex rejects patterns that make a backtracking engine exponential: backreferences, and a
// group that contains an unbounded quantifier and is itself repeated without bound.
func (j *jsChecker) regex(at jsfile.Idx, pattern string) {
	if why := backtrackRisk(pattern); why != "" {
		j.report(at, RegexBacktrack, fmt.Sprintf("regex /%s/ %s", shorten(pattern, 40), why))
	}
}

func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func numberValue(n *jsast.NumberLiteral) (float64, bool) {
	switch v := n.Value.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// foldNumber evaluates a constant numeric expression in float64 (saturating to +Inf).
func foldNumber(e jsast.Expression, depth int) (float64, bool) {
	if depth > 64 {
		return 0, false
	}
	switch e := e.(type) {
	case *jsast.NumberLiteral:
		return numberValue(e)
	case *jsast.UnaryExpression:
		v, ok := foldNumber(e.Operand, depth+1)
		switch e.Operator {
		case token.MINUS:
			return -v, ok
		case token.PLUS:
			return v, ok
		}
	case *jsast.BinaryExpression:
		x, ok1 := foldNumber(e.Left, depth+1)
		y, ok2 := foldNumber(e.Right, depth+1)
		if ok1 && ok2 {
			return jsBinary(e.Operator, x, y)
		}
	case *jsast.SequenceExpression:
		if len(e.Sequence) > 0 {
			return foldNumber(e.Sequence[len(e.Sequence)-1], depth+1)
		}
	}
	return 0, false
}

func jsBinary(op token.Token, x, y float64) (float64, bool) {
	switch op {
	case token.PLUS:
		return x + y, true
	case token.MINUS:
		return x - y, true
	case token.MULTIPLY:
		return x * y, true
	case token.SLASH:
		return x / y, y != 0
	case token.EXPONENT:
		return math.Pow(x, y), true
	case token.SHIFT_LEFT: // 32-bit in JS, but a bound is what matters
		return x * math.Pow(2, math.Mod(y, 32)), true
	}
	return 0, false
}
