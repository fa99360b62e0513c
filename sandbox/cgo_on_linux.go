//go:build linux && cgo

package sandbox

/*
#define _GNU_SOURCE
#include <pthread.h>

// rlm_set_thread_stack makes size the stack of every thread created from now on with default
// attributes, as the Go runtime creates its threads in a cgo build.
static int rlm_set_thread_stack(size_t size) {
	pthread_attr_t a;
	int e = pthread_getattr_default_np(&a);
	if (e != 0) {
		return e;
	}
	e = pthread_attr_setstacksize(&a, size);
	if (e == 0) {
		e = pthread_setattr_default_np(&a);
	}
	pthread_attr_destroy(&a);
	return e;
}
*/
import "C"

import "syscall"

// threadStackBytes is the C stack of each thread the worker creates once confined. In a cgo
// build the runtime makes its threads with pthread_create and default attributes, whose stack
// is otherwise RLIMIT_STACK's size when the process started (8 MiB typically, 2 MiB when
// unlimited, any size a user's ulimit -s gives), reserved in full against RLIMIT_AS. The
// runtime needs far less: without cgo its threads' system stacks are 16 KiB.
const threadStackBytes = 1 << 20

// pinThreadStacks sets the stack of threads created from now on to threadStackBytes.
func pinThreadStacks() error {
	if e := C.rlm_set_thread_stack(C.size_t(threadStackBytes)); e != 0 {
		return syscall.Errno(e)
	}
	return nil
}

// threadStacks is what RLIMIT_AS allows for the stacks of threads created once confined: the
// runtime runs up to GOMAXPROCS threads at once, plus one for each goroutine blocked in a
// system call (spareThreads, a margin: threads are never given back, so the peak counts), each
// with a guard page.
func threadStacks(procs int) uint64 {
	return uint64(procs+spareThreads) * (threadStackBytes + 64<<10)
}
