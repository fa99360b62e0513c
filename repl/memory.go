package repl

import "github.com/rlm-sandbox/rlm/sandbox"

// memory is the worker's memory cap for o, in bytes.
func memory(o Options) int64 {
	if o.WorkerMemory > 0 {
		return o.WorkerMemory
	}
	return sandbox.DefaultMemoryBytes
}

// JSHeapLimit is the live heap above which the JavaScript engine stops a cell, for a worker of
// memory bytes (0: sandbox.DefaultMemoryBytes): half of it, so that the stop comes before the
// worker runs out (256 MiB for the default 512 MiB). The parent sends it to the worker (the
// worker never derives it), and the system prompt states the same value.
func JSHeapLimit(memory int64) uint64 {
	if memory <= 0 {
		memory = sandbox.DefaultMemoryBytes
	}
	return uint64(memory / 2)
}
