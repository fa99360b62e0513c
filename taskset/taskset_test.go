package taskset

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/worker"
)

var update = flag.Bool("update", false, "rewrite testdata/known-failures.txt from this run")

// workerEnv makes the test binary serve as the confined rlm worker (see TestMain).
const workerEnv = "RLM_TASKSET_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// shared holds the inputs, generated once per test binary into a directory that the worker's
// unprivileged uid can read.
var shared struct {
	once sync.Once
	dir  string
	data *Data
	err  error
}

func inputs(t *testing.T) (string, *Data) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "rlm-taskset-"); shared.err != nil {
			return
		}
		if shared.err = os.Chmod(shared.dir, 0o755); shared.err != nil {
			return
		}
		shared.data, shared.err = Generate(shared.dir, Seed)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.data
}

// knownFile lists the cells that do not pass today, each with its message.
const knownFile = "testdata/known-failures.txt"

// quick is the subset that -short runs: one task per kind of access (count, search, peek loop,
// chunk, two contexts, text), in both languages.
var quick = []string{"01-log-levels", "02-log-errors-by-service", "12-log-teapot", "19-orders-refund-rate",
	"24-join-no-orders", "25-join-top-spender-name", "38-crash-window", "41-book-secret"}

// cell is one (task, language) pair and its outcome.
type cell struct {
	task Task
	lang string
	want string
	msg  string // "" when the cell passed; otherwise why not, on one line
	dur  time.Duration
}

func (c cell) key() string { return c.lang + " " + c.task.Name }

// TestModelCells runs every model-written cell through the real pipeline (a repl.Session with
// a confined worker: validator, engine, host tools, caps), compares its FINAL with the
// reference answer, and prints a table per language. Cells that fail today are listed in
// testdata/known-failures.txt with their message: the test fails when a listed cell passes or
// fails differently, or a cell not listed fails, so a fix or a regression shows up until the
// file is rewritten with -update.
func TestModelCells(t *testing.T) {
	tasks, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	all := !testing.Short()
	if !all {
		tasks = slices.DeleteFunc(tasks, func(t Task) bool { return !slices.Contains(quick, t.Name) })
		if len(tasks) != len(quick) {
			t.Fatalf("the quick subset names %d tasks, %d exist", len(quick), len(tasks))
		}
	}
	dir, d := inputs(t)
	var cells []*cell
	for _, task := range tasks {
		want, err := d.Want(task.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range Langs {
			cells = append(cells, &cell{task: task, lang: lang, want: want})
		}
	}
	start := time.Now()
	iso := runCells(t, dir, cells)
	t.Logf("%d cells in %v; isolation %s; slowest: %s", len(cells), time.Since(start).Round(time.Millisecond), iso, slowest(cells, 3))
	t.Log("\n" + table(cells))
	checkKnown(t, cells, all)
}

// runCells runs the cells, as many at a time as there are CPUs, each in a fresh session.
func runCells(t *testing.T, dir string, cells []*cell) (isolation string) {
	jobs := make(chan *cell)
	var wg sync.WaitGroup
	var once sync.Once
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				iso := runCell(dir, c)
				once.Do(func() { isolation = iso })
			}
		}()
	}
	for _, c := range cells {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	return isolation
}

func runCell(dir string, c *cell) (isolation string) {
	ctx := context.Background()
	start := time.Now()
	defer func() { c.dur = time.Since(start) }()
	opts := repl.Options{
		Lang:          c.lang,
		Worker:        repl.WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{workerEnv + "=1"}},
		AllowDegraded: true, // measure the model-facing contract wherever the tests run
	}
	for _, in := range c.task.Inputs {
		opts.Contexts = append(opts.Contexts, filepath.Join(dir, in))
	}
	s, err := repl.Open(ctx, opts)
	if err != nil {
		c.msg = "session: " + oneLine(err.Error(), dir)
		return ""
	}
	defer s.Close()
	r := s.Exec(ctx, c.task.Cells[c.lang])
	switch {
	case r.Err != nil:
		c.msg = oneLine(r.Err.Error(), dir)
	case r.Final == nil:
		c.msg = "no FINAL; output: " + oneLine(r.Stdout, dir)
	default:
		if err := c.task.Check(*r.Final, c.want); err != nil {
			c.msg = oneLine(err.Error(), dir)
		}
	}
	return s.Isolation().Verdict
}

// oneLine makes a message one stable line: the first line, the data directory replaced, at
// most 300 characters, and how many lines were dropped.
func oneLine(s, dir string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), dir, "$DATA")
	first, rest, more := strings.Cut(s, "\n")
	if r := []rune(first); len(r) > 300 {
		first = string(r[:300]) + "…"
	}
	if more {
		first += fmt.Sprintf(" [+%d lines]", strings.Count(rest, "\n")+1)
	}
	return first
}

// slowest names the n slowest cells.
func slowest(cells []*cell, n int) string {
	s := slices.Clone(cells)
	slices.SortFunc(s, func(a, b *cell) int { return cmp.Compare(b.dur, a.dur) })
	var out []string
	for _, c := range s[:min(n, len(s))] {
		out = append(out, fmt.Sprintf("%s %v", c.key(), c.dur.Round(time.Millisecond)))
	}
	return strings.Join(out, ", ")
}

// table is the per-language summary: passed and failed first try, then every failure.
func table(cells []*cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %6s %6s %6s %8s\n", "lang", "cells", "passed", "failed", "first-try")
	for _, lang := range Langs {
		n, pass := 0, 0
		for _, c := range cells {
			if c.lang == lang {
				n++
				if c.msg == "" {
					pass++
				}
			}
		}
		fmt.Fprintf(&b, "%-4s %6d %6d %6d %7.1f%%\n", lang, n, pass, n-pass, 100*float64(pass)/float64(max(n, 1)))
	}
	for _, c := range cells {
		if c.msg != "" {
			fmt.Fprintf(&b, "FAIL %s (%v): %s\n", c.key(), c.dur.Round(time.Millisecond), c.msg)
		}
	}
	return b.String()
}
