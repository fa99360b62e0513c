package validator

import (
	jsast "github.com/dop251/goja/ast"
)

// JS scoping for the denied globals.
//
// A name such as self, frames, module or process (rules global-object and host-access) denotes a
// host object only where it is free. A declaration of the cell's own shadows it, so the checker
// resolves every identifier against the scopes of standard JS (ECMAScript 2022, strict mode):
//   - the script: the earlier cells' top-level names (JSDeclared), and the top-level let, const,
//     class and function declarations. A var at the script level, wherever it is written, is a
//     property of the global object whose old value a read before its initializer sees: it
//     shadows nothing, and declaring it is reported;
//   - a function: its parameters, in a scope of their own (default values see the parameters,
//     never the body's declarations); then its body's var declarations, hoisted from every
//     nested block, and the body's top-level lexical and function declarations. A named
//     function expression binds its name in a scope between the two; a method binds no name;
//   - a block, a switch's case block, a for statement with let or const, a for-in/of head with
//     let or const (its source included), a catch clause: their lexical declarations. A function
//     declaration in a block is scoped to the block (strict mode; sloppy mode would also bind a
//     var, which is a binding more, never less);
//   - a class: its name, for the heritage and the body.
//
// Every simplification errs towards fewer shadows: a binding the checker misses leaves a use
// rejected; it never accepts a use that reaches the global. The names of the other rules (eval,
// Function, Reflect, Proxy, ...) are rejected whether declared or not.

// jsScope is one scope: each name maps to true for a binding of the cell's own, false for a
// property of the global object (a script-level var).
type jsScope struct {
	up    *jsScope
	names map[string]bool
}

// declare binds an identifier (nil: nothing).
func (s *jsScope) declare(id *jsast.Identifier, own bool) {
	if id != nil {
		s.declareName(string(id.Name), own)
	}
}

// declareName binds name; a name that is a global property anywhere in the scope stays one.
func (s *jsScope) declareName(name string, own bool) {
	if old, ok := s.names[name]; ok && !old {
		return
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = own
}

func (j *jsChecker) push() *jsScope {
	j.scope = &jsScope{up: j.scope}
	return j.scope
}

func (j *jsChecker) pop() { j.scope = j.scope.up }

// shadowed reports whether name resolves to a binding of the cell's own.
func (j *jsChecker) shadowed(name string) bool {
	for s := j.scope; s != nil; s = s.up {
		if own, ok := s.names[name]; ok {
			return own
		}
	}
	return false
}

// shadowable reports whether a declaration may shadow a denied global of this rule.
func shadowable(r Rule) bool { return r == GlobalObject || r == HostAccess }

// boundNames calls f for every identifier a binding pattern binds.
func boundNames(t jsast.Expression, f func(*jsast.Identifier)) {
	switch t := t.(type) {
	case *jsast.Identifier:
		f(t)
	case *jsast.Binding:
		boundNames(t.Target, f)
	case *jsast.ArrayPattern:
		for _, el := range t.Elements {
			boundNames(el, f)
		}
		boundNames(t.Rest, f)
	case *jsast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *jsast.PropertyShort:
				f(&p.Name)
			case *jsast.PropertyKeyed:
				boundNames(p.Value, f)
			case *jsast.SpreadElement:
				boundNames(p.Expression, f)
			}
		}
		boundNames(t.Rest, f)
	case *jsast.AssignExpression:
		boundNames(t.Left, f)
	}
}

func (s *jsScope) declareList(list []*jsast.Binding, own bool) {
	for _, b := range list {
		boundNames(b, func(id *jsast.Identifier) { s.declare(id, own) })
	}
}

// declareVars binds the var declarations of a function body or of the script: those in the
// statements and in every block nested in them, not in nested functions or classes.
func (s *jsScope) declareVars(list []jsast.Statement, own bool) {
	for _, st := range list {
		s.declareVarsIn(st, own)
	}
}

func (s *jsScope) declareVarsIn(st jsast.Statement, own bool) {
	switch st := st.(type) {
	case *jsast.VariableStatement:
		s.declareList(st.List, own)
	case *jsast.BlockStatement:
		s.declareVars(st.List, own)
	case *jsast.IfStatement:
		s.declareVarsIn(st.Consequent, own)
		s.declareVarsIn(st.Alternate, own)
	case *jsast.ForStatement:
		if v, ok := st.Initializer.(*jsast.ForLoopInitializerVarDeclList); ok {
			s.declareList(v.List, own)
		}
		s.declareVarsIn(st.Body, own)
	case *jsast.ForInStatement:
		s.declareForVar(st.Into, own)
		s.declareVarsIn(st.Body, own)
	case *jsast.ForOfStatement:
		s.declareForVar(st.Into, own)
		s.declareVarsIn(st.Body, own)
	case *jsast.WhileStatement:
		s.declareVarsIn(st.Body, own)
	case *jsast.DoWhileStatement:
		s.declareVarsIn(st.Body, own)
	case *jsast.LabelledStatement:
		s.declareVarsIn(st.Statement, own)
	case *jsast.WithStatement:
		s.declareVarsIn(st.Body, own)
	case *jsast.TryStatement:
		s.declareVarsIn(st.Body, own)
		if st.Catch != nil {
			s.declareVarsIn(st.Catch.Body, own)
		}
		if st.Finally != nil {
			s.declareVarsIn(st.Finally, own)
		}
	case *jsast.SwitchStatement:
		for _, c := range st.Body {
			s.declareVars(c.Consequent, own)
		}
	}
}

func (s *jsScope) declareForVar(into jsast.ForInto, own bool) {
	if v, ok := into.(*jsast.ForIntoVar); ok && v.Binding != nil {
		s.declareList([]*jsast.Binding{v.Binding}, own)
	}
}

// declareLexical binds the let, const, class and function declarations that are statements of
// list itself (through labels).
func (s *jsScope) declareLexical(list []jsast.Statement) {
	for _, st := range list {
		for {
			l, ok := st.(*jsast.LabelledStatement)
			if !ok {
				break
			}
			st = l.Statement
		}
		switch st := st.(type) {
		case *jsast.LexicalDeclaration:
			s.declareList(st.List, true)
		case *jsast.ClassDeclaration:
			if st.Class != nil {
				s.declare(st.Class.Name, true)
			}
		case *jsast.FunctionDeclaration:
			if st.Function != nil {
				s.declare(st.Function.Name, true)
			}
		}
	}
}
