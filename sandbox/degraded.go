//go:build linux || darwin

package sandbox

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

// The worker where Linux's layers do not exist (macOS, the BSDs): what every Unix offers, and
// nothing else. Probe and Apply are these functions there; on Linux only the tests call them,
// so the code macOS runs is measured here too (degraded_test.go).
//
// What it gives:
//   - rlimits: RLIMIT_FSIZE (writes past it fail with EFBIG; Go ignores SIGXFSZ), RLIMIT_NOFILE,
//     RLIMIT_CORE 0 and RLIMIT_CPU. At the CPU limit macOS sends SIGXCPU and nothing more (XNU
//     never sends SIGKILL for RLIMIT_CPU), which Go ignores by default: the worker catches it and
//     ends itself.
//   - memory: RLIMIT_AS is not set. XNU enforces it since macOS 12, but over the whole VM map,
//     which already holds the dyld shared region (6 GiB on arm64, 32 GiB on x86_64) before the
//     worker runs, and setrlimit refuses (EINVAL) a limit below the map's current size: the cap
//     Linux uses cannot be set. Instead the garbage collector gets MemoryBytes as its soft limit,
//     and a watchdog reads the Go runtime's own accounting (memory mapped and not released)
//     every memoryWatchEvery and kills the worker past MemoryBytes + WatchdogSlackBytes.
//   - the parent: macOS has no Pdeathsig, so the worker polls its parent pid and kills its
//     process group when the parent is gone (reparented).
//
// What it does not give: any file, network, process or system-call confinement. Code that gets
// past the validator and the interpreters' allow-lists runs as the worker's user with all of
// that user's rights (see Report.Summary).

// WatchdogSlackBytes is what the memory watchdog allows above MemoryBytes: the runtime's own
// structures, goroutine stacks and heap fragmentation.
const WatchdogSlackBytes = 512 << 20

// How often the watchdogs look.
const (
	memoryWatchEvery = 10 * time.Millisecond
	parentWatchEvery = 100 * time.Millisecond
)

// probeDegraded reports what applyDegraded gives: rlimits, and no other layer.
func probeDegraded() Report {
	r := newReport()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		r.set(Rlimits, Missing, err.Error())
	} else {
		r.set(Rlimits, Available, "file size, open files, core dumps, CPU time; memory by a watchdog, not RLIMIT_AS")
	}
	why := "Linux only; this system is " + runtime.GOOS
	if runtime.GOOS == "linux" {
		why = "not used: a test build (-tags rlm_portable) runs Linux the way macOS runs"
	}
	for _, l := range (AllLayers &^ Rlimits).List() {
		r.set(l, Missing, why)
	}
	return r
}

// applyDegraded confines the calling process as far as a non-Linux Unix can: rlimits and the
// watchdogs. It refuses (fault.Denied) below cfg.Minimum unless cfg.AllowDegraded, before
// starting any watchdog.
func applyDegraded(cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	r := probeDegraded()
	for _, l := range cfg.Disable.List() {
		r.set(l, Off, "disabled by the caller")
	}
	if err := closeInherited("/dev/fd", cfg.extraFiles); err != nil {
		return r, fault.Wrap(fault.Denied, err, "sandbox: closing inherited descriptors")
	}
	switch {
	case cfg.Disable&Rlimits != 0:
	case cfg.Simulate&Rlimits != 0:
		r.set(Rlimits, Missing, "simulated (Config.Simulate)")
	default:
		detail, err := applyPortableRlimits(cfg)
		if err != nil {
			return r, fault.Wrap(fault.Denied, err, "sandbox: applying rlimits")
		}
		r.set(Rlimits, Applied, detail)
	}
	if err := r.Check(cfg.Minimum, cfg.AllowDegraded); err != nil {
		return r, err
	}
	if r.Get(Rlimits).Status == Applied {
		go watchMemory(uint64(cfg.MemoryBytes)+WatchdogSlackBytes, memoryWatchEvery)
		watchCPU()
	}
	go watchParent(os.Getppid(), parentWatchEvery)
	return r, nil
}

func applyPortableRlimits(cfg Config) (string, error) {
	err := lowerLimits([]rlimit{
		{unix.RLIMIT_FSIZE, uint64(cfg.FileSizeBytes)},
		{unix.RLIMIT_NOFILE, cfg.OpenFiles},
		{unix.RLIMIT_CORE, 0},
		{unix.RLIMIT_CPU, cfg.CPUSeconds},
	})
	if err != nil {
		return "", err
	}
	debug.SetMemoryLimit(cfg.MemoryBytes)
	debug.SetGCPercent(limits.WorkerGCPercent)
	return fmt.Sprintf("fsize=%d nofile=%d core=0 cpu=%ds (SIGXCPU ends the worker); memory: watchdog at %d bytes, no RLIMIT_AS",
		cfg.FileSizeBytes, cfg.OpenFiles, cfg.CPUSeconds, cfg.MemoryBytes+WatchdogSlackBytes), nil
}

// goMemory is the memory the Go runtime holds: mapped, and not released to the system.
func goMemory(s []metrics.Sample) uint64 {
	metrics.Read(s)
	total, released := s[0].Value.Uint64(), s[1].Value.Uint64()
	return total - min(released, total)
}

// watchMemory ends the worker when the Go runtime holds more than limit bytes.
func watchMemory(limit uint64, every time.Duration) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for range time.Tick(every) {
		if used := goMemory(s); used > limit {
			die(fmt.Sprintf("out of memory: the worker holds %d bytes, over its cap of %d (the sandbox's memory watchdog)", used, limit))
		}
	}
}

// watchCPU ends the worker at SIGXCPU, which macOS sends at the RLIMIT_CPU soft limit.
func watchCPU() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGXCPU)
	go func() {
		<-ch
		die("CPU time limit: the worker used its RLIMIT_CPU seconds")
	}()
}

// watchParent ends the worker when its parent is gone: a process whose parent dies is
// reparented, so its parent pid changes.
func watchParent(ppid int, every time.Duration) {
	for range time.Tick(every) {
		if os.Getppid() != ppid {
			die("the worker's parent is gone")
		}
	}
}

// die writes why to stderr (the parent shows the line) and kills the worker's process group, or
// the worker alone when it does not lead its group (never the group of whoever started it).
func die(why string) {
	fmt.Fprintln(os.Stderr, "fatal error: "+why)
	if syscall.Getpgrp() == os.Getpid() {
		syscall.Kill(0, syscall.SIGKILL)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	os.Exit(2)
}
