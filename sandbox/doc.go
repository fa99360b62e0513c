// Package sandbox is rlm's OS confinement layer (pipeline stage 4). Neither interpreter can
// be confined in-process, so model code runs in a worker process: the rlm binary
// re-executed with a hidden subcommand, which confines itself before any interpreter
// exists.
//
// Parent side:
//
//	cmd, err := sandbox.Command(ctx, sandbox.Config{ReadFiles: ctxFiles, ReadDirs: roots,
//		Workspace: out, Args: []string{"__worker"}, AllowDegraded: flagAllowDegraded})
//	// or, for trees the worker uid cannot reach by name: ExtraFiles: dirs (O_PATH),
//	// ReadDirFDs: []int{3, ...}, WorkspaceFD: N
//	// err is a fault.Denied when the machine is below the minimum; then set up
//	// cmd.StdinPipe / StdoutPipe for the JSON-lines protocol and cmd.Start().
//	// Hard deadline: sandbox.KillGroup(cmd) (cancelling ctx does the same).
//
// Worker side, first thing in the hidden subcommand, before any goroutine or interpreter:
//
//	cfg, ok, err := sandbox.WorkerConfig() // !ok: not started by Command, refuse
//	report, err := sandbox.Apply(cfg)      // err: exit without running code
//
// Probe reports what this machine offers without confining the caller (`rlm isolation`);
// Report.Verdict is full, degraded(list) or none; Report.Check refuses below a minimum
// (DefaultMinimum: rlimits, no_new_privs, Landlock, seccomp) with a fault.Denied that names
// the missing layers and --allow-degraded. Config.Disable switches layers off (the tests
// enable one layer at a time); Config.Simulate pretends a layer is unavailable (CI).
//
// # Process
//
// Command starts the worker in a new session (its own process group, no controlling
// terminal, so no TIOCSTI into the user's terminal), with Pdeathsig SIGKILL (a worker in a
// busy loop dies with its parent; note that Linux sends it when the parent *thread* exits,
// so do not start workers from a goroutine that locks its thread and then exits), an
// environment of PATH and the caller's Env only (no API keys), no descriptors but stdio
// and ExtraFiles (Apply also closes any that leaked in without close-on-exec), and the
// binary through /proc/self/exe, which the child resolves itself, so the worker uid need
// not reach the binary's directory. KillGroup kills the worker and everything it started.
//
// # Layers, what each stops, and what it does not
//
// rlimits: RLIMIT_AS = MemoryBytes + 1.5 GiB (a Go process reserves about 1.3 GB of address
// space before it allocates; the garbage collector also gets MemoryBytes as its soft limit).
// A cgo build sets the C stacks of the threads it makes from then on to 1 MiB, adds
// GOMAXPROCS + 16 of them to the limit, and holds the C allocator to one arena, so that
// threads do not eat the memory cap. Then RLIMIT_FSIZE (writes fail with EFBIG: Go ignores
// SIGXFSZ), RLIMIT_NOFILE, RLIMIT_CORE 0, RLIMIT_CPU with soft = hard, so the kernel sends
// SIGKILL at the limit (a backstop: the wall-clock deadline is KillGroup). A runaway
// allocation kills the worker, not the orchestrator. Does not stop: using up to the limit in
// real memory, MemoryBytes + 1.5 GiB and the thread stacks (no cgroup here; watch RSS from
// the parent if that matters). RLIMIT_NPROC is deliberately not set: it counts
// threads and kills Go; seccomp blocks fork instead.
//
// no_new_privs: on every thread (AllThreadsSyscall, or libpsx in a cgo binary). Stops
// gaining privileges through exec of setuid/setcap programs; it is also what lets an
// unprivileged process install Landlock and seccomp. Does not stop anything else by itself.
//
// Landlock (strict: the ABI the kernel offers is used exactly, never BestEffort, and the
// report gives the ABI): reads only of the context files and read roots, reads and writes
// only in the workspace, no execute right anywhere, no device ioctls; ABI >= 4 denies every
// TCP connect and bind; ABI >= 6 scopes signals and abstract unix sockets to the worker.
// Nothing else is allowed read-only: the Go runtime needs no file after start (its cgroup
// files are opened before; the local time zone is loaded before Landlock), and /proc/self
// is deliberately not granted. Does not stop: socket() itself, UDP (before ABI 10),
// stat/chdir/readlink of any path, fork. Allowed paths (ReadFiles, ReadDirs, Workspace) must
// be reachable (search permission) by the worker uid, or Apply fails; trees the worker uid
// cannot reach by name (below a 0700 home) are passed as inherited O_PATH descriptors instead
// (ReadDirFDs, WorkspaceFD), and the rules are made from /proc/self/fd/N, which reaches the
// directory the descriptor holds without walking its path. DAC still applies below it: the
// worker uid needs the directory's own search (and write) permission, which is why
// PrepareWorkspace chowns a parent-made workspace to it, and never a directory the user chose.
//
// seccomp: an architecture guard first (any non-native architecture, and x32, kills the
// process: go-seccomp-bpf alone sends them to the default action, which is allow for a
// deny-list), then a deny-list answering EPERM: socket, socketpair, connect, bind, listen,
// accept, execve, execveat, fork, vfork, clone without CLONE_THREAD or with namespace
// flags, ptrace, process_vm_*, pidfd_getfd, io_uring_*, bpf, perf_event_open, userfaultfd,
// keyrings, memfd_create, personality, mount and the new mount API, setns, unshare,
// chroot, pivot_root, open_by_handle_at, module and kexec calls, clock and host-name
// setters, and mmap/mprotect/pkey_mprotect with PROT_EXEC (neither interpreter generates
// machine code). clone3 answers ENOSYS (its flags are in memory a filter cannot read; glibc
// then falls back to clone). Loaded with TSYNC, so every thread gets it. Does not stop:
// reading and writing files (Landlock does), system calls not listed, kernel bugs in
// allowed calls.
//
// Namespaces (created by the parent; Apply reports which the worker really got by
// comparing /proc/self/ns with the parent's): user (uid 65534 mapped to host 65534 for a
// root parent — never 0 — or to the user's own uid otherwise; a root parent also drops its
// supplementary groups; without user namespaces a root parent still drops to 65534 with
// setuid), net (no interface at all, so no loopback services), pid (the worker is pid 1 and
// sees no host process), mount, ipc, uts. They stop the network and other processes even
// where Landlock or seccomp are missing. They do not stop file access as the worker uid
// (world-readable files stay readable without Landlock).
//
// # macOS and other systems
//
// macOS has none of the layers above but rlimits. There Probe reports every other layer missing
// (the verdict is none), Command refuses below the minimum unless AllowDegraded, and Apply gives
// what every Unix has (degraded.go): RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE 0 and RLIMIT_CPU
// (SIGXCPU ends the worker), a memory watchdog instead of RLIMIT_AS, and a parent watchdog
// instead of Pdeathsig; a root parent's worker drops to the unprivileged uid with setuid.
// Report.Summary says in plain words what that means for model code. Built with
// -tags rlm_portable, Linux runs this same path (no Linux layer is used), so that it is tested
// here; a release never has the tag. Other systems get no layer at all (other.go).
//
// # cgo
//
// Before Landlock ABI 8, go-landlock reaches the other threads through AllThreadsSyscall,
// or through libpsx when the binary links cgo. libpsx lists /proc/<getpid()>/task, which
// inside a pid namespace (with the host's /proc) is another process: the worker hangs. So a
// cgo binary gets no pid namespace on such kernels (reported as degraded(pid_ns)); build
// rlm with CGO_ENABLED=0 to have every layer.
package sandbox
