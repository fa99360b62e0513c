package repl

import (
	"context"
	"fmt"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/wire"
)

// Validate checks src against the sandbox policy as a cell is checked before it runs, in a
// confined worker process of its own, so that the parser never sees src in the calling process:
// the worker has the confinement and the memory cap of a session's (Options.WorkerMemory,
// AllowDegraded, Unconfined, Worker), no files and no engine, and it is stopped when Validate
// returns. It returns the findings (none: the policy accepts src), named after name. When ctx
// ends first, the worker is killed and the error is of kind timeout; a worker that dies on src
// (out of its memory) is an error of kind limit.
func Validate(ctx context.Context, o Options, name string, src []byte) (source.List, error) {
	o = o.WithDefaults()
	o.validateOnly = true
	lang, err := source.ParseLang(o.Lang)
	if err != nil {
		return nil, err
	}
	w, ready, err := startWorker(ctx, o, &inherited{})
	if err != nil {
		return nil, err
	}
	defer w.killWait()
	if ready.Isolation == "none" && !o.AllowDegraded {
		return nil, fault.New(fault.Denied, "the worker runs with no confinement layers; refusing to parse untrusted code (pass --allow-degraded to run anyway)")
	}
	if err := w.conn.Send(wire.Message{Op: wire.OpValidate, ID: 1, Code: string(src), Name: name}); err != nil {
		return nil, w.death(err)
	}
	for {
		select {
		case m, ok := <-w.msgs:
			switch {
			case !ok:
				return nil, fault.Wrap(fault.Limit, w.death(errWorkerGone), fmt.Sprintf("the validator stopped on this %s source of %d bytes (its process died, out of its %d MiB of memory?); write it simpler: less nesting, fewer chained operators", lang, len(src), memory(o)>>20))
			case m.Op == wire.OpResult && m.ID == 1 && m.Result != nil && m.Result.Err != nil:
				return nil, fault.New(fault.Parse(m.Result.Err.Kind), "%s", m.Result.Err.Message)
			case m.Op == wire.OpResult && m.ID == 1:
				return m.Findings, nil
			}
		case <-ctx.Done():
			return nil, fault.Wrap(fault.Timeout, context.Cause(ctx), fmt.Sprintf("the validator did not finish this %s source of %d bytes in time, and was stopped; write it simpler: less nesting, fewer chained operators", lang, len(src)))
		}
	}
}

func memory(o Options) int64 {
	if o.WorkerMemory > 0 {
		return o.WorkerMemory
	}
	return limits.WorkerMemory
}
