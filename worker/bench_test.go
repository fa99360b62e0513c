package worker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/wire"
)

// BenchmarkPeekLoopInProcess runs the cells of repl's BenchmarkPeekLoop (a context read in
// 16,000-character peeks) on a worker's Host in this process, with the result message encoded
// and decoded as the protocol does, but no process boundary: the engine, tool and journal costs
// alone, for profiling (-cpuprofile):
//
//	go test ./worker -run '^$' -bench PeekLoopInProcess -benchtime 3x
//
// RLM_BENCH_CONTEXT_MB sets the context's size (default 256).
func BenchmarkPeekLoopInProcess(b *testing.B) {
	mb := 256
	if v, err := strconv.Atoi(os.Getenv("RLM_BENCH_CONTEXT_MB")); err == nil && v > 0 {
		mb = v
	}
	path, size := benchLog(b, mb)
	for _, lang := range []string{"go", "js"} {
		b.Run(lang, func(b *testing.B) {
			wk, r, cfg := benchWorker(b, lang, []string{path})
			want := strconv.FormatInt(size, 10) + "\n"
			var cell time.Duration
			id := int64(0)
			for b.Loop() {
				start := time.Now()
				id++
				res, journal, log := wk.runCell(r, cfg, wire.Message{Op: wire.OpExec, ID: id, Code: peekLoop[lang]})
				line, err := json.Marshal(wire.Message{Op: wire.OpResult, ID: id, Result: res, Journal: journal, Tools: log})
				if err != nil {
					b.Fatal(err)
				}
				var back wire.Message
				if err := json.Unmarshal(line, &back); err != nil {
					b.Fatal(err)
				}
				cell += time.Since(start)
				if res.Err != nil || res.Stdout != want {
					b.Fatalf("got %q, %v", res.Stdout, res.Err)
				}
			}
			b.ReportMetric(float64(size)*float64(b.N)/cell.Seconds()/1e9, "GB/s")
		})
	}
}

// peekLoop is the loop models write to read a whole context, in each language.
var peekLoop = map[string]string{
	"go": `n := length(context)
total := 0
for off := 0; off < n; off += 16000 {
	total += len(peek(context, off, 16000))
}
print(total)`,
	"js": `let total = 0;
const n = length(context);
for (let off = 0; off < n; off += 16000) total += peek(context, off, 16000).length;
print(total);`,
}

// benchLog writes an ASCII log of about mb megabytes and returns its path and size.
func benchLog(b *testing.B, mb int) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), fmt.Sprintf("log-%dMB.txt", mb))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; n < int64(mb)<<20; i++ {
		k, _ := fmt.Fprintf(w, "2026-11-01T10:%02d:%02dZ %s [svc-%d] request %d served in %d ms\n",
			i/60%60, i%60, []string{"INFO ", "WARN ", "ERROR"}[i%3], i%7, i, i%997)
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return path, n
}

// BenchmarkCellInProcess runs one cell file over context files on a worker's Host in this
// process, as BenchmarkPeekLoopInProcess does, to profile a model's cell (-cpuprofile) without
// the process boundary, for example a cell that taskbench kept:
//
//	RLM_BENCH_CELL=/tmp/tb/cells/16-orders-top-products.go RLM_BENCH_CTX=/tmp/tb/data/orders.csv \
//	  go test ./worker -run '^$' -bench CellInProcess -benchtime 5x -cpuprofile /tmp/cpu.out
//
// RLM_BENCH_CTX is a list of files separated by commas; the language is the cell's extension.
// Without RLM_BENCH_CELL the benchmark is skipped.
func BenchmarkCellInProcess(b *testing.B) {
	cellPath := os.Getenv("RLM_BENCH_CELL")
	if cellPath == "" {
		b.Skip("RLM_BENCH_CELL names no cell")
	}
	code, err := os.ReadFile(cellPath)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for _, p := range strings.Split(os.Getenv("RLM_BENCH_CTX"), ",") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	wk, r, cfg := benchWorker(b, strings.TrimPrefix(filepath.Ext(cellPath), "."), paths)
	id := int64(0)
	for b.Loop() {
		id++
		res, _, _ := wk.runCell(r, cfg, wire.Message{Op: wire.OpExec, ID: id, Code: string(code)})
		if res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// benchWorker is a worker's Host and runner in this process for lang, over the context files
// at paths (closed when b ends).
func benchWorker(b *testing.B, lang string, paths []string) (*worker, Runner, Config) {
	b.Helper()
	cfg := Config{Lang: lang, Validate: true}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		cfg.Contexts = append(cfg.Contexts, p)
		cfg.ContextFDs = append(cfg.ContextFDs, int(f.Fd()))
	}
	lt, err := openContextTools(cfg)
	if err != nil {
		b.Fatal(err)
	}
	wk := &worker{local: lt, waiting: map[int]chan wire.Call{}}
	r, err := NewRunner(cfg, wk)
	if err != nil {
		b.Fatal(err)
	}
	return wk, r, cfg
}
