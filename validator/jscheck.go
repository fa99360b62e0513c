package validator

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	jsast "github.com/dop251/goja/ast"

	"github.com/rlm-sandbox/rlm/source"
)

// jsSource runs the JS pipeline: parse (size, source-map comments, the pre-scan, parse), then
// the checks of the unit. A syntax error in code that uses import() or import.meta gets a
// finding that says what the code was trying to do.
func (c *checker) jsSource() *source.JSUnit {
	u, err := source.ParseJS(c.name, c.src, c.parseOptions())
	c.addParse(err)
	if u == nil {
		if !c.parseOnly && hasSyntax(err) {
			c.jsImports()
		}
		return nil
	}
	if !c.parseOnly {
		j := &jsChecker{c: c, u: u}
		j.program(u.Program)
	}
	return u
}

// hasSyntax reports whether the parser ran and failed: only the parser reports rule Syntax.
func hasSyntax(err error) bool {
	var l source.List
	return errors.As(err, &l) && slices.ContainsFunc(l, func(f source.Finding) bool { return f.Rule == source.Syntax })
}

// importForm matches import( and import. where import is a whole word, not a property name.
var importForm = regexp.MustCompile(`(^|[^.\w$])import\s*[(.]`)

// jsImports names the reason for a syntax error that goja gives dynamic import() and import.meta,
// which it does not support, so that the finding says what the code was trying to do.
func (c *checker) jsImports() {
	if loc := importForm.FindIndex(c.src); loc != nil {
		at := loc[0]
		if c.src[at] != 'i' {
			at++
		}
		c.report(at, HostAccess, "import() and import.meta load modules from the host")
	}
}

// jsChecker walks a goja AST. fn counts enclosing non-arrow functions and class bodies, where
// `this` is not the global object; scope is the innermost scope (jsscope.go).
type jsChecker struct {
	c     *checker
	u     *source.JSUnit
	fn    int
	scope *jsScope
}

// program checks a cell in the script scope: the names earlier cells declared, then the cell's
// own top-level declarations.
func (j *jsChecker) program(prg *jsast.Program) {
	s := j.push()
	for _, name := range j.c.jsDeclared {
		s.declareName(name, true)
	}
	s.declareVars(prg.Body, false)
	s.declareLexical(prg.Body)
	j.stmts(prg.Body)
	j.pop()
}

func (j *jsChecker) stmt(s jsast.Statement) {
	switch s := s.(type) {
	case nil:
	case *jsast.BlockStatement:
		j.push().declareLexical(s.List)
		j.stmts(s.List)
		j.pop()
	case *jsast.ExpressionStatement:
		j.expr(s.Expression)
	case *jsast.VariableStatement:
		j.bindings(s.List)
	case *jsast.LexicalDeclaration:
		j.bindings(s.List)
	case *jsast.FunctionDeclaration:
		if s.Function != nil && s.Function.Name != nil {
			j.bind(s.Function.Name) // declared in this scope (declareLexical)
		}
		j.function(s.Function, fnDecl)
	case *jsast.ClassDeclaration:
		j.class(s.Class)
	case *jsast.IfStatement:
		j.expr(s.Test)
		j.stmt(s.Consequent)
		j.stmt(s.Alternate)
	case *jsast.ForStatement:
		sc := j.push()
		if l, ok := s.Initializer.(*jsast.ForLoopInitializerLexicalDecl); ok {
			sc.declareList(l.LexicalDeclaration.List, true)
		}
		j.forInit(s.Initializer)
		j.loop(s.For, s.Test, s.Body)
		j.expr(s.Update)
		j.pop()
	case *jsast.ForInStatement:
		j.forIn(s.Into, s.Source, s.Body)
	case *jsast.ForOfStatement:
		j.forIn(s.Into, s.Source, s.Body)
	case *jsast.WhileStatement:
		j.loop(s.While, s.Test, s.Body)
	case *jsast.DoWhileStatement:
		j.loop(s.Do, s.Test, s.Body)
	case *jsast.WithStatement:
		j.report(s.With, With, "with statement")
		j.expr(s.Object)
		j.stmt(s.Body)
	case *jsast.ReturnStatement:
		j.expr(s.Argument)
	case *jsast.ThrowStatement:
		j.expr(s.Argument)
	case *jsast.TryStatement:
		j.stmt(s.Body)
		if s.Catch != nil {
			sc := j.push()
			boundNames(s.Catch.Parameter, func(id *jsast.Identifier) { sc.declare(id, true) })
			j.pattern(s.Catch.Parameter)
			j.stmt(s.Catch.Body)
			j.pop()
		}
		if s.Finally != nil {
			j.stmt(s.Finally)
		}
	case *jsast.SwitchStatement:
		j.expr(s.Discriminant)
		sc := j.push()
		for _, cs := range s.Body {
			sc.declareLexical(cs.Consequent)
		}
		for _, cs := range s.Body {
			j.expr(cs.Test)
			j.stmts(cs.Consequent)
		}
		j.pop()
	case *jsast.LabelledStatement:
		j.label(s.Label)
		j.stmt(s.Statement)
	case *jsast.BranchStatement:
		j.label(s.Label)
	}
}

func (j *jsChecker) stmts(list []jsast.Statement) {
	for _, s := range list {
		j.stmt(s)
	}
}

func (j *jsChecker) expr(e jsast.Expression) {
	switch e := e.(type) {
	case nil:
	case *jsast.Identifier:
		j.ref(e)
	case *jsast.ThisExpression:
		if j.fn == 0 {
			j.report(e.Idx, GlobalObject, "this outside a function is the global object")
		}
	case *jsast.DotExpression:
		j.expr(e.Left)
		j.member(&e.Identifier)
	case *jsast.PrivateDotExpression:
		j.expr(e.Left)
		j.underscore(&e.Identifier.Identifier, "private member #")
	case *jsast.BracketExpression:
		j.expr(e.Left)
		j.expr(e.Member)
		j.computed(e.Member, ComputedMember, "computed member")
	case *jsast.CallExpression:
		j.expr(e.Callee)
		j.exprs(e.ArgumentList)
		j.callChecks(e.Callee, e.ArgumentList)
	case *jsast.NewExpression:
		j.expr(e.Callee)
		j.exprs(e.ArgumentList)
		j.callChecks(e.Callee, e.ArgumentList)
	case *jsast.AssignExpression:
		j.target(e.Left)
		j.expr(e.Right)
		j.lengthAssign(e)
	case *jsast.BinaryExpression:
		j.expr(e.Left)
		j.expr(e.Right)
	case *jsast.ConditionalExpression:
		j.expr(e.Test)
		j.expr(e.Consequent)
		j.expr(e.Alternate)
	case *jsast.SequenceExpression:
		j.exprs(e.Sequence)
	case *jsast.UnaryExpression:
		j.expr(e.Operand)
	case *jsast.AwaitExpression:
		j.expr(e.Argument)
	case *jsast.YieldExpression:
		j.expr(e.Argument)
	case *jsast.SpreadElement:
		j.expr(e.Expression)
	case *jsast.OptionalChain:
		j.expr(e.Expression)
	case *jsast.Optional:
		j.expr(e.Expression)
	case *jsast.ArrayLiteral:
		j.exprs(e.Value)
	case *jsast.ObjectLiteral:
		j.object(e)
	case *jsast.TemplateLiteral:
		j.expr(e.Tag)
		j.exprs(e.Expressions)
	case *jsast.RegExpLiteral:
		j.regex(e.Idx, e.Pattern)
	case *jsast.FunctionLiteral:
		j.function(e, fnExpr)
	case *jsast.ArrowFunctionLiteral:
		j.arrow(e)
	case *jsast.ClassLiteral:
		j.class(e)
	case *jsast.ObjectPattern, *jsast.ArrayPattern, *jsast.Binding:
		j.target(e)
	}
}

func (j *jsChecker) exprs(list []jsast.Expression) {
	for _, e := range list {
		j.expr(e)
	}
}

func (j *jsChecker) object(o *jsast.ObjectLiteral) {
	for _, p := range o.Value {
		switch p := p.(type) {
		case *jsast.PropertyShort: // {x} reads the variable x
			j.ref(&p.Name)
			j.expr(p.Initializer)
		case *jsast.PropertyKeyed:
			if p.Computed {
				j.expr(p.Key) // a computed key defines data; only its expression is checked
			} else if name, ok := keyName(p.Key); ok && name == "__proto__" && p.Kind == jsast.PropertyKindValue {
				j.report(p.Key.Idx0(), Prototype, "__proto__ key in an object literal sets the prototype")
			}
			if fn, ok := p.Value.(*jsast.FunctionLiteral); ok && p.Kind != jsast.PropertyKindValue {
				j.function(fn, fnMethod) // a method, getter or setter binds no name
				continue
			}
			j.expr(p.Value)
		case *jsast.SpreadElement:
			j.expr(p.Expression)
		}
	}
}

// How a function literal occurs: a named function expression binds its name inside itself; a
// declaration's name is bound in the enclosing scope; a method binds none.
const (
	fnExpr = iota
	fnDecl
	fnMethod
)

func (j *jsChecker) function(f *jsast.FunctionLiteral, kind int) {
	if f == nil {
		return
	}
	if f.Name != nil && kind == fnExpr {
		j.push().declare(f.Name, true)
		defer j.pop()
		j.bind(f.Name)
	}
	j.fn++
	var body []jsast.Statement
	if f.Body != nil {
		body = f.Body.List
	}
	j.functionBody(f.ParameterList, body)
	j.fn--
}

// functionBody checks parameters in a scope of their own, then the body in a scope with its var
// and top-level lexical declarations.
func (j *jsChecker) functionBody(p *jsast.ParameterList, body []jsast.Statement) {
	j.paramScope(p)
	bs := j.push()
	bs.declareVars(body, true)
	bs.declareLexical(body)
	j.stmts(body)
	j.pop()
	j.pop()
}

// paramScope pushes the scope of a parameter list, checks the parameters in it and leaves it
// pushed.
func (j *jsChecker) paramScope(p *jsast.ParameterList) {
	ps := j.push()
	if p == nil {
		return
	}
	ps.declareList(p.List, true)
	boundNames(p.Rest, func(id *jsast.Identifier) { ps.declare(id, true) })
	j.bindings(p.List)
	j.pattern(p.Rest)
}

func (j *jsChecker) arrow(f *jsast.ArrowFunctionLiteral) {
	switch b := f.Body.(type) {
	case *jsast.BlockStatement:
		j.functionBody(f.ParameterList, b.List)
	case *jsast.ExpressionBody:
		j.paramScope(f.ParameterList)
		j.expr(b.Expression)
		j.pop()
	default:
		j.paramScope(f.ParameterList)
		j.pop()
	}
}

func (j *jsChecker) class(c *jsast.ClassLiteral) {
	if c == nil {
		return
	}
	cs := j.push()
	defer j.pop()
	if c.Name != nil {
		cs.declare(c.Name, true)
		j.bind(c.Name)
	}
	j.expr(c.SuperClass)
	// Computed keys and the superclass run in the enclosing function (where this may be the
	// global object); initializers, methods and static blocks run with this bound to the class
	// or instance.
	for _, el := range c.Body {
		switch el := el.(type) {
		case *jsast.FieldDefinition:
			j.classKey(el.Key, el.Computed)
			j.inFunction(func() { j.expr(el.Initializer) })
		case *jsast.MethodDefinition:
			j.classKey(el.Key, el.Computed)
			j.function(el.Body, fnMethod)
		case *jsast.ClassStaticBlock:
			if el.Block != nil {
				j.inFunction(func() { j.functionBody(nil, el.Block.List) })
			}
		}
	}
}

func (j *jsChecker) inFunction(f func()) {
	j.fn++
	f()
	j.fn--
}

// classKey checks a class member's name: `_`-prefixed members are rejected; a method named
// constructor is the class constructor and is fine.
func (j *jsChecker) classKey(key jsast.Expression, computed bool) {
	if computed {
		j.expr(key)
		j.computed(key, ComputedMember, "computed class member")
		return
	}
	if id, ok := key.(*jsast.PrivateIdentifier); ok {
		j.underscore(&id.Identifier, "private member #")
		return
	}
	if name, ok := keyName(key); ok && isUnderscored(name) {
		j.report(key.Idx0(), Underscore, fmt.Sprintf("class member %s", name))
	}
}

// bindings checks declarations: their names are bindings, their initializers expressions.
func (j *jsChecker) bindings(list []*jsast.Binding) {
	for _, b := range list {
		j.pattern(b)
	}
}

// pattern checks a binding pattern: the names it declares (bind), the keys it reads and its
// default values.
func (j *jsChecker) pattern(e jsast.Expression) {
	switch e := e.(type) {
	case nil:
	case *jsast.Identifier:
		j.bind(e)
	case *jsast.Binding:
		j.pattern(e.Target)
		j.expr(e.Initializer)
	case *jsast.ObjectPattern:
		for _, p := range e.Properties {
			switch p := p.(type) {
			case *jsast.PropertyShort: // {constructor} = f reads f.constructor
				j.patternKey(p.Name.Idx, string(p.Name.Name), j.escapedAt(p.Name.Idx))
				j.bind(&p.Name)
				j.expr(p.Initializer)
			case *jsast.PropertyKeyed:
				j.patternKeyed(p)
				j.pattern(p.Value)
			case *jsast.SpreadElement:
				j.pattern(p.Expression)
			}
		}
		j.pattern(e.Rest)
	case *jsast.ArrayPattern:
		for _, el := range e.Elements {
			j.pattern(el)
		}
		j.pattern(e.Rest)
	case *jsast.AssignExpression: // a default value: {a = 1} or [a = 1]
		j.pattern(e.Left)
		j.expr(e.Right)
	default:
		j.expr(e)
	}
}

// patternKeyed checks the key a keyed pattern property reads.
func (j *jsChecker) patternKeyed(p *jsast.PropertyKeyed) {
	if p.Computed {
		j.expr(p.Key)
		j.computed(p.Key, PatternDenied, "destructured computed key")
	} else if name, ok := keyName(p.Key); ok {
		j.patternKey(p.Key.Idx0(), name, j.keyEscaped(p.Key))
	}
}

// forIn checks a for-in or for-of loop: a let or const head is scoped to the loop, source
// included (its names are in their temporal dead zone there).
func (j *jsChecker) forIn(into jsast.ForInto, source jsast.Expression, body jsast.Statement) {
	sc := j.push()
	if d, ok := into.(*jsast.ForDeclaration); ok {
		boundNames(d.Target, func(id *jsast.Identifier) { sc.declare(id, true) })
	}
	j.forInto(into)
	j.expr(source)
	j.stmt(body)
	j.pop()
}

func (j *jsChecker) forInit(init jsast.ForLoopInitializer) {
	switch i := init.(type) {
	case *jsast.ForLoopInitializerExpression:
		j.expr(i.Expression)
	case *jsast.ForLoopInitializerVarDeclList:
		j.bindings(i.List)
	case *jsast.ForLoopInitializerLexicalDecl:
		j.bindings(i.LexicalDeclaration.List)
	}
}

func (j *jsChecker) forInto(into jsast.ForInto) {
	switch i := into.(type) {
	case *jsast.ForIntoVar:
		j.pattern(i.Binding)
	case *jsast.ForDeclaration:
		j.pattern(i.Target)
	case *jsast.ForIntoExpression:
		j.target(i.Expression)
	}
}

// target checks the left side of an assignment, including destructuring patterns: its names
// are references.
func (j *jsChecker) target(e jsast.Expression) {
	switch e := e.(type) {
	case *jsast.Binding:
		j.target(e.Target)
		j.expr(e.Initializer)
	case *jsast.ObjectPattern:
		for _, p := range e.Properties {
			j.patternProperty(p)
		}
		j.target(e.Rest)
	case *jsast.ArrayPattern:
		for _, el := range e.Elements {
			j.target(el)
		}
		j.target(e.Rest)
	case *jsast.AssignExpression: // a default value: {a = 1} or [a = 1]
		j.target(e.Left)
		j.expr(e.Right)
	default:
		j.expr(e)
	}
}

func (j *jsChecker) patternProperty(p jsast.Property) {
	switch p := p.(type) {
	case *jsast.PropertyShort: // {constructor} = f reads f.constructor
		j.patternKey(p.Name.Idx, string(p.Name.Name), j.escapedAt(p.Name.Idx))
		j.ref(&p.Name)
		j.expr(p.Initializer)
	case *jsast.PropertyKeyed:
		j.patternKeyed(p)
		j.target(p.Value)
	case *jsast.SpreadElement:
		j.target(p.Expression)
	}
}
