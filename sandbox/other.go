//go:build !linux && !darwin

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"runtime"
)

// Probe reports every layer missing: the worker has no confinement on this system.
func Probe() Report {
	r := newReport()
	for _, l := range AllLayers.List() {
		r.set(l, Missing, "not on "+runtime.GOOS)
	}
	return r
}

// Apply applies nothing here; it refuses unless cfg.AllowDegraded is set.
func Apply(cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	r := maskReport(Probe(), cfg)
	return r, r.Check(cfg.Minimum, cfg.AllowDegraded)
}

func fitNamespaces(*Report) {}

// KillGroup kills the worker (here, the worker alone).
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
