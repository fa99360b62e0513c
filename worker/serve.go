package worker

import (
	"io"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/sandbox"
)

// Serve is the worker process's entry point (cmd/rlm-worker, and the hidden "rlm __worker"
// argument): it applies the confinement layers the parent configured, before any interpreter
// exists, then serves the protocol with the real engines. A worker started without a sandbox
// configuration reports the verdict "none", which the parent refuses unless AllowDegraded.
func Serve(r io.Reader, w io.Writer) error {
	iso, applyErr := confine()
	return ServeWith(r, w, func(cfg Config, host engine.Host) (Runner, Isolation, error) {
		if applyErr != nil || cfg.ValidateOnly {
			return nil, iso, applyErr
		}
		run, err := NewRunner(cfg, host)
		return run, iso, err
	})
}

func confine() (Isolation, error) {
	cfg, ok, err := sandbox.WorkerConfig()
	if err != nil {
		return Isolation{Verdict: "refused"}, err
	}
	if !ok {
		return Isolation{Verdict: "none"}, nil
	}
	rep, err := sandbox.Apply(cfg)
	return Isolation{Verdict: rep.Verdict().String(), Layers: rep.Lines()}, err
}
