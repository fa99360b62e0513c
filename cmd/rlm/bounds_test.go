package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The testscript commands of the parent's bounds (issue 11): time, memory and disk, measured on
// the real binary.

// timed MAX CODES CMD ARGS... runs a command and fails unless it exits with one of CODES (a
// comma-separated list) within MAX (a duration); the time is logged.
func timed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: timed MAX CODES CMD [ARGS...]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	var codes []int
	for _, c := range strings.Split(args[1], ",") {
		n, err := strconv.Atoi(c)
		ts.Check(err)
		codes = append(codes, n)
	}
	start := time.Now()
	got := 0
	if err := ts.Exec(args[2], args[3:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("timed: %v", err)
		}
		got = ee.ExitCode()
	}
	took := time.Since(start)
	ts.Logf("exited %d after %v", got, took.Round(time.Millisecond))
	if !slices.Contains(codes, got) {
		ts.Fatalf("exit status %d, want one of %v", got, codes)
	}
	if took > limit {
		ts.Fatalf("took %v; want at most %v", took.Round(time.Millisecond), limit)
	}
}

// genctx FILE BYTES writes a context file of log lines, at least BYTES long.
func genctx(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genctx FILE BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "2026-11-22 10:%02d:%02d worker-%d routine heartbeat ok, sequence %d\n", i/60%60, i%60, i%7, i)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// replrss MAXMB CELLS ARGS... runs `rlm repl ARGS`, feeds it the lines of CELLS, waits for the
// line "rss-probe-done" on its stdout, reads the parent's peak resident set (VmHWM in
// /proc/PID/status) before it exits, and fails above MAXMB. Its stdout is kept for the next
// checks.
func replrss(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: replrss MAXMB CELLS [ARGS...]")
	}
	maxMB, err := strconv.Atoi(args[0])
	ts.Check(err)
	cells, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	cmd := rlmCommand(ts, append([]string{"repl"}, args[2:]...)...)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	go func() { _, _ = stdin.Write(cells) }()
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	done := false
	for !done && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		done = sc.Text() == "rss-probe-done"
	}
	hwm := vmHWM(cmd.Process.Pid)
	stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	_ = cmd.Wait()
	fmt.Fprint(ts.Stdout(), out.String())
	ts.Logf("stderr:\n%s", stderr.String())
	if !done {
		ts.Fatalf("the repl ended before printing rss-probe-done")
	}
	ts.Logf("parent peak RSS (VmHWM): %d MB", hwm>>10)
	if hwm > int64(maxMB)<<10 {
		ts.Fatalf("the parent's peak RSS is %d MB; want at most %d MB", hwm>>10, maxMB)
	}
}

// vmHWM is the peak resident set of a process, in KiB.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// wsusage DIR MAXBYTES MAXENTRIES walks DIR and fails if its regular files hold more than
// MAXBYTES or it has more than MAXENTRIES entries below it.
func wsusage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: wsusage DIR MAXBYTES MAXENTRIES")
	}
	maxBytes, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	maxEntries, err := strconv.Atoi(args[2])
	ts.Check(err)
	root := ts.MkAbs(args[0])
	var bytes int64
	entries := 0
	ts.Check(filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		entries++
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			bytes += fi.Size()
		}
		return nil
	}))
	ts.Logf("%s: %d bytes (%.1f MiB) in %d entries", args[0], bytes, float64(bytes)/(1<<20), entries)
	if bytes > maxBytes || entries > maxEntries {
		ts.Fatalf("%s holds %d bytes in %d entries; want at most %d bytes and %d entries", args[0], bytes, entries, maxBytes, maxEntries)
	}
}

// sigafter WAIT SIG CODE MAX ARGS... starts rlm with ARGS, sends SIG (INT or TERM) after WAIT, and
// fails unless it exits with CODE within MAX of the signal.
func sigafter(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 5 {
		ts.Fatalf("usage: sigafter WAIT INT|TERM CODE MAX ARGS...")
	}
	wait, err := time.ParseDuration(args[0])
	ts.Check(err)
	sig := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[args[1]]
	if sig == 0 {
		ts.Fatalf("sigafter: unknown signal %q", args[1])
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	limit, err := time.ParseDuration(args[3])
	ts.Check(err)
	cmd := rlmCommand(ts, args[4:]...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	time.Sleep(wait)
	start := time.Now()
	ts.Check(cmd.Process.Signal(sig))
	err = cmd.Wait()
	took := time.Since(start)
	ts.Logf("stderr:\n%s", stderr.String())
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	ts.Logf("exited %d %v after SIG%s", code, took.Round(time.Millisecond), args[1])
	if code != want {
		ts.Fatalf("exit status %d, want %d", code, want)
	}
	if took > limit {
		ts.Fatalf("took %v to exit after the signal; want at most %v", took.Round(time.Millisecond), limit)
	}
}
