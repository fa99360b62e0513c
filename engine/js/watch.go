package js

import (
	"context"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/dop251/goja"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// forcedGCEvery rate-limits the collections the watchdog forces to confirm a high heap reading.
const forcedGCEvery = 50 * time.Millisecond

// watch interrupts vm when ctx ends (a timeout error) or when the live Go heap passes limit (a
// limit error). It samples the heap every heapSampleEvery. The returned stop waits for the
// watcher to exit, so no interrupt can arrive after it returns.
//
// The heap is the whole process's: the engine is meant to be alone in its worker process. A
// native built-in that allocates in one call (new Array(3e7).fill(1)) cannot be interrupted; the
// worker's memory rlimit and hard kill cover it.
func watch(ctx context.Context, vm *goja.Runtime, limit uint64) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(heapSampleEvery)
		defer tick.Stop()
		h := heapProbe{limit: limit}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				vm.Interrupt(engine.Interrupted(ctx))
				return
			case <-tick.C:
				if h.over() {
					vm.Interrupt(fault.New(fault.Limit,
						"cell stopped: the heap passed %d MiB; process the input in smaller pieces and keep less in memory",
						limit>>20))
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// heapProbe decides whether the live heap is over the limit. The live size is known only as of
// the last collection, so a high total reading is confirmed by a (rate-limited) forced collection.
type heapProbe struct {
	limit    uint64
	samples  [2]metrics.Sample
	lastGC   time.Time
	prepared bool
}

func (h *heapProbe) read() (live, total uint64) {
	if !h.prepared {
		h.samples[0].Name = "/gc/heap/live:bytes"
		h.samples[1].Name = "/memory/classes/heap/objects:bytes"
		h.prepared = true
	}
	metrics.Read(h.samples[:])
	return sampleUint(h.samples[0]), sampleUint(h.samples[1])
}

func sampleUint(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

func (h *heapProbe) over() bool {
	live, total := h.read()
	if live > h.limit {
		return true
	}
	if total <= h.limit || time.Since(h.lastGC) < forcedGCEvery {
		return false
	}
	runtime.GC()
	h.lastGC = time.Now()
	live, _ = h.read()
	return live > h.limit
}

// liveHeapOver collects garbage and reports whether what the cell left reachable (top-level
// variables of a failed cell, say) still exceeds limit. After a cell stopped by the heap limit,
// the engine asks for this with three quarters of the limit: a session whose live heap sits just
// under the limit (a top-level array the cell filled) would stop almost any later cell too.
func liveHeapOver(limit uint64) bool {
	runtime.GC()
	var h heapProbe
	live, _ := h.read()
	return live > limit
}
