package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// subHost serves the functions the registry places in the parent (engine.InParent: llm_query
// and llm_query_batched) to the session's worker, under the run's caps. It is the session's
// engine.Host: the worker's context and file tools never reach it.
type subHost struct {
	cfg   Config
	step  *int
	tools engine.Host // serves the session's own tools (cfg.Session.Host); nil: the session has none

	mu      sync.Mutex
	calls   int   // sub-calls started, batched slots included
	batches int   // llm_query_batched calls
	hit     error // the first cap or run-ending error; the run stops after the cell
	current []SubCall
}

func newSubHost(cfg Config, step *int) *subHost {
	return &subHost{cfg: cfg, step: step, tools: cfg.Session.Host}
}

// Call implements engine.Host. A name the registry does not place in the parent is refused.
func (h *subHost) Call(ctx context.Context, name string, args []any) (any, error) {
	if f, _ := engine.Lookup(name); f.Place == engine.InParent {
		switch name {
		case "llm_query":
			return h.llmQuery(ctx, args)
		case "llm_query_batched":
			return h.llmQueryBatched(ctx, args)
		}
	}
	if h.isTool(name) {
		return h.tools.Call(ctx, name, args)
	}
	return nil, fault.New(fault.Denied, "%s is not a host function of this run", name)
}

// isTool reports whether name is one of the session's own tools (engine.ToolBudget), which the
// session's Host serves (cfg.Session.Host, kept as tools).
func (h *subHost) isTool(name string) bool {
	f, ok := h.cfg.Session.API.Lookup(name)
	return ok && f.Budget == engine.ToolBudget && h.tools != nil
}

// llmQuery is one sub-call, counted against the run's sub-call cap.
func (h *subHost) llmQuery(ctx context.Context, args []any) (any, error) {
	prompt, ok := arg(args, 0).(string)
	if !ok {
		return nil, fault.New(fault.Code, "llm_query: the prompt must be a string, got %s", typeName(arg(args, 0)))
	}
	model, err := h.pickModel("llm_query", arg(args, 1))
	if err != nil {
		return nil, err
	}
	if err := h.reserve(1, false); err != nil {
		return nil, err
	}
	return h.query(ctx, prompt, model)
}

// llmQueryBatched is a batch of sub-calls, each slot counted against the run's sub-call cap and
// the batch against its batch cap.
func (h *subHost) llmQueryBatched(ctx context.Context, args []any) (any, error) {
	prompts, err := stringList(arg(args, 0))
	if err != nil {
		return nil, fault.New(fault.Code, "llm_query_batched: %v; pass a list of strings", err)
	}
	model, err := h.pickModel("llm_query_batched", arg(args, 1))
	if err != nil {
		return nil, err
	}
	if err := h.reserve(len(prompts), true); err != nil {
		return nil, err
	}
	return h.batch(ctx, prompts, model), nil
}

// reserve counts n sub-calls (and one batch) against the caps, or records the cap as hit.
func (h *subHost) reserve(n int, batch bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case batch && h.batches >= h.cfg.MaxBatches:
		h.setHit(fault.New(fault.Limit, "llm_query_batched cap reached: %d batches per run; raise --max-batches or put more prompts in each batch", h.cfg.MaxBatches))
	case h.calls >= h.cfg.MaxSubCalls:
		h.setHit(fault.New(fault.Limit, "sub-call cap reached: %d of %d sub-calls used; raise --max-subcalls or make fewer, larger sub-calls", h.calls, h.cfg.MaxSubCalls))
	case h.calls+n > h.cfg.MaxSubCalls:
		// Some are left: refuse this call only, so that the code can send fewer, larger prompts.
		left := h.cfg.MaxSubCalls - h.calls
		return fault.New(fault.Limit, "this call asks for %d sub-calls, but %d of the run's %d are left and none was made: call it again with at most %d prompts in all (put several slices in each prompt); those are the last sub-calls of the run", n, left, h.cfg.MaxSubCalls, left)
	default:
		h.calls += n
		if batch {
			h.batches++
		}
		return nil
	}
	return h.hit
}

func (h *subHost) setHit(err error) {
	if h.hit == nil {
		h.hit = err
	}
}

// query runs one sub-call and reports it. It gets what is left of the cell's time: the session
// serves a host call under a context that ends at the cell's hard deadline (with
// repl.ErrCellEnded as its cause), and the cell's whole limit bounds a call made without one.
func (h *subHost) query(parent context.Context, prompt, model string) (string, error) {
	ctx, cancel := context.WithTimeout(parent, h.cellLimit())
	defer cancel()
	start := time.Now()
	var resp llm.Response
	var err error
	if h.cfg.SubQuery != nil {
		resp.Text, err = h.cfg.SubQuery(ctx, prompt, model)
	} else {
		resp, err = h.cfg.Model.Complete(ctx, llm.Request{Agent: "sub", Ladder: llm.Sub, Model: model, Messages: []llm.Message{{Role: "user", Content: prompt}}})
	}
	sc := SubCall{Step: *h.step, Prompt: prompt, Response: resp, Answer: resp.Text, Err: err, Took: time.Since(start)}
	h.record(sc)
	if err != nil {
		if errors.Is(context.Cause(parent), repl.ErrCellEnded) || ctx.Err() != nil && parent.Err() == nil {
			// The cell's deadline, not the run's: the cell fails, the run goes on.
			return "", fault.Wrap(fault.Timeout, err, fmt.Sprintf("llm_query ran past the cell's time limit (%s)", h.cellLimit()))
		}
		if endsRun(err) {
			h.mu.Lock()
			h.setHit(err)
			h.mu.Unlock()
		}
		return "", err
	}
	return resp.Text, nil
}

// batch runs prompts BatchWidth at a time; results keep their order, a failed slot is an error
// string.
func (h *subHost) batch(ctx context.Context, prompts []string, model string) []any {
	out := make([]any, len(prompts))
	sem := make(chan struct{}, h.cfg.BatchWidth)
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ans, err := h.query(ctx, p, model)
			if err != nil {
				ans = fmt.Sprintf("error: %v", err)
			}
			out[i] = ans
		}()
	}
	wg.Wait()
	return out
}

// pickModel reads a sub-call's options (nil, or {"model": name}) and checks the model is one
// the run configured; "" is the sub-call ladder's first model. A name that is not configured
// fails the call (fault.Schema) before it counts against the caps; the run goes on.
func (h *subHost) pickModel(fn string, opts any) (string, error) {
	if opts == nil {
		return "", nil
	}
	m, ok := opts.(map[string]any)
	if !ok {
		return "", fault.New(fault.Code, "%s: the options must be %s, got %s", fn, optsForm(h.cfg.Session.Lang, "name"), typeName(opts))
	}
	for k := range m {
		if !slices.Contains(engine.Options, k) {
			return "", fault.New(fault.Code, "%s: no option %q; the options are %s", fn, k, strings.Join(engine.Options, ", "))
		}
	}
	model, ok := m[engine.OptModel].(string)
	if m[engine.OptModel] != nil && !ok {
		return "", fault.New(fault.Code, "%s: the model must be a string, got %s", fn, typeName(m[engine.OptModel]))
	}
	if model == "" {
		return "", nil
	}
	choices, def := subModels(h.cfg.Model)
	if slices.Contains(choices, model) {
		return model, nil
	}
	if len(choices) == 0 {
		return "", fault.New(fault.Schema, "%s: model %q: this run has no models to pick from; leave the options out", fn, model)
	}
	return "", fault.New(fault.Schema, "%s: model %q is not configured for this run; pick one of %s, or leave the options out (%s answers then)",
		fn, model, strings.Join(choices, ", "), def)
}

// subModels are the models code may pick (sorted) and the one that answers by default, as the
// model states them (an *llm.Client does: Configured, SubModels).
func subModels(m Model) (choices []string, def string) {
	c, ok := m.(interface {
		Configured() []string
		SubModels() []string
	})
	if !ok {
		return nil, ""
	}
	subs := c.SubModels()
	if len(subs) > 0 {
		def = subs[0]
	}
	return c.Configured(), def
}

// optsForm is how code in lang writes options that pick model.
func optsForm(lang, model string) string {
	if lang == "js" {
		return fmt.Sprintf("{model: %q}", model)
	}
	return fmt.Sprintf("Opts{Model: %q}", model)
}

func (h *subHost) record(sc SubCall) {
	h.mu.Lock()
	h.current = append(h.current, sc)
	h.mu.Unlock()
	h.cfg.Observer.SubCall(sc)
}

// startStep and takeStep collect the sub-calls of one cell.
func (h *subHost) startStep() {
	h.mu.Lock()
	h.current = nil
	h.mu.Unlock()
}

func (h *subHost) takeStep() []SubCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.current
	h.current = nil
	return out
}

func (h *subHost) used() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

// counts is the sub-calls and batches used so far.
func (h *subHost) counts() (calls, batches int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls, h.batches
}

func (h *subHost) capErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hit
}

func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func stringList(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is a %T, not a string", i, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("got %T", v)
}

// endsRun reports whether a sub-call's error must stop the run: a limit (a spent budget, an
// emergency stop), a deadline, the run's caller stopping it, or the model service down (the
// circuit breaker). An error about the call itself (its prompt
// does not fit the model's window, the monitor aborted it, the request was refused) only fails
// the call, and the code can react to it.
func endsRun(err error) bool {
	if errors.Is(err, llm.ErrContextLength) {
		return false
	}
	switch fault.KindOf(err) {
	case fault.Limit, fault.Timeout, fault.Canceled, fault.Unavailable:
		return true
	}
	return false
}

// cellLimit is the most time a sub-call may take: the cell's soft and hard deadlines.
func (h *subHost) cellLimit() time.Duration {
	return h.cfg.Session.CellTimeout + h.cfg.Session.KillGrace
}

func typeName(v any) string {
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}
