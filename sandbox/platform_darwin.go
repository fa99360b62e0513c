package sandbox

import (
	"context"
	"os"
	"os/exec"
	"syscall"
)

// Probe reports what a worker gets here: rlimits, and none of Linux's layers (degraded.go).
func Probe() Report { return probeDegraded() }

// Apply confines the calling process as far as this system can (degraded.go): rlimits and the
// memory, CPU and parent watchdogs. Below cfg.Minimum it refuses unless cfg.AllowDegraded.
func Apply(cfg Config) (Report, error) { return applyDegraded(cfg) }

func fitNamespaces(*Report) {}

// command starts the worker in a new session (its own process group, no controlling
// terminal); a root parent's worker drops to the unprivileged uid with setuid, as on Linux
// without user namespaces. There is no Pdeathsig: the worker watches its parent instead.
func command(ctx context.Context, cfg Config, _ Layer) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd, err := newCommand(ctx, cfg, nil, self)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cfg.wanted()&UserNS != 0 && os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: cfg.UID, Gid: cfg.GID}
	}
	return cmd, nil
}
