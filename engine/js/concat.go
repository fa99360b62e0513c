package js

import (
	"reflect"
	"unicode/utf8"
	"unsafe"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// goja concatenates two strings by copying both, so a string built up piece by piece,
//
//	let text = ""; for (let off = 0; off < n; off += 16000) text += peek(context, off, 16000)
//
// costs the square of its length: 3.5 MB read this way copies some 400 MB, and 30 MB copies
// 28 GB. Models write that loop in most cells that read a context in pieces. The rewrite below
// turns an assignment that appends something that looks like text,
//
//	X += E        X = X + E        (X an identifier; E a call of peek, text, String,
//	                                JSON.stringify or a string method, a string or template
//	                                literal, or a + of which one side is one of these)
//
// into X = __rlm_cat(X, E). The operands are evaluated as before (X, then E); __rlm_cat adds
// them with +, unless both are strings long enough to matter, whose characters are then
// appended to a buffer that grows by doubling and that X's value already ends (catBuffers).
// Whatever X and E hold, the result is what + gives. The cell that uses the name __rlm_cat is
// left alone.

// catName is the global the rewritten assignments call.
const catName = "__rlm_cat"

// catMin is the length below which goja's own concatenation is cheaper than a buffer.
const catMin = 1 << 10

// installCat defines __rlm_cat: a JS function that adds its operands as + does, and hands two
// strings to the engine's catBuffers.
func (e *Engine) installCat() error {
	cb := &catBuffers{vm: e.vm}
	e.cat = cb
	native := e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		return cb.cat(call.Argument(0).(goja.String), call.Argument(1).(goja.String))
	})
	cat, err := e.wrap(`(native) => (a, b) => typeof a === "string" && typeof b === "string" ? native(a, b) : a + b`, native)
	if err != nil {
		return err
	}
	return e.vm.Set(catName, cat)
}

// catBuffers are the buffers __rlm_cat appends to: a few, so that a loop that builds two or
// three strings at once (csv += …; log += …) grows each in its own; the least recently used
// one is reused for a new string.
type catBuffers struct {
	vm    *goja.Runtime
	slots [catSlots]catBuffer
	clock uint64
}

// catSlots is how many strings __rlm_cat grows at once.
const catSlots = 4

// catBuffer holds the characters of a string __rlm_cat built, in UTF-8, with room to grow.
// Every string it hands out is a prefix of buf that ends at len(buf) when it is made; buf is
// only ever written past its length, so no string handed out ever changes. A string whose bytes
// start at buf's first byte and run to its length is the last one handed out, and appending to
// it appends to buf. While buf holds only ASCII, strings are cut from base, one ASCII string over
// buf's whole capacity, so that goja never scans them again.
type catBuffer struct {
	buf   []byte
	ascii bool        // buf holds only ASCII
	base  goja.String // an ASCII string over buf[:cap(buf)], while ascii
	used  uint64      // catBuffers.clock when last appended to
}

// cat returns a + b for two strings. It never asks a for its length or characters: goja would
// scan a string imported from Go to answer, and a is the long one.
func (cs *catBuffers) cat(a, b goja.String) goja.Value {
	bs, bASCII, ok := exactUTF8(b)
	if !ok {
		return a.Concat(b)
	}
	c := cs.ending(a)
	if c == nil {
		as, aASCII, ok := exactUTF8(a)
		if !ok || len(as)+len(bs) < catMin {
			return a.Concat(b)
		}
		c = cs.oldest()
		c.reset(cs.vm, as, len(as)+len(bs), aASCII)
	}
	cs.clock++
	c.used = cs.clock
	if cap(c.buf)-len(c.buf) < len(bs) {
		c.reset(cs.vm, c.string(), len(c.buf)+len(bs), c.ascii)
	}
	c.buf = append(c.buf, bs...)
	if c.ascii && !bASCII {
		c.ascii, c.base = false, nil
	}
	if c.ascii {
		return c.base.Substring(0, len(c.buf))
	}
	return cs.vm.ToValue(c.string())
}

// ending is the buffer whose last string s is, or nil.
func (cs *catBuffers) ending(s goja.String) *catBuffer {
	v, ok := s.Export().(string)
	if !ok || len(v) == 0 {
		return nil
	}
	for i := range cs.slots {
		c := &cs.slots[i]
		if len(v) == len(c.buf) && unsafe.StringData(v) == unsafe.SliceData(c.buf) {
			return c
		}
	}
	return nil
}

// oldest is the buffer appended to least recently (an unused one first).
func (cs *catBuffers) oldest() *catBuffer {
	o := &cs.slots[0]
	for i := range cs.slots {
		if cs.slots[i].used < o.used {
			o = &cs.slots[i]
		}
	}
	return o
}

// release lets go of the buffers (between cells: the strings handed out keep what they use).
func (cs *catBuffers) release() { cs.slots = [catSlots]catBuffer{} }

// string is buf as a string, sharing its bytes.
func (c *catBuffer) string() string { return unsafe.String(unsafe.SliceData(c.buf), len(c.buf)) }

// reset makes c a new buffer that holds s, with room for twice need bytes.
func (c *catBuffer) reset(vm *goja.Runtime, s string, need int, ascii bool) {
	buf := make([]byte, len(s), 2*need)
	copy(buf, s)
	c.buf, c.ascii, c.base = buf, ascii, nil
	if ascii {
		// The bytes past len(s) are zeros, ASCII: the scan finds the whole capacity ASCII and
		// the substring is an ASCII string sharing buf's bytes.
		whole := vm.ToValue(unsafe.String(unsafe.SliceData(buf), cap(buf))).(goja.String)
		c.base = whole.Substring(0, cap(buf))
	}
}

// exactUTF8 returns s's characters in UTF-8, and whether they are all ASCII, when goja holds s
// as text whose UTF-8 form gives back exactly its UTF-16 characters: an ASCII string, or a
// string imported from Go that is valid UTF-8. Strings goja holds in UTF-16 are not read.
func exactUTF8(s goja.String) (string, bool, bool) {
	switch reflect.TypeOf(s).Kind() {
	case reflect.String: // goja's ASCII strings
		v, ok := s.Export().(string)
		return v, true, ok
	case reflect.Pointer: // strings imported from Go, held in UTF-8
		v, ok := s.Export().(string)
		if !ok {
			return "", false, false
		}
		ascii, valid := scanUTF8(v)
		return v, ascii, valid
	}
	return "", false, false
}

// scanUTF8 reports whether s is all ASCII, and whether it is valid UTF-8.
func scanUTF8(s string) (ascii, valid bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false, utf8.ValidString(s[i:])
		}
	}
	return true, true
}

// rewriteConcat rewrites, in place, the assignments below body that append text (see above).
func rewriteConcat(body []ast.Statement) {
	each(reflect.ValueOf(body), func(x reflect.Value) bool {
		if x.Type() == assignType && x.CanAddr() {
			catAssign(x.Addr().Interface().(*ast.AssignExpression))
		}
		return true
	})
}

var assignType = reflect.TypeOf(ast.AssignExpression{})

// catAssign rewrites one assignment X += E or X = X + E, when E looks like text.
func catAssign(a *ast.AssignExpression) {
	x, ok := a.Left.(*ast.Identifier)
	if !ok {
		return
	}
	e := a.Right
	switch a.Operator {
	case token.PLUS:
	case token.ASSIGN:
		b, ok := a.Right.(*ast.BinaryExpression)
		if !ok || b.Operator != token.PLUS {
			return
		}
		if l, ok := b.Left.(*ast.Identifier); !ok || l.Name != x.Name {
			return
		}
		e = b.Right
	default:
		return
	}
	if !textual(e) {
		return
	}
	at := x.Idx
	a.Operator = token.ASSIGN
	a.Right = &ast.CallExpression{Callee: ident(catName, at), LeftParenthesis: at,
		ArgumentList: []ast.Expression{ident(x.Name, at), e}, RightParenthesis: at}
}

// textMethods are methods of String.prototype (and join) that return a string.
var textMethods = map[unistring.String]bool{
	"join": true, "slice": true, "substring": true, "substr": true, "trim": true, "trimStart": true,
	"trimEnd": true, "toUpperCase": true, "toLowerCase": true, "padStart": true, "padEnd": true,
	"repeat": true, "replace": true, "replaceAll": true, "charAt": true, "toFixed": true,
	"toString": true, "normalize": true, "at": true,
}

// textFuncs are global functions that return a string.
var textFuncs = map[unistring.String]bool{"peek": true, "text": true, "String": true, "llm_query": true}

// textual reports whether e looks like text: the rewrite applies to it. It only steers where
// __rlm_cat is called; what the assignment computes does not depend on it.
func textual(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.StringLiteral, *ast.TemplateLiteral:
		return true
	case *ast.BinaryExpression:
		return e.Operator == token.PLUS && (textual(e.Left) || textual(e.Right))
	case *ast.CallExpression:
		switch f := e.Callee.(type) {
		case *ast.Identifier:
			return textFuncs[f.Name]
		case *ast.DotExpression:
			if o, ok := f.Left.(*ast.Identifier); ok && o.Name == "JSON" && f.Identifier.Name == "stringify" {
				return true
			}
			return textMethods[f.Identifier.Name]
		}
	}
	return false
}
