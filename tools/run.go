package tools

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// guard runs fn with memory faults turned into panics, and turns any panic
// into an error. A mapped file that shrinks makes reads past its new end
// raise SIGBUS, which would otherwise kill the process.
func guard(fn func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	fn()
	return nil
}

// guarded runs fn under guard and returns fn's error or the fault's.
func guarded(fn func() error) error {
	var err error
	if gerr := guard(func() { err = fn() }); gerr != nil {
		return gerr
	}
	return err
}

func panicError(r any) error {
	if f, ok := r.(interface{ Addr() uintptr }); ok {
		return &toolError{kind: ErrChanged, msg: fmt.Sprintf(
			"the context file changed or was truncated while open (memory fault at %#x); reopen it", f.Addr())}
	}
	return &toolError{kind: ErrInternal, msg: fmt.Sprintf("internal error in the context store: %v", r)}
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines (inline when one
// suffices) and returns the first error. Every call is guarded.
func parallel(n int, fn func(i int)) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		return guard(func() {
			for i := 0; i < n; i++ {
				fn(i)
			}
		})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = guard(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= n {
						return
					}
					fn(i)
				}
			})
			if errs[w] != nil {
				next.Store(int64(n)) // stop the others early
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
