//go:build !linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
)

// Probe reports every layer missing: the OS layers are Linux-only.
func Probe() Report {
	r := newReport()
	for _, l := range AllLayers.List() {
		r.set(l, Missing, "not Linux")
	}
	return r
}

// Apply applies nothing outside Linux; it refuses unless cfg.AllowDegraded is set.
func Apply(cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	r := maskReport(Probe(), cfg)
	return r, r.Check(cfg.Minimum, cfg.AllowDegraded)
}

func fitNamespaces(*Report) {}

// KillGroup kills the worker (outside Linux, the worker alone).
func KillGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func command(ctx context.Context, cfg Config, _ Layer) (*exec.Cmd, error) {
	path := cfg.Path
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		path = exe
	}
	cmd := exec.CommandContext(ctx, path, cfg.Args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, cfg.Env...)
	cmd.ExtraFiles = cfg.ExtraFiles
	return cmd, nil
}
