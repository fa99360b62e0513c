package validator

import (
	"fmt"
	"strings"

	jsast "github.com/dop251/goja/ast"
	jsfile "github.com/dop251/goja/file"
)

func (j *jsChecker) report(idx jsfile.Idx, rule Rule, detail string) {
	j.c.report(int(idx)-1, rule, detail)
}

// escapedAt reports whether the identifier whose text starts at idx is spelled with escapes.
func (j *jsChecker) escapedAt(idx jsfile.Idx) bool {
	src := j.c.src
	for i := int(idx) - 1; i >= 0 && i < len(src); i++ {
		c := src[i]
		if c == '\\' {
			return true
		}
		if !isNameByte(c) {
			return false
		}
	}
	return false
}

// isNameByte reports an ASCII byte that continues a JS name as written: a letter, a digit, _ or
// $, or the backslash of an escape.
func isNameByte(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// keyEscaped reports whether a non-computed key (identifier or string) is spelled with escapes.
func (j *jsChecker) keyEscaped(key jsast.Expression) bool {
	switch k := key.(type) {
	case *jsast.StringLiteral:
		return strings.Contains(k.Literal, `\`)
	case *jsast.Identifier:
		return j.escapedAt(k.Idx)
	}
	return false
}

// keyName returns the name a non-computed property key stands for.
func keyName(key jsast.Expression) (string, bool) {
	switch k := key.(type) {
	case *jsast.StringLiteral:
		return string(k.Value), true
	case *jsast.Identifier:
		return string(k.Name), true
	}
	return "", false
}

func isUnderscored(name string) bool { return len(name) > 1 && name[0] == '_' }

// ref checks an identifier that is referenced (read, called or assigned): a denied global is
// rejected unless a declaration of the cell's own shadows it (jsscope.go).
func (j *jsChecker) ref(id *jsast.Identifier) {
	name := string(id.Name)
	rule, denied := j.c.pol.jsGlobals()[name]
	switch {
	case (denied || isUnderscored(name)) && j.escapedAt(id.Idx):
		j.report(id.Idx, EscapedName, fmt.Sprintf("identifier %s spelled with escapes", name))
	case denied && shadowable(rule) && !j.shadowed(name):
		j.report(id.Idx, rule, freeUse(name, rule))
	case denied && !shadowable(rule):
		j.report(id.Idx, rule, fmt.Sprintf("use of %s", name))
	case isUnderscored(name):
		j.report(id.Idx, Underscore, fmt.Sprintf("identifier %s", name))
	}
}

// bind checks an identifier that a declaration binds. A denied global may be declared where the
// declaration shadows it; a var at the script level does not (it is the global object's
// property), and the names of the other rules may never be declared.
func (j *jsChecker) bind(id *jsast.Identifier) {
	name := string(id.Name)
	rule, denied := j.c.pol.jsGlobals()[name]
	switch {
	case (denied || isUnderscored(name)) && j.escapedAt(id.Idx):
		j.report(id.Idx, EscapedName, fmt.Sprintf("identifier %s spelled with escapes", name))
	case denied && !shadowable(rule):
		j.report(id.Idx, rule, fmt.Sprintf("use of %s", name))
	case denied && !j.shadowed(name):
		j.report(id.Idx, rule, fmt.Sprintf("a top-level var named %s is the global object's property, not a variable of its own (declare it with let or const)", name))
	case isUnderscored(name):
		j.report(id.Idx, Underscore, fmt.Sprintf("identifier %s", name))
	}
}

// freeUse is the finding for a free use of a shadowable name: what it names, and for a global
// object's name (self, frames, ...), that a declaration of one's own may take the name.
func freeUse(name string, r Rule) string {
	if r == GlobalObject {
		return fmt.Sprintf("use of %s, which this cell does not declare (free, it is the host's global object; to use the name for your own variable, declare it: const %s = ...)", name, name)
	}
	return fmt.Sprintf("use of %s, which this cell does not declare (free, it is the host's module system or process)", name)
}

func (j *jsChecker) label(id *jsast.Identifier) {
	if id != nil && isUnderscored(string(id.Name)) {
		j.report(id.Idx, Underscore, fmt.Sprintf("label %s", id.Name))
	}
}

func (j *jsChecker) underscore(id *jsast.Identifier, what string) {
	if isUnderscored(string(id.Name)) {
		j.report(id.Idx, Underscore, what+string(id.Name))
	}
}

// member checks a property name after a dot.
func (j *jsChecker) member(id *jsast.Identifier) {
	name := string(id.Name)
	rule, denied := j.c.pol.jsMembers()[name]
	switch {
	case (denied || isUnderscored(name)) && j.escapedAt(id.Idx):
		j.report(id.Idx, EscapedName, fmt.Sprintf("property .%s spelled with escapes", name))
	case denied:
		j.report(id.Idx, rule, fmt.Sprintf("access to .%s", name))
	case isUnderscored(name):
		j.report(id.Idx, Underscore, fmt.Sprintf("property .%s", name))
	}
}

// computed checks a computed key whose value is a constant (or one of a few constants).
func (j *jsChecker) computed(key jsast.Expression, rule Rule, what string) {
	names, escaped, ok := foldStrings(key, 0)
	if !ok {
		return
	}
	for _, name := range names {
		_, denied := j.c.pol.jsMembers()[name]
		switch {
		case name == tooMany:
			j.report(key.Idx0(), rule, fmt.Sprintf("%s has more than %d constant values", what, maxFold))
		case (denied || isUnderscored(name)) && escaped:
			j.report(key.Idx0(), EscapedName, fmt.Sprintf("%s %q spelled with escapes", what, name))
		case denied:
			j.report(key.Idx0(), rule, fmt.Sprintf("%s %q", what, name))
		case isUnderscored(name):
			j.report(key.Idx0(), Underscore, fmt.Sprintf("%s %q", what, name))
		default:
			continue
		}
		return
	}
}

// patternKey checks a key read by a destructuring pattern.
func (j *jsChecker) patternKey(idx jsfile.Idx, name string, escaped bool) {
	_, denied := j.c.pol.jsMembers()[name]
	switch {
	case (denied || isUnderscored(name)) && escaped:
		j.report(idx, EscapedName, fmt.Sprintf("destructured key %s spelled with escapes", name))
	case denied:
		j.report(idx, PatternDenied, fmt.Sprintf("destructuring reads .%s", name))
	case isUnderscored(name):
		j.report(idx, Underscore, fmt.Sprintf("destructured key %s", name))
	}
}

// maxFold bounds how many alternatives constant folding tracks.
const maxFold = 64

// foldStrings returns the string values a key expression can have when it is built only from
// literals: concatenation, templates, ?:, ||, &&, ??, the comma operator and one-element arrays
// (whose string form is their element's). escaped reports that a literal used an escape.
func foldStrings(e jsast.Expression, depth int) (vals []string, escaped, ok bool) {
	if depth > 64 {
		return nil, false, false
	}
	switch e := e.(type) {
	case *jsast.StringLiteral:
		return []string{string(e.Value)}, strings.Contains(e.Literal, `\`), true
	case *jsast.TemplateLiteral:
		return foldTemplate(e, depth)
	case *jsast.SequenceExpression:
		if len(e.Sequence) > 0 {
			return foldStrings(e.Sequence[len(e.Sequence)-1], depth+1)
		}
	case *jsast.ArrayLiteral:
		if len(e.Value) == 1 {
			return foldStrings(e.Value[0], depth+1)
		}
	case *jsast.ConditionalExpression:
		return foldUnion(e.Consequent, e.Alternate, depth)
	case *jsast.BinaryExpression:
		switch e.Operator.String() {
		case "+":
			return foldConcat(e.Left, e.Right, depth)
		case "||", "&&", "??":
			return foldUnion(e.Left, e.Right, depth)
		}
	}
	return nil, false, false
}

func foldUnion(a, b jsast.Expression, depth int) ([]string, bool, bool) {
	x, ex, okx := foldStrings(a, depth+1)
	y, ey, oky := foldStrings(b, depth+1)
	switch {
	case okx && oky:
		return capFold(append(x, y...)), ex || ey, true
	case okx:
		return x, ex, true
	case oky:
		return y, ey, true
	}
	return nil, false, false
}

func foldConcat(a, b jsast.Expression, depth int) ([]string, bool, bool) {
	x, ex, okx := foldStrings(a, depth+1)
	y, ey, oky := foldStrings(b, depth+1)
	if !okx || !oky {
		return nil, false, false
	}
	var out []string
	for _, l := range x {
		for _, r := range y {
			out = append(out, l+r)
		}
	}
	return capFold(out), ex || ey, true
}

func foldTemplate(t *jsast.TemplateLiteral, depth int) ([]string, bool, bool) {
	if t.Tag != nil {
		return nil, false, false
	}
	vals, escaped := []string{""}, false
	for i, el := range t.Elements {
		escaped = escaped || strings.Contains(el.Literal, `\`)
		for k := range vals {
			vals[k] += string(el.Parsed)
		}
		if i >= len(t.Expressions) {
			continue
		}
		sub, esc, ok := foldStrings(t.Expressions[i], depth+1)
		if !ok {
			return nil, false, false
		}
		escaped = escaped || esc
		var next []string
		for _, l := range vals {
			for _, r := range sub {
				next = append(next, l+r)
			}
		}
		vals = capFold(next)
	}
	return vals, escaped, true
}

// tooMany stands for a key with more constant alternatives than maxFold: it is rejected rather
// than partly checked.
const tooMany = "\x00too many alternatives"

func capFold(v []string) []string {
	if len(v) > maxFold {
		return []string{tooMany}
	}
	return v
}
