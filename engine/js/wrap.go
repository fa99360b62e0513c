package js

import (
	"fmt"
	"sync"

	"github.com/dop251/goja"
)

// wrappers are the compiled sources of the small JS functions that sit in front of native
// helpers (concat.go, jsonparse.go, splitws.go, matchascii.go, sortnum.go), compiled once per process and run in each
// runtime.
var wrappers sync.Map // source → *goja.Program

// wrap runs src, an arrow function that makes a function of its arguments, on args, and returns
// the function it made.
func (e *Engine) wrap(src string, args ...goja.Value) (goja.Value, error) {
	p, ok := wrappers.Load(src)
	if !ok {
		prg, err := goja.Compile("rlm_wrapper.js", src, true)
		if err != nil {
			return nil, err
		}
		p, _ = wrappers.LoadOrStore(src, prg)
	}
	maker, err := e.vm.RunProgram(p.(*goja.Program))
	if err != nil {
		return nil, err
	}
	mk, ok := goja.AssertFunction(maker)
	if !ok {
		return nil, fmt.Errorf("the wrapper %.40q is not a function", src)
	}
	return mk(goja.Undefined(), args...)
}
