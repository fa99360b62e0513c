package js

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// goja's JSON.parse reads its text through encoding/json's token stream, an interface value and
// often an error allocated per token: a line of JSON Lines took about 6 µs, and parsing was half
// of a cell that reads events. JSON.parse is replaced, before the intrinsics are frozen, by a
// function that reads the common case itself (no reviver, text goja holds in UTF-8) and hands
// everything else to goja's own parse: a reviver, text held in UTF-16, a \u escape of a
// surrogate (goja turns a lone one into U+FFFD), nesting deeper than maxJSONDepth, and every
// syntax error, whose message is therefore goja's. Objects get their members as goja's parse
// gives them (own, writable, enumerable, configurable data properties, in order, a repeated key
// keeping its first place and its last value), numbers the same values.

// maxJSONDepth is the nesting past which the fast parse hands over to goja's.
const maxJSONDepth = 1000

// installJSONParse replaces JSON.parse (see above).
func (e *Engine) installJSONParse() error {
	jsonObj, ok := e.vm.Get("JSON").(*goja.Object)
	if !ok {
		return fmt.Errorf("no JSON object")
	}
	orig, ok := goja.AssertFunction(jsonObj.Get("parse"))
	if !ok {
		return fmt.Errorf("JSON.parse is not a function")
	}
	slow := jsonObj.Get("parse")
	fast := e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		s := call.Argument(0).ToString()
		if str, ok := s.(goja.String); ok {
			if text, _, ok := exactUTF8(str); ok {
				p := jsonParser{vm: e.vm, s: text}
				if v, ok := p.parse(); ok {
					return v
				}
			}
		}
		v, err := orig(goja.Undefined(), s)
		if err != nil {
			panic(err)
		}
		return v
	})
	parse, err := e.wrap(`(slow, fast) => function parse(text, reviver) { return reviver === undefined ? fast(text) : slow(text, reviver) }`, slow, fast)
	if err != nil {
		return err
	}
	return jsonObj.DefineDataProperty("parse", parse, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// jsonParser reads one JSON text held in UTF-8. Any text it does not read to the end as JSON,
// it gives up on (ok false), and goja's parse reads it again.
type jsonParser struct {
	vm    *goja.Runtime
	s     string
	i     int
	depth int
}

func (p *jsonParser) parse() (goja.Value, bool) {
	v, ok := p.value()
	p.space()
	return v, ok && p.i == len(p.s)
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (goja.Value, bool) {
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return p.vm.ToValue(s), true
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	switch rest := p.s[p.i:]; {
	case strings.HasPrefix(rest, "true"):
		p.i += 4
		return p.vm.ToValue(true), true
	case strings.HasPrefix(rest, "false"):
		p.i += 5
		return p.vm.ToValue(false), true
	case strings.HasPrefix(rest, "null"):
		p.i += 4
		return goja.Null(), true
	}
	return nil, false
}

func (p *jsonParser) object() (goja.Value, bool) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	p.i++ // {
	o := p.vm.NewObject()
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return o, true
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		if p.space(); p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value()
		if !ok || o.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE) != nil {
			return nil, false
		}
		if more, ok := p.next('}'); !more {
			return o, ok
		}
	}
}

// next reads what follows a member: a comma (more) or the closing byte (ok, no more).
func (p *jsonParser) next(close byte) (more, ok bool) {
	p.space()
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return true, true
		case close:
			p.i++
			return false, true
		}
	}
	return false, false
}

func (p *jsonParser) array() (goja.Value, bool) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	p.i++ // [
	var vals []any
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return p.vm.NewArray(), true
	}
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
		if more, ok := p.next(']'); !more {
			if !ok {
				return nil, false
			}
			return p.vm.NewArray(vals...), true
		}
	}
}

// str reads a string literal; the text is valid UTF-8, so its bytes are the characters.
func (p *jsonParser) str() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// escaped reads the rest of a string literal that has escapes, from start.
func (p *jsonParser) escaped(start int) (string, bool) {
	b := []byte(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return "", false
		}
		esc := p.s[p.i+1]
		p.i += 2
		switch esc {
		case '"', '\\', '/':
			b = append(b, esc)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if p.i+4 > len(p.s) {
				return "", false
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
			if err != nil || r >= 0xD800 && r <= 0xDFFF {
				return "", false // a surrogate: goja's parse decides
			}
			p.i += 4
			b = utf8.AppendRune(b, rune(r))
		default:
			return "", false
		}
	}
	return "", false
}

// number reads a number as JSON writes it, and gives the value goja's parse gives.
func (p *jsonParser) number() (goja.Value, bool) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	integer := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, false
		}
		integer = false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
		integer = false
	}
	text := p.s[start:p.i]
	if integer && len(text) <= 15 && text != "-0" {
		n, err := strconv.ParseInt(text, 10, 64)
		return p.vm.ToValue(n), err == nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, false // out of range: goja's parse decides
	}
	return p.vm.ToValue(f), true
}

// digits reads one or more decimal digits.
func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
