package js

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
)

// cellError classifies what RunProgram returned.
func (e *Engine) cellError(err error, unit *source.JSUnit) error {
	if err == nil {
		return nil
	}
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		ce := &fault.Error{Kind: fault.Timeout, Msg: fmt.Sprint(intr.Value()), Err: err}
		if k := fault.KindOf(intr.Unwrap()); k != "" {
			ce.Kind, ce.Err = k, intr.Unwrap()
		}
		ce.Pos = e.stackPos(intr.Stack(), unit)
		return ce
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &fault.Error{
			Kind: fault.Code,
			Msg:  fmt.Sprintf("RangeError: Maximum call stack size exceeded (more than %d nested calls); make the recursion shallower or use a loop", e.cfg.MaxCallStack),
			Pos:  e.stackPos(so.Stack(), unit),
			Err:  err,
		}
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		ce := &fault.Error{Kind: fault.Code, Msg: e.shadowHint("Uncaught "+e.describe(ex.Value()), unit), Pos: e.stackPos(ex.Stack(), unit), Err: err}
		if obj, ok := ex.Value().(*goja.Object); ok {
			if herr, ok := e.hostErrs[obj]; ok {
				if k := fault.KindOf(herr); k != "" {
					ce.Kind = k
				}
				ce.Err = herr
			}
		}
		return ce
	}
	if k := fault.KindOf(err); k != "" {
		return err
	}
	return &fault.Error{Kind: fault.Code, Msg: err.Error(), Err: err}
}

// shadowHint explains a TypeError in a cell that calls an API function which a top-level
// variable of the model's hides (goja words it "count is not a function" or "Value is not an
// object: 2", depending on the value).
func (e *Engine) shadowHint(msg string, unit *source.JSUnit) string {
	if !strings.HasPrefix(msg, "Uncaught TypeError") || unit == nil || unit.Program == nil || unit.Program.File == nil {
		return msg
	}
	src := unit.Program.File.Source()
	for _, name := range e.shadowed() {
		if regexp.MustCompile(`(^|[^\w$.])` + name + `\s*\(`).MatchString(src) {
			return msg + fmt.Sprintf(" (your top-level variable %s hides the API function %s() for the rest of this session; "+
				"it cannot be called again here, so name top-level variables differently, e.g. %sResult)", name, name, name)
		}
	}
	return msg
}

// stackPos returns the position of the innermost frame that lies in the cell (its line and
// column; the zero Position when no frame does).
func (e *Engine) stackPos(stack []goja.StackFrame, unit *source.JSUnit) fault.Position {
	name := ""
	if unit != nil && unit.Program != nil && unit.Program.File != nil {
		name = unit.Program.File.Name()
	}
	for _, f := range stack {
		if f.SrcName() != name {
			continue
		}
		p := f.Position()
		if p.Line > 0 {
			return fault.Position{Filename: p.Filename, Line: p.Line, Column: p.Column}
		}
	}
	return fault.Position{}
}

// describe renders a thrown value for an error message: "Name: message" for errors, the print
// form for anything else. Reading name and message may run model getters: the cell's interrupts
// are still armed, and any failure falls back to a fixed text.
func (e *Engine) describe(v goja.Value) (s string) {
	const fallback = "(a value that could not be described)"
	defer func() {
		if recover() != nil {
			s = fallback
		}
	}()
	if ex := e.vm.Try(func() { s = e.render(v) }); ex != nil {
		return fallback
	}
	return s
}

func (e *Engine) render(v goja.Value) string {
	if obj, ok := v.(*goja.Object); ok && isError(obj) {
		return errorString(obj)
	}
	p := printer{vm: e.vm, handle: e.handle, budget: 2000}
	p.top(v)
	return p.String()
}
