package worker

import (
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
	"github.com/rlm-sandbox/rlm/wire"
)

// validateCell answers a validate request (repl.Validate): the findings, or the error.
func validateCell(cfg Config, m wire.Message) wire.Message {
	lang, err := source.ParseLang(cfg.Lang)
	if err != nil {
		return wire.Message{Op: wire.OpResult, ID: m.ID, Result: &wire.Result{Err: wire.ErrorOf(fault.Wrap(fault.Schema, err, "validate"))}}
	}
	res, err := validator.Validate(lang, m.Name, []byte(m.Code), validator.Policy{})
	if err != nil {
		return wire.Message{Op: wire.OpResult, ID: m.ID, Result: &wire.Result{Err: wire.ErrorOf(err)}}
	}
	return wire.Message{Op: wire.OpResult, ID: m.ID, Result: &wire.Result{}, Findings: res.Findings}
}
