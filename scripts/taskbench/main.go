// Command taskbench times the model-written cells of the taskset corpus as whole processes, in
// rlm and natively, side by side (issue 19: "median at most 1.5× in both languages, none over
// 10×"):
//
//	go run ./scripts/taskbench                      # every task, Go and JS, median of 3
//	go run ./scripts/taskbench -runs 5 -lang js -only 'log|book'
//	go run ./scripts/taskbench -keep /tmp/tb        # keep the inputs, cells and programs there
//
// It generates taskset's inputs once (taskset.Generate, taskset.Seed), builds rlm once
// (CGO_ENABLED=0, stamped, with rlm-worker beside it as the README installs them) and runs each
// task's cell, in each language, as a whole process:
//
//   - rlm: `rlm run --json --script CELL --ctx INPUT…` with a scratch RLM_HOME, so start-up,
//     confinement, the worker, the validator and the engine (yaegi for Go, goja for JS) are in
//     the time, as a user's run has them.
//   - native: for Go, the cell compiled by the toolchain (its declarations at package level,
//     its statements in a function, imports completed by goimports, unused variables used),
//     beside a stand-in of the model API in plain Go (standin/standin.go); for JS, the cell
//     under node after the same stand-in in JS (standin/standin.js). The stand-ins read each
//     input into memory and have rlm's semantics: offsets in characters, RE2's matches,
//     pages of 200, the caps (TestStandinAgrees checks them against rlm on a small non-ASCII
//     input).
//
// Every run's answer must agree with the other contender's and with taskset's expected answer
// (Task.Check); a cell that fails either way, or is listed in taskset's known failures, is
// skipped and listed with the reason. Each contender runs a cell once untimed (to warm the
// page cache and rlm's index cache), then -runs times, rlm and native alternating so that
// machine load hits both alike; the median wall time is reported.
//
// The table per language gives each cell's rlm and native times, their ratio, and the API
// calls the cell makes; then the median and max ratio, the cells over 10× with a reason, and
// the floors: the whole-process time of an empty cell in rlm, and of an empty program natively.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/taskset"
)

// cell is one task's cell in one language, and what measuring it found.
type cell struct {
	task   taskset.Task
	lang   string
	want   string
	access string // the API calls the cell makes
	skip   string // why it was not measured
	rlm    process
	native process
	rlmT   timed
	natT   timed
}

func (c *cell) key() string { return c.lang + " " + c.task.Name }

func (c *cell) ratio() float64 { return ms(c.rlmT.median()) / ms(c.natT.median()) }

func main() {
	var (
		runs   = flag.Int("runs", 3, "timed runs per cell and contender; the median is reported")
		langs  = flag.String("lang", "go,js", "the languages to run")
		only   = flag.String("only", "", "run only the tasks whose name matches this regular expression")
		keep   = flag.String("keep", "", "work in this directory and keep it (default: a temporary one, removed)")
		rlmBin = flag.String("rlm", "", "use this rlm binary instead of building one")
	)
	flag.Parse()
	if *runs < 1 {
		fmt.Fprintln(os.Stderr, "taskbench: -runs must be at least 1")
		os.Exit(2)
	}
	if err := run(*runs, *langs, *only, *keep, *rlmBin); err != nil {
		fmt.Fprintln(os.Stderr, "taskbench:", err)
		os.Exit(1)
	}
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

func run(runs int, langs, only, keep, rlmBin string) error {
	began := time.Now()
	load, _ := os.ReadFile("/proc/loadavg")
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, cleanup, err := workDir(keep)
	if err != nil {
		return err
	}
	defer cleanup()
	cells, data, err := selectCells(root, dir, langs, only)
	if err != nil {
		return err
	}
	if rlmBin == "" {
		progress("taskbench: building rlm")
		if rlmBin, err = buildRLM(root, dir); err != nil {
			return err
		}
	}
	c := contenders{rlm: rlmBin, home: filepath.Join(dir, "rlm-home"), dir: dir}
	progress("taskbench: %d cells; building the native programs in %s", len(cells), dir)
	floors, err := prepare(c, cells, data)
	if err != nil {
		return err
	}
	if err := measureFloors(floors, runs); err != nil {
		return err
	}
	for i, x := range cells {
		if x.skip == "" {
			measure(x, runs)
		}
		progress("%5.0fs %d/%d %s: %s", time.Since(began).Seconds(), i+1, len(cells), x.key(), status(x))
	}
	end, _ := os.ReadFile("/proc/loadavg")
	report(os.Stdout, cells, floors, runs, strings.TrimSpace(string(load)), strings.TrimSpace(string(end)))
	return nil
}

func status(x *cell) string {
	if x.skip != "" {
		return "skipped: " + x.skip
	}
	return fmt.Sprintf("rlm %.0f ms, native %.0f ms, %.2fx", ms(x.rlmT.median()), ms(x.natT.median()), x.ratio())
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run taskbench inside the rlm module (go env GOMOD: %q, %v)", mod, err)
	}
	return filepath.Dir(mod), nil
}

// workDir makes the work directory, readable by the rlm worker's unprivileged uid.
func workDir(keep string) (string, func(), error) {
	dir := keep
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "taskbench-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", nil, err
	}
	if keep != "" {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// selectCells generates the inputs into dir/data and returns the cells to measure, those
// listed in taskset's known failures already skipped.
func selectCells(root, dir, langs, only string) ([]*cell, *taskset.Data, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, nil, fmt.Errorf("-only: %v", err)
	}
	var want []string
	for _, l := range strings.Split(langs, ",") {
		if l = strings.TrimSpace(l); !slices.Contains(taskset.Langs, l) {
			return nil, nil, fmt.Errorf("-lang: no language %q (go, js)", l)
		}
		want = append(want, l)
	}
	tasks, err := taskset.Load()
	if err != nil {
		return nil, nil, err
	}
	known, err := knownFailures(root)
	if err != nil {
		return nil, nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, nil, err
	}
	progress("taskbench: generating the inputs (seed %d) in %s", taskset.Seed, data)
	d, err := taskset.Generate(data, taskset.Seed)
	if err != nil {
		return nil, nil, err
	}
	var cells []*cell
	for _, l := range want {
		for _, t := range tasks {
			if !re.MatchString(t.Name) {
				continue
			}
			w, err := d.Want(t.Name)
			if err != nil {
				return nil, nil, err
			}
			x := &cell{task: t, lang: l, want: w, access: access(t.Cells[l])}
			if msg, ok := known[x.key()]; ok {
				x.skip = "a known failure in rlm: " + msg
			}
			cells = append(cells, x)
		}
	}
	if len(cells) == 0 {
		return nil, nil, fmt.Errorf("no task matches -only %q", only)
	}
	return cells, d, nil
}

// knownFailures reads taskset/testdata/known-failures.txt: "LANG TASK: MESSAGE" lines.
func knownFailures(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "taskset", "testdata", "known-failures.txt"))
	if err != nil {
		return nil, err
	}
	known := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, msg, _ := strings.Cut(line, ": ")
		known[key] = msg
	}
	return known, nil
}

var apiCall = regexp.MustCompile(`\b(text|peek|search|count|chunk)\(`)

// access names the context tools a cell calls, in a fixed order.
func access(src string) string {
	var used []string
	for _, name := range []string{"count", "search", "peek", "chunk", "text"} {
		for _, m := range apiCall.FindAllStringSubmatch(src, -1) {
			if m[1] == name {
				used = append(used, name)
				break
			}
		}
	}
	return strings.Join(used, "+")
}

// buildRLM builds rlm as a release build is made and as the README installs it: static,
// stamped, with rlm-worker beside it (the worker it starts when that is of the same build).
func buildRLM(root, dir string) (string, error) {
	bin := filepath.Join(dir, "rlm")
	cmd := exec.Command("go", "build", "-ldflags=-X=github.com/rlm-sandbox/rlm/wire.stamp=bench", "-o", dir+string(filepath.Separator), "./cmd/rlm", "./cmd/rlm-worker")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building rlm: %v\n%s", err, out)
	}
	return bin, nil
}

func machine() string {
	return fmt.Sprintf("%d cores, %s, node %s", runtime.NumCPU(), runtime.Version(), strings.TrimSpace(output("node", "--version")))
}

func output(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	return string(out)
}
