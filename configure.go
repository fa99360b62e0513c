package rlm

import (
	"errors"

	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/llm"
)

// Configure sets what rlm.toml configures in o from c, the configuration `rlm run` reads
// (config.Load: flags, the environment, ./rlm.toml, $RLM_HOME/config.toml, defaults): the model
// client (backends and their keys, models, the root and sub-call ladders, sampling settings,
// prices, and the call, token and dollar budgets), every cap of the code's API, the iterations,
// blocks and feedback per reply, the run's and each cell's time, the workspace quota, the
// worker's memory, the model runs in one home at once and the converters of inputs
// ([convert]); and the tools of [tools.NAME] (CommandTools), appended to o.Tools (so call it
// once). The rest of o (the question, files, recursion, progress) is left as it is.
//
// With no model configured, o.Model holds the budgets only: a script runs without a model, and
// a question run fails in Ask with the error that says how to name one. Any other error of
// c.LLM (a key variable that is not set, a bad model setting) is returned, and o.Model then
// holds the budgets only. A tool whose name clashes with the API is an error too, and o.Tools
// then holds none of c's.
func (o *Options) Configure(c *config.Config) error {
	l := c.Limits
	o.Limits, o.MaxIterations, o.MaxBlocks, o.FeedbackChars = l.API(), l.MaxIterations, l.MaxBlocks, l.FeedbackChars
	o.Timeout, o.CellTimeout = c.Timeout, l.CellTimeout
	o.Quota, o.WorkerMemory = Quota{Bytes: l.WorkspaceBytes, Entries: l.WorkspaceEntries}, l.WorkerMemory
	o.MaxRuns = l.MaxRuns
	tools, terr := CommandTools(c)
	o.Tools = append(o.Tools, tools...)
	o.Convert = Converters(c)
	lc, err := c.LLM(nil)
	if err != nil {
		lc = llm.Config{MaxCalls: l.MaxCalls, MaxTokens: l.MaxTokens, MaxCost: l.MaxCost}
	}
	o.Model = lc
	switch {
	case terr != nil:
		return terr
	case errors.Is(err, config.ErrNoModel):
		return nil
	}
	return err
}

// Converters are c's [convert] entries (rlm.toml), as Options.Convert and SessionOptions.Convert
// take them; nil when there are none.
func Converters(c *config.Config) map[string]Converter {
	if c == nil || len(c.Convert) == 0 {
		return nil
	}
	m := c.Convert
	out := make(map[string]Converter, len(m))
	for ext, conv := range m {
		out[ext] = Converter{Exec: conv.Exec, Timeout: conv.Timeout, MaxOutput: conv.MaxOutput}
	}
	return out
}
