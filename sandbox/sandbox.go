package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

// Layer is one confinement layer, or a set of them (a bit mask).
type Layer uint16

// The layers, in the order the worker applies and reports them.
const (
	Rlimits    Layer = 1 << iota // memory, file size, open files, core dumps, CPU backstop
	NoNewPrivs                   // no_new_privs on every thread: exec cannot gain privileges
	Landlock                     // file read/write/exec and TCP connect/bind allow-lists
	Seccomp                      // architecture check (kill) and system-call deny-list
	UserNS                       // user namespace with an unprivileged uid
	NetNS                        // network namespace: no interfaces, not even loopback
	PidNS                        // pid namespace: the worker is pid 1 and sees no host process
	MountNS                      // mount namespace (mounts locked by the user namespace)
	IPCNS                        // System V IPC and POSIX message queue namespace
	UTSNS                        // host name namespace

	// AllLayers is every layer above.
	AllLayers = Rlimits | NoNewPrivs | Landlock | Seccomp | Namespaces
	// Namespaces are the layers the parent creates when it starts the worker.
	Namespaces = UserNS | NetNS | PidNS | MountNS | IPCNS | UTSNS
	// DefaultMinimum is what untrusted code needs unless the caller allows a degraded sandbox.
	DefaultMinimum = Rlimits | NoNewPrivs | Landlock | Seccomp
)

var layerNames = [...]string{"rlimits", "no_new_privs", "landlock", "seccomp",
	"user_ns", "net_ns", "pid_ns", "mount_ns", "ipc_ns", "uts_ns"}

// List returns the single layers in l, in order.
func (l Layer) List() []Layer {
	var out []Layer
	for i := range layerNames {
		if b := Layer(1) << i; l&b != 0 {
			out = append(out, b)
		}
	}
	return out
}

// String returns the layer names joined by ",".
func (l Layer) String() string {
	var names []string
	for _, b := range l.List() {
		names = append(names, layerNames[b.index()])
	}
	return strings.Join(names, ",")
}

func (l Layer) index() int {
	for i := range layerNames {
		if l == Layer(1)<<i {
			return i
		}
	}
	return -1
}

// MarshalText writes the layer names; used by the JSON report.
func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses a list written by MarshalText.
func (l *Layer) UnmarshalText(b []byte) error {
	*l = 0
	for name := range strings.SplitSeq(string(b), ",") {
		if name == "" {
			continue
		}
		i := indexOf(name)
		if i < 0 {
			return fmt.Errorf("sandbox: unknown layer %q", name)
		}
		*l |= Layer(1) << i
	}
	return nil
}

func indexOf(name string) int {
	for i, n := range layerNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Config says which layers to apply and what the worker may touch. The parent passes it
// to the worker through the environment (see Command and WorkerConfig).
type Config struct {
	Disable       Layer `json:"disable,omitempty"`  // layers switched off by the caller (status off)
	Simulate      Layer `json:"simulate,omitempty"` // test hook: layers treated as unavailable
	Minimum       Layer `json:"minimum,omitempty"`  // refuse below this set; 0 means DefaultMinimum
	AllowDegraded bool  `json:"allow_degraded,omitempty"`

	ReadFiles []string `json:"read_files,omitempty"` // readable files (the context files)
	ReadDirs  []string `json:"read_dirs,omitempty"`  // readable trees (--root)
	Workspace string   `json:"workspace,omitempty"`  // the only writable tree

	// The same, as descriptors the worker inherited (ExtraFiles: 3 is ExtraFiles[0]), for trees
	// the worker's uid cannot reach by name (under a 0700 home): Landlock rules are made from
	// the descriptors themselves. ReadDirFDs are readable trees; WorkspaceFD, when not 0, is the
	// writable one.
	ReadDirFDs  []int `json:"read_dir_fds,omitempty"`
	WorkspaceFD int   `json:"workspace_fd,omitempty"`

	MemoryBytes int64 `json:"memory_bytes,omitempty"` // worker memory cap; default limits.WorkerMemory
	// MappedBytes is address space for the read-only mappings of the context files, added to
	// RLIMIT_AS: they are file-backed and shared, not memory the worker allocates.
	MappedBytes   int64  `json:"mapped_bytes,omitempty"`
	FileSizeBytes int64  `json:"file_size_bytes,omitempty"` // largest file the worker may write; default limits.WorkerFileBytes
	OpenFiles     uint64 `json:"open_files,omitempty"`      // RLIMIT_NOFILE; default limits.WorkerOpenFiles
	CPUSeconds    uint64 `json:"cpu_seconds,omitempty"`     // RLIMIT_CPU backstop; default limits.WorkerCPUSeconds
	UID           uint32 `json:"uid,omitempty"`             // worker uid; default 65534 (never 0)
	GID           uint32 `json:"gid,omitempty"`             // worker gid; default 65534

	// Parent side only.
	Path       string     `json:"-"` // binary to run; default this binary (/proc/self/exe on Linux)
	Args       []string   `json:"-"` // arguments after argv[0], e.g. the hidden subcommand
	Env        []string   `json:"-"` // extra KEY=VALUE entries; the worker gets only PATH besides
	ExtraFiles []*os.File `json:"-"` // descriptors 3, 4, ... in the worker; none by default

	hostNS     map[string]string // the parent's namespaces, filled in by WorkerConfig
	extraFiles int               // len(ExtraFiles) in the parent, filled in by WorkerConfig
}

// The rlimits' defaults are in package limits.
const (
	// DefaultUID is the worker's uid and gid when Config leaves them 0 (nobody): an identity,
	// not a limit.
	DefaultUID = 65534
	// GoHeadroomBytes is added to MemoryBytes for RLIMIT_AS: a Go process reserves address
	// space well beyond what it uses.
	GoHeadroomBytes = 3 << 29 // 1.5 GiB
)

func (c Config) withDefaults() Config {
	if c.Minimum == 0 {
		c.Minimum = DefaultMinimum
	}
	if c.MemoryBytes <= 0 {
		c.MemoryBytes = limits.WorkerMemory
	}
	if c.FileSizeBytes <= 0 {
		c.FileSizeBytes = limits.WorkerFileBytes
	}
	if c.OpenFiles == 0 {
		c.OpenFiles = limits.WorkerOpenFiles
	}
	if c.CPUSeconds == 0 {
		c.CPUSeconds = limits.WorkerCPUSeconds
	}
	if c.UID == 0 {
		c.UID = DefaultUID
	}
	if c.GID == 0 {
		c.GID = DefaultUID
	}
	return c
}

// wanted is the set of layers the caller asked for.
func (c Config) wanted() Layer { return AllLayers &^ c.Disable }

// EnvConfig is the environment variable that carries the Config to the worker.
const EnvConfig = "RLM_SANDBOX_CONFIG"

type wireConfig struct {
	Config     Config            `json:"config"`
	HostNS     map[string]string `json:"host_ns,omitempty"`
	ExtraFiles int               `json:"extra_files,omitempty"`
}

// WorkerConfig reads the Config that Command passed to this worker and removes it from
// the environment. ok is false when this process was not started by Command.
func WorkerConfig() (cfg Config, ok bool, err error) {
	s, ok := os.LookupEnv(EnvConfig)
	if !ok {
		return Config{}, false, nil
	}
	os.Unsetenv(EnvConfig)
	var w wireConfig
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return Config{}, true, fmt.Errorf("sandbox: bad %s: %w", EnvConfig, err)
	}
	w.Config.hostNS = w.HostNS
	w.Config.extraFiles = w.ExtraFiles
	return w.Config, true, nil
}

// Status is what happened to one layer.
type Status string

// The statuses. Probe reports available or missing; Apply reports applied, missing or off.
const (
	Applied   Status = "applied"
	Available Status = "available"
	Missing   Status = "missing"
	Off       Status = "off"
)

// LayerReport is the status of one layer, with the reason when it is not applied.
type LayerReport struct {
	Layer  Layer  `json:"layer"`
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Report lists every layer with its status.
type Report struct {
	LandlockABI int           `json:"landlock_abi"`
	Layers      []LayerReport `json:"layers"`
}

// MarshalJSON writes the report with its verdict string and its Summary (DefaultMinimum).
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		Verdict string   `json:"verdict"`
		Summary []string `json:"summary"`
	}{plain(r), r.Verdict().String(), r.Summary(DefaultMinimum)})
}

func newReport() Report {
	var r Report
	for _, l := range AllLayers.List() {
		r.Layers = append(r.Layers, LayerReport{Layer: l, Status: Missing})
	}
	return r
}

func (r *Report) set(l Layer, s Status, detail string) {
	for i := range r.Layers {
		if r.Layers[i].Layer == l {
			r.Layers[i].Status, r.Layers[i].Detail = s, detail
		}
	}
}

// Get returns the report of the single layer l.
func (r Report) Get(l Layer) LayerReport {
	for _, lr := range r.Layers {
		if lr.Layer == l {
			return lr
		}
	}
	return LayerReport{Layer: l, Status: Missing, Detail: "not reported"}
}

// Present is the set of layers that are applied (Apply) or available (Probe).
func (r Report) Present() Layer {
	var p Layer
	for _, lr := range r.Layers {
		if lr.Status == Applied || lr.Status == Available {
			p |= lr.Layer
		}
	}
	return p
}

// Verdict sums up a report.
type Verdict struct {
	Level   string // "full", "degraded" or "none"
	Missing Layer  // the layers neither applied nor available
}

// String is "full", "degraded(landlock,net_ns)" or "none".
func (v Verdict) String() string {
	if v.Level == "degraded" {
		return "degraded(" + v.Missing.String() + ")"
	}
	return v.Level
}

// Verdict is full when every layer is present, none when nothing beyond rlimits is, and
// degraded otherwise.
func (r Report) Verdict() Verdict {
	present := r.Present()
	missing := AllLayers &^ present
	switch {
	case missing == 0:
		return Verdict{Level: "full"}
	case present&^Rlimits == 0:
		return Verdict{Level: "none", Missing: missing}
	}
	return Verdict{Level: "degraded", Missing: missing}
}

// Check refuses untrusted code when a layer of minimum is not present, unless
// allowDegraded is set. The error is a fault.Denied that names the missing layers, what each
// would have stopped, the flag (and the Go option) that runs code anyway, and what code then
// still runs behind.
func (r Report) Check(minimum Layer, allowDegraded bool) error {
	if minimum == 0 {
		minimum = DefaultMinimum
	}
	lack := minimum &^ r.Present()
	if lack == 0 || allowDegraded {
		return nil
	}
	var why, lost []string
	list := lack.List()
	for i := 0; i < len(list); {
		lr, set := r.Get(list[i]), Layer(0)
		for ; i < len(list) && r.Get(list[i]).Status == lr.Status && r.Get(list[i]).Detail == lr.Detail; i++ {
			set |= list[i] // layers missing for the same reason are named together
			lost = append(lost, fmt.Sprintf("%s would stop %s", list[i], layerStops[list[i]]))
		}
		why = append(why, fmt.Sprintf("%s %s (%s)", set, lr.Status, lr.Detail))
	}
	if more := AllLayers &^ r.Present() &^ lack; more != 0 {
		lost = append(lost, fmt.Sprintf("also missing: %s", more))
	}
	return fault.New(fault.Denied,
		"sandbox: isolation is %s, below the minimum for untrusted code: %s. "+
			"Lost without them: %s. Pass --allow-degraded (Options.AllowDegraded in Go) to run model code anyway, "+
			"in a separate process with rlimits, the validator and the interpreters' allow-lists only; "+
			"`rlm isolation` says what this machine gives",
		r.Verdict(), strings.Join(why, "; "), strings.Join(lost, "; "))
}

// Command builds the worker's exec.Cmd: this binary (or cfg.Path) with cfg.Args, a
// minimal environment, its own session and process group, SIGKILL when the parent
// thread dies, and the namespaces this machine supports. It refuses (fault.Denied) when
// the machine cannot give the minimum layers and cfg.AllowDegraded is false. Cancelling
// ctx kills the worker's whole process group. Stdin, Stdout and Stderr are left to the
// caller (use cmd.StdinPipe and friends for the JSON-lines protocol).
func Command(ctx context.Context, cfg Config) (*exec.Cmd, error) {
	cfg = cfg.withDefaults()
	probe := maskReport(Probe(), cfg)
	fitNamespaces(&probe)
	if err := probe.Check(cfg.Minimum, cfg.AllowDegraded); err != nil {
		return nil, err
	}
	return command(ctx, cfg, probe.Present()&Namespaces)
}

// maskReport turns a probe into what this config can get: disabled layers are off and
// simulated ones missing.
func maskReport(r Report, cfg Config) Report {
	for _, l := range cfg.Simulate.List() {
		r.set(l, Missing, "simulated (Config.Simulate)")
	}
	for _, l := range cfg.Disable.List() {
		r.set(l, Off, "disabled by the caller")
	}
	if cfg.wanted()&Landlock == 0 && cfg.Simulate&PidNS == 0 && r.Get(PidNS).Detail == psxPidNS {
		r.set(PidNS, Available, "") // the libpsx problem only concerns Landlock
	}
	return r
}

// psxPidNS explains why a cgo binary gets no pid namespace.
const psxPidNS = "cgo binary with Landlock ABI < 8: go-landlock reaches other threads through " +
	"libpsx, which lists /proc/PID/task for its own pid and hangs inside a pid namespace; " +
	"build with CGO_ENABLED=0 to get one"

// PrepareWorkspace hands a directory that the parent created for one task over to the worker.
// A root parent starts the worker as the unprivileged DefaultUID (see Config.UID), which DAC
// keeps out of a directory root created 0700; the directory is chowned to that uid. Anyone else's
// worker runs as their own uid on the host, so nothing changes. Never call it on a directory the
// user chose: it would give the worker (and any other process of that uid) the user's files.
func PrepareWorkspace(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	return os.Chown(dir, DefaultUID, DefaultUID)
}
