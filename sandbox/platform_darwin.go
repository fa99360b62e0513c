package sandbox

import (
	"context"
	"os"
	"os/exec"
)

// Probe reports what a worker gets here: rlimits, and none of Linux's layers (degraded.go).
func Probe() Report { return probeDegraded() }

// Apply confines the calling process as far as this system can (degraded.go): rlimits and the
// memory, CPU and parent watchdogs. Below cfg.Minimum it refuses unless cfg.AllowDegraded.
func Apply(cfg Config) (Report, error) { return applyDegraded(cfg) }

func fitNamespaces(*Report) {}

// command starts the worker the portable way (portableCommand), naming this binary by its path:
// there is no /proc/self/exe.
func command(ctx context.Context, cfg Config, _ Layer) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return portableCommand(ctx, cfg, self)
}
