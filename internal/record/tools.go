package record

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-sandbox/rlm/audit"
)

// Tools writes tool-call rows off the cells' critical path: Add queues a cell's rows, one
// goroutine writes each batch in one transaction, and closing waits a bounded time for the
// queue, so recording never outlives the run by more than toolWriteGrace. A full queue drops
// rows (counted) rather than slow the run.
type Tools struct {
	db      *audit.DB
	warn    func(error)
	q       chan []audit.ToolCall
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	dropped atomic.Int64

	mu     sync.Mutex
	closed bool
}

// Bounds of the tool-call writer.
const (
	toolQueue      = 256         // cells' batches waiting to be written
	toolWriteGrace = time.Second // how long closing waits for the queue
)

func newTools(db *audit.DB, warn func(error)) *Tools {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Tools{db: db, warn: warn, q: make(chan []audit.ToolCall, toolQueue), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go w.run()
	return w
}

func (w *Tools) run() {
	defer close(w.done)
	for rows := range w.q {
		if w.ctx.Err() != nil {
			w.dropped.Add(int64(len(rows)))
			continue
		}
		if err := w.db.RecordTools(w.ctx, rows); err != nil {
			w.dropped.Add(int64(len(rows)))
			w.warn(err)
		}
	}
}

// Add queues rows; it never blocks.
func (w *Tools) Add(rows []audit.ToolCall) {
	if len(rows) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed { // a sub-call that ended after the run
		w.dropped.Add(int64(len(rows)))
		return
	}
	select {
	case w.q <- rows:
	default:
		w.dropped.Add(int64(len(rows)))
	}
}

// close stops the queue, waits at most grace for it to be written, and returns how many rows
// were not.
func (w *Tools) close(grace time.Duration) int64 {
	w.mu.Lock()
	w.closed = true
	close(w.q)
	w.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.cancel()
		<-w.done
	}
	w.cancel()
	return w.dropped.Load()
}
