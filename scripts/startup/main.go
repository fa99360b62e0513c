//go:build linux

// Command startup measures how long rlm takes to the first cell's result over inputs of
// several sizes, for two rlm binaries side by side (before and after a change), cold and cached.
// scripts/bench-startup.sh builds the binaries and runs it; see the README.
//
// One measurement is one rlm process, timed from its start to its exit:
//   - script: rlm run --script first.go --ctx FILE, where first.go prints length(context) and
//     peeks at the end: a session opened and one cell run;
//   - question: rlm run --replay model.json --ctx FILE QUESTION, whose scripted model answers
//     with that same cell and FINAL: the first message (which measures the input) too.
//
// States: "cold" has no index cache (RLM_HOME/index removed) and the input in the page cache;
// "dropped" is cold with the page cache dropped too (echo 3 > /proc/sys/vm/drop_caches, root
// only, -drop); "cached" runs after a run that cached the index. The binaries alternate within
// each repetition, so that both see the same machine load. It also samples the peak RSS
// (VmHWM) of the rlm process and of its worker.
//
// It reads /proc (peak RSS, the page cache, the load) and so builds on Linux only.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"github.com/rlm-sandbox/rlm/internal/home"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

func main() {
	before := flag.String("before", "", "the rlm binary before the change")
	after := flag.String("after", "", "the rlm binary after the change")
	dir := flag.String("dir", "/tmp/rlm-bench-startup", "where the inputs and the RLM_HOMEs go (outside the repository)")
	sizes := flag.String("sizes", "10MB,100MB,1GB", "input sizes")
	reps := flag.Int("reps", 5, "repetitions per cell of the table")
	drop := flag.Bool("drop", false, "also measure with the page cache dropped (root only)")
	modes := flag.String("modes", "script,question", "what to run: script, question")
	gen := flag.Bool("gen", false, "only generate the inputs")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	inputs := make([]input, 0, 3)
	for _, s := range strings.Split(*sizes, ",") {
		in, err := makeInput(*dir, s)
		if err != nil {
			fail(err)
		}
		inputs = append(inputs, in)
	}
	if *gen {
		return
	}
	if *before == "" || *after == "" {
		fail(fmt.Errorf("give -before and -after binaries (scripts/bench-startup.sh builds them)"))
	}
	b := &bench{dir: *dir, bins: [2]string{*before, *after}, reps: *reps}
	if err := b.setup(); err != nil {
		fail(err)
	}
	states := []string{"cold", "cached"}
	if *drop {
		states = []string{"cold", "dropped", "cached"}
	}
	fmt.Printf("cores %d, load %s, %d repetitions, medians; ratio = before / after\n", runtime.NumCPU(), loadavg(), *reps)
	fmt.Printf("%-8s %-8s %-8s | %10s %10s %7s | %12s %12s | %12s %12s\n", "mode", "input", "state",
		"before ms", "after ms", "ratio", "parent MB b", "parent MB a", "worker MB b", "worker MB a")
	for _, mode := range strings.Split(*modes, ",") {
		for _, in := range inputs {
			for _, st := range states {
				r, err := b.cell(mode, in, st)
				if err != nil {
					fail(fmt.Errorf("%s %s %s: %w", mode, in.name, st, err))
				}
				fmt.Printf("%-8s %-8s %-8s | %10.0f %10.0f %6.1f× | %12.0f %12.0f | %12.0f %12.0f\n", mode, in.name, st,
					ms(r[0].wall), ms(r[1].wall), float64(r[0].wall)/float64(r[1].wall), r[0].parentMB, r[1].parentMB, r[0].workerMB, r[1].workerMB)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type input struct {
	name, path string
	chars      int64 // characters, as rlm counts them
}

// makeInput generates (once) a log-like file of the given size: ASCII lines, some with a
// non-ASCII user name, so the character count is not the byte count.
func makeInput(dir, size string) (input, error) {
	n, err := parseSize(size)
	if err != nil {
		return input{}, err
	}
	p := filepath.Join(dir, "input-"+size+".log")
	if st, err := os.Stat(p); err != nil || st.Size() != n {
		if err := writeInput(p, n); err != nil {
			return input{}, err
		}
	}
	chars, err := countChars(p)
	return input{name: size, path: p, chars: chars}, err
}

func parseSize(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n * u.mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

func writeInput(p string, size int64) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	users := []string{"anna", "josé", "bob", "zoë", "chen", "müller", "ola", "李雷"}
	var line []byte
	for written := int64(0); written < size; {
		line = fmt.Appendf(line[:0], "2026-03-01T%02d:%02d:%02d.%03dZ INFO svc=api-%d req=%08x user=%s GET /v1/items/%d status=%d dur=%dms\n",
			written/7e8%24, written/1e7%60, written/1e5%60, written%1000, r.IntN(10), r.Uint32(), users[r.IntN(len(users))],
			r.IntN(1000000), 200+r.IntN(4)*100, r.IntN(2000))
		if rest := size - written; int64(len(line)) > rest {
			line = append(line[:rest-1], '\n')
		}
		w.Write(line)
		written += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func countChars(p string) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var n int64
	buf := make([]byte, 1<<20)
	var carry []byte
	for {
		k, err := r.Read(buf)
		b := append(carry, buf[:k]...)
		// Keep an incomplete sequence at the end for the next read.
		cut := len(b)
		for i := max(len(b)-3, 0); i < len(b); i++ {
			if utf8.RuneStart(b[i]) && !utf8.FullRune(b[i:]) {
				cut = i
				break
			}
		}
		if err != nil {
			cut = len(b)
		}
		n += int64(utf8.RuneCount(b[:cut]))
		carry = append([]byte(nil), b[cut:]...)
		if err != nil {
			return n, nil
		}
	}
}

type bench struct {
	dir  string
	bins [2]string
	reps int
}

const firstCell = "n := length(context)\nfmt.Println(n, peek(context, n-16, 16))\n"

// setup writes the cell, the scripted model, and one RLM_HOME per binary.
func (b *bench) setup() error {
	model := `[{"text": "I measure the input first.\n` + "```repl\\n" +
		strings.ReplaceAll(strings.ReplaceAll(firstCell, `"`, `\"`), "\n", `\n`) + `FINAL(fmt.Sprint(n))\n` + "```" + `"}]`
	for name, content := range map[string]string{"first.go": firstCell, "model.json": model} {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, h := range []string{"home-before", "home-after"} {
		if err := os.MkdirAll(filepath.Join(b.dir, h), 0o700); err != nil {
			return err
		}
	}
	return nil
}

type sample struct {
	wall               time.Duration
	parentMB, workerMB float64
}

// cell measures one row of the table: reps runs of each binary, alternating, medians.
func (b *bench) cell(mode string, in input, state string) ([2]sample, error) {
	var all [2][]sample
	if err := settle(in.path); err != nil {
		return [2]sample{}, err
	}
	for rep := 0; rep < b.reps; rep++ {
		for i, bin := range b.bins {
			home := filepath.Join(b.dir, []string{"home-before", "home-after"}[i])
			if err := b.prepare(home, in, state, bin, mode); err != nil {
				return [2]sample{}, err
			}
			s, err := b.run(bin, home, mode, in)
			if err != nil {
				return [2]sample{}, err
			}
			all[i] = append(all[i], s)
		}
	}
	return [2]sample{median(all[0]), median(all[1])}, nil
}

// settle waits until the input's change time is older than the index cache's settle window
// (3 s): a file changed more recently is not cached.
func settle(p string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return err
	}
	if age := time.Since(time.Unix(st.Ctim.Sec, st.Ctim.Nsec)); age < 4*time.Second {
		time.Sleep(4*time.Second - age)
	}
	return nil
}

func (b *bench) prepare(rlmHome string, in input, state, bin, mode string) error {
	if state == "cached" {
		_, err := b.run(bin, rlmHome, mode, in) // leaves the index cached (after) or the pages warm
		return err
	}
	if err := os.RemoveAll(home.Index(rlmHome)); err != nil {
		return err
	}
	if state == "dropped" {
		syscall.Sync()
		return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o200)
	}
	return nil
}

func (b *bench) run(bin, home, mode string, in input) (sample, error) {
	args := []string{"run", "--script", filepath.Join(b.dir, "first.go"), "--ctx", in.path}
	if mode == "question" {
		args = []string{"run", "--no-log", "--replay", filepath.Join(b.dir, "model.json"), "--ctx", in.path, "How many characters?"}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "RLM_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	peaks := watch(cmd.Process.Pid)
	err := cmd.Wait()
	wall := time.Since(start)
	parent, worker := peaks()
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v\n%s%s", bin, strings.Join(args, " "), err, out.String(), errb.String())
	}
	if got := strings.Fields(out.String()); len(got) == 0 || got[0] != strconv.FormatInt(in.chars, 10) {
		return sample{}, fmt.Errorf("%s printed %q; want the length %d first", bin, out.String(), in.chars)
	}
	return sample{wall: wall, parentMB: float64(parent) / 1024, workerMB: float64(worker) / 1024}, nil
}

// watch samples, every millisecond until the process exits, its VmHWM and that of its children
// (the worker), and returns a function that stops and reports the peaks in KiB.
func watch(pid int) func() (parent, worker int64) {
	var mu sync.Mutex
	var p, w int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			hwm := vmHWM(pid)
			var kids int64
			for _, c := range children(pid) {
				kids = max(kids, vmHWM(c))
				for _, g := range children(c) {
					kids = max(kids, vmHWM(g))
				}
			}
			mu.Lock()
			p, w = max(p, hwm), max(w, kids)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() (int64, int64) {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return p, w
	}
}

func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// children lists the children of every thread of pid (a Go process forks from any thread).
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func median(s []sample) sample {
	slices.SortFunc(s, func(a, b sample) int { return int(a.wall - b.wall) })
	m := s[len(s)/2]
	for _, x := range s { // peaks: the largest seen
		m.parentMB, m.workerMB = max(m.parentMB, x.parentMB), max(m.workerMB, x.workerMB)
	}
	return m
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
