package repl

import (
	"fmt"
	"io"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/sandbox"
)

// Serve is the worker process's entry point (the hidden "rlm __worker" subcommand): it applies the
// confinement layers the parent configured, before any interpreter exists, then serves the
// protocol with the real engines. A worker started without a sandbox configuration reports the
// verdict "none", which the parent refuses unless AllowDegraded.
func Serve(r io.Reader, w io.Writer) error {
	iso, applyErr := confine()
	return ServeWorker(r, w, func(cfg WorkerConfig, host engine.Host) (Runner, Isolation, error) {
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
	return IsolationOf(rep), err
}

// IsolationOf summarises a sandbox report: the verdict and one line per layer.
func IsolationOf(rep sandbox.Report) Isolation {
	iso := Isolation{Verdict: rep.Verdict().String()}
	for _, l := range rep.Layers {
		line := fmt.Sprintf("%-10s %s", l.Layer, l.Status)
		if l.Detail != "" {
			line += " (" + l.Detail + ")"
		}
		iso.Layers = append(iso.Layers, line)
	}
	return iso
}
