package js

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
)

// print writes its arguments, rendered by the printer and joined by one space, and a newline.
func (e *Engine) print(call goja.FunctionCall) goja.Value {
	if e.cell == nil {
		return goja.Undefined()
	}
	parts := make([]string, len(call.Arguments))
	for i, v := range call.Arguments {
		if goja.IsString(v) {
			parts[i] = v.String() // as it is, however long: the output cap counts it all
			continue
		}
		p := printer{vm: e.vm, handle: e.handle, budget: printBudget}
		p.top(v)
		parts[i] = p.String()
	}
	e.cell.out.write(strings.Join(parts, " ") + "\n")
	return goja.Undefined()
}

// final records FINAL(value): a string as it is, anything else serialised to JSON in Go.
func (e *Engine) final(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) != 1 {
		panic(e.jsError("TypeError", fmt.Sprintf("FINAL(value) takes 1 argument, got %d", len(call.Arguments)), nil))
	}
	e.record("FINAL", call.Arguments[0])
	return goja.Undefined()
}

// finalVar records FINAL_VAR(name): the value of the named top-level variable.
func (e *Engine) finalVar(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) != 1 {
		panic(e.jsError("TypeError", fmt.Sprintf("FINAL_VAR(name) takes 1 argument, got %d", len(call.Arguments)), nil))
	}
	name, ok := e.stringArg(call.Arguments[0], false)
	if !ok {
		panic(e.jsError("TypeError", "FINAL_VAR(name): name must be a string, the name of a top-level variable", nil))
	}
	vars := e.Vars()
	found := false
	for _, v := range vars {
		found = found || v == name
	}
	if !found {
		msg := fmt.Sprintf("FINAL_VAR: there is no top-level variable named %q (variables: %s); declare it at the top level of a cell, or call FINAL(value)",
			name, strings.Join(vars, ", "))
		panic(e.jsError("ReferenceError", msg, nil))
	}
	e.record("FINAL_VAR", e.vm.GlobalObject().Get(name))
	return goja.Undefined()
}

// record serialises v and stores it as the cell's answer; the last call of the cell wins.
func (e *Engine) record(fn string, v goja.Value) {
	if e.cell == nil {
		panic(e.jsError("Error", fn+" can only be called while a cell runs", nil))
	}
	if goja.IsString(v) { // its size is checked with every answer's (engine.CheckFinal)
		e.cell.final = &engine.Final{Value: v.String()}
		return
	}
	if omitted(v) {
		panic(e.jsError("TypeError", fmt.Sprintf("%s: the answer cannot be %s; pass a string, number, array or object", fn, typeName(v)), nil))
	}
	// The serialisation stops past 4 bytes a character of the cap (plus one character): a value
	// cut there is over the cap whatever its characters are, and its memory stays bounded.
	budget := 4 * (e.cfg.Limits.FinalChars + 1)
	p := printer{vm: e.vm, budget: budget, final: true}
	p.value(v)
	switch {
	case p.err != "":
		panic(e.jsError("TypeError", fmt.Sprintf("%s: the answer cannot be serialised to JSON: %s", fn, p.err), nil))
	case p.cut:
		err := engine.FinalTooLong(e.cfg.Limits, int64(e.cfg.Limits.FinalChars), true)
		panic(e.jsError("RangeError", err.Error(), err))
	}
	e.cell.final = &engine.Final{Value: p.String()}
}

// output is a cell's captured output, capped in characters (code points).
type output struct {
	cap   int
	b     strings.Builder
	kept  int // characters kept
	total int // characters written
}

func (o *output) write(s string) {
	n := utf8.RuneCountInString(s)
	o.total += n
	switch room := o.cap - o.kept; {
	case room <= 0:
	case n <= room:
		o.b.WriteString(s)
		o.kept += n
	default:
		i := 0
		for k := 0; k < room; k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		o.b.WriteString(s[:i])
		o.kept = o.cap
	}
}

// result returns the kept output and, when it was capped, a marker stating the true length.
func (o *output) result() (string, bool) {
	if o.total <= o.cap {
		return o.b.String(), false
	}
	return engine.Truncated(o.b.String(), o.total, o.cap), true
}
