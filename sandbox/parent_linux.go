package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// nsFlags maps each namespace layer to its clone flag.
var nsFlags = []struct {
	layer Layer
	flag  uintptr
	name  string // the entry in /proc/self/ns
}{
	{UserNS, syscall.CLONE_NEWUSER, "user"},
	{NetNS, syscall.CLONE_NEWNET, "net"},
	{PidNS, syscall.CLONE_NEWPID, "pid"},
	{MountNS, syscall.CLONE_NEWNS, "mnt"},
	{IPCNS, syscall.CLONE_NEWIPC, "ipc"},
	{UTSNS, syscall.CLONE_NEWUTS, "uts"},
}

func command(ctx context.Context, cfg Config, ns Layer) (*exec.Cmd, error) {
	if portable {
		return portableCommand(ctx, cfg, "/proc/self/exe")
	}
	// The magic link is resolved by the child itself, so it works even when the binary lies in
	// a directory the worker's uid cannot search (/root/go/bin).
	cmd, err := newCommand(ctx, cfg, hostNamespaces(), "/proc/self/exe")
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = sysProcAttr(ns, cfg.wanted()&UserNS != 0, cfg.UID, cfg.GID)
	return cmd, nil
}

// fitNamespaces marks the other namespaces missing when there is no user namespace and the
// parent is not root: creating them needs one or the other.
func fitNamespaces(r *Report) {
	if portable {
		return
	}
	if r.Present()&UserNS != 0 || os.Geteuid() == 0 {
		return
	}
	for _, f := range nsFlags[1:] {
		if lr := r.Get(f.layer); lr.Status == Available {
			r.set(f.layer, Missing, "needs a user namespace or root")
		}
	}
}

// sysProcAttr builds the attributes of the worker: a new session (so its own process
// group, and no controlling terminal), SIGKILL on parent death, the namespaces in ns and,
// when dropUID is set, the unprivileged uid and gid.
func sysProcAttr(ns Layer, dropUID bool, uid, gid uint32) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	for _, f := range nsFlags {
		if ns&f.layer != 0 {
			a.Cloneflags |= f.flag
		}
	}
	root := os.Geteuid() == 0
	switch {
	case ns&UserNS != 0:
		// Map the worker's uid to an unprivileged host uid: a root parent maps it to
		// uid itself (nobody); anyone else can only map their own uid. Mapping to 0
		// would leave a root parent's worker as host root.
		hostUID, hostGID := uid, gid
		if !root {
			hostUID, hostGID = uint32(os.Getuid()), uint32(os.Getgid())
		}
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: int(uid), HostID: int(hostUID), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: int(gid), HostID: int(hostGID), Size: 1}}
		// A root parent may and must drop its supplementary groups (root's group 0
		// would still count on the host); an unprivileged one cannot call setgroups.
		a.GidMappingsEnableSetgroups = root
		a.Credential = &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: !root}
	case dropUID && root:
		// No user namespace, but a root parent can still drop to the unprivileged uid.
		a.Credential = &syscall.Credential{Uid: uid, Gid: gid}
	}
	return a
}

// hostNamespaces returns this process's namespace identities ("net:[4026531840]"), so
// the worker can tell which namespaces it really got.
func hostNamespaces() map[string]string {
	m := make(map[string]string, len(nsFlags))
	for _, f := range nsFlags {
		if id, err := os.Readlink("/proc/self/ns/" + f.name); err == nil {
			m[f.name] = id
		}
	}
	return m
}

// probeNamespaces finds which namespaces a worker can get, by starting throwaway children
// with them: each child executes a path that cannot exist, so ENOTDIR means the clone, the
// id maps and the credentials all worked, and any other error names what failed.
func probeNamespaces(r *Report) {
	root := os.Geteuid() == 0
	userErr := tryClone(UserNS)
	var base Layer
	switch {
	case userErr == nil:
		base = UserNS
		r.set(UserNS, Available, "")
	case root:
		r.set(UserNS, Missing, "user namespaces unavailable ("+userErr.Error()+
			"); the worker drops to the unprivileged uid with setuid instead")
	default:
		r.set(UserNS, Missing, "user namespaces unavailable: "+userErr.Error())
	}
	for _, f := range nsFlags[1:] {
		if base == 0 && !root {
			r.set(f.layer, Missing, "needs a user namespace or root")
			continue
		}
		if err := tryClone(base | f.layer); err != nil {
			r.set(f.layer, Missing, err.Error())
			continue
		}
		r.set(f.layer, Available, "")
	}
}

func tryClone(ns Layer) error {
	attr := sysProcAttr(ns, true, DefaultUID, DefaultUID)
	attr.Setsid = false
	_, err := syscall.ForkExec("/dev/null/rlm-namespace-probe", []string{"probe"},
		&syscall.ProcAttr{Env: []string{}, Sys: attr})
	if errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err == nil {
		return errors.New("probe child unexpectedly started")
	}
	return err
}
