//go:build linux || darwin

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// workerPATH is the only inherited-looking variable the worker gets.
const workerPATH = "PATH=/usr/local/bin:/usr/bin:/bin"

// workerMallocArenas keeps a cgo-built worker's C allocator to one arena. glibc otherwise gives
// each thread that calls malloc (every new Go M does, in a cgo binary) its own 64 MiB
// reservation, up to 8 per core, and those reservations count against RLIMIT_AS: a busy
// machine made more threads, and a JavaScript cell then ran out of address space at 335 MB of
// heap instead of being stopped by its heap limit. Measured in a default worker: 1.65 GB of
// address space before the first cell, 1.32 GB with one arena (TestWorkerAddressSpaceRoom).
const workerMallocArenas = "MALLOC_ARENA_MAX=1"

// newCommand builds what every Unix worker shares: self (or cfg.Path) with cfg.Args, the
// Config in the environment beside PATH and cfg.Env only, "/" as its directory (the worker's
// uid may be unable to reach the caller's), the ExtraFiles, and a process-group kill when ctx
// ends. The caller adds the SysProcAttr.
func newCommand(ctx context.Context, cfg Config, hostNS map[string]string, self string) (*exec.Cmd, error) {
	if err := absPaths(&cfg); err != nil {
		return nil, err
	}
	wire, err := json.Marshal(wireConfig{Config: cfg, HostNS: hostNS, ExtraFiles: len(cfg.ExtraFiles)})
	if err != nil {
		return nil, err
	}
	path := cfg.Path
	if path == "" {
		path = self
	}
	cmd := exec.CommandContext(ctx, path, cfg.Args...)
	cmd.Args[0] = "rlm-worker"
	cmd.Env = append([]string{workerPATH, workerMallocArenas}, cfg.Env...)
	cmd.Env = append(cmd.Env, EnvConfig+"="+string(wire))
	// Never the workspace: the worker's uid may be unable to reach it by name (the child's
	// chdir would fail); it works in the workspace through a descriptor instead.
	cmd.Dir = "/"
	cmd.ExtraFiles = cfg.ExtraFiles
	cmd.Cancel = func() error { return KillGroup(cmd) }
	return cmd, nil
}

// absPaths makes the allowed paths absolute: the worker starts in another directory.
func absPaths(cfg *Config) error {
	var err error
	abs := func(p string) string {
		a, e := filepath.Abs(p)
		if e != nil && err == nil {
			err = e
		}
		return a
	}
	cfg.ReadFiles = slices.Clone(cfg.ReadFiles)
	cfg.ReadDirs = slices.Clone(cfg.ReadDirs)
	for i, p := range cfg.ReadFiles {
		cfg.ReadFiles[i] = abs(p)
	}
	for i, p := range cfg.ReadDirs {
		cfg.ReadDirs[i] = abs(p)
	}
	if cfg.Workspace != "" {
		cfg.Workspace = abs(cfg.Workspace)
	}
	return err
}

// KillGroup sends SIGKILL to the worker's process group (the worker and everything it
// started). It is the hard deadline and what cancelling Command's context does.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("sandbox: worker not started")
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// rlimit is one resource limit to set.
type rlimit struct {
	res int
	v   uint64
}

// lowerLimits sets each limit, soft = hard, never raising one.
func lowerLimits(limits []rlimit) error {
	for _, l := range limits {
		var cur unix.Rlimit
		if err := unix.Getrlimit(l.res, &cur); err != nil {
			return err
		}
		v := min(l.v, cur.Max) // only ever lower a limit
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit(%d): %w", l.res, err)
		}
	}
	return nil
}

// closeInherited closes descriptors that leaked in through exec: every descriptor above
// stderr and the ExtraFiles that lacks close-on-exec came from the parent (the Go runtime
// opens its own with O_CLOEXEC), e.g. one a host library opened without it. dir lists this
// process's descriptors (/proc/self/fd, or /dev/fd).
func closeInherited(dir string, extra int) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3+extra {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			unix.Close(fd)
		}
	}
	return nil
}

// portableCommand starts the worker where Linux's layers are not used (macOS; Linux built with
// -tags rlm_portable): in a new session (its own process group, no controlling terminal); a root
// parent's worker drops to the unprivileged uid with setuid, as on Linux without user
// namespaces. There is no Pdeathsig: the worker watches its parent instead (watchParent).
func portableCommand(ctx context.Context, cfg Config, self string) (*exec.Cmd, error) {
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
