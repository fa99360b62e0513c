package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm"
)

// timing is what one contender printed and how long each run took.
type timing struct {
	Out []string `json:"out"` // the output of each run
	NS  []int64  `json:"ns"`  // the time of each run
}

// funcName is the name of an idiom's function in the generated programs.
func funcName(d idiom) string {
	return "idiom_" + d.Lang + "_" + strings.NewReplacer("-", "_").Replace(d.Name)
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// nativeGoMain is the harness of the native Go program: `prog IDIOM FILE RUNS` reads FILE,
// runs the idiom RUNS times with os.Stdout sent to a temporary file, and writes a timing as
// JSON on the real stdout.
const nativeGoMain = `package main

import (
	"encoding/json"
	"io"
	"os"
	"strconv"
	"time"
)

func main() {
	run := idioms[os.Args[1]]
	b, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	runs, _ := strconv.Atoi(os.Args[3])
	data := string(b)
	stdout := os.Stdout
	tmp, err := os.CreateTemp("", "idiombench-*")
	if err != nil {
		panic(err)
	}
	defer os.Remove(tmp.Name())
	var res struct {
		Out []string ` + "`json:\"out\"`" + `
		NS  []int64  ` + "`json:\"ns\"`" + `
	}
	for range runs {
		tmp.Truncate(0)
		tmp.Seek(0, 0)
		os.Stdout = tmp
		start := time.Now()
		run(data)
		d := time.Since(start)
		os.Stdout = stdout
		tmp.Seek(0, 0)
		out, _ := io.ReadAll(tmp)
		res.Out = append(res.Out, string(out))
		res.NS = append(res.NS, int64(d))
	}
	json.NewEncoder(stdout).Encode(res)
}
`

// buildNativeGo writes every Go idiom into a program of its own (one file per idiom, the
// idiom's body in a function of data) and builds it with the toolchain.
func buildNativeGo(dir string, idioms []idiom) (string, error) {
	src := filepath.Join(dir, "nativego")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	var table strings.Builder
	table.WriteString("package main\n\nvar idioms = map[string]func(string){\n")
	for _, d := range idioms {
		var b strings.Builder
		b.WriteString("package main\n\nimport (\n")
		for _, p := range d.Imports {
			fmt.Fprintf(&b, "\t%q\n", p)
		}
		b.WriteString(")\n\n")
		if d.Decls != "" {
			b.WriteString(d.Decls + "\n\n")
		}
		fmt.Fprintf(&b, "func %s(data string) {\n%s\n}\n", funcName(d), indent(d.Body, "\t"))
		if err := os.WriteFile(filepath.Join(src, funcName(d)+".go"), []byte(b.String()), 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&table, "\t%q: %s,\n", d.Name, funcName(d))
	}
	table.WriteString("}\n")
	files := map[string]string{
		"go.mod":   "module idiombench\n\ngo 1.26\n",
		"main.go":  nativeGoMain,
		"table.go": table.String(),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "nativego.bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the native idioms in %s: %v\n%s", src, err, out)
	}
	return bin, nil
}

// nodeHarness runs one JS idiom under node: print writes one line of its arguments joined by
// spaces, as rlm's print does for strings and numbers.
const nodeHarness = `
const fs = require("fs");
const [name, file, runsArg] = process.argv.slice(2);
const data = fs.readFileSync(file, "utf8");
let out = [];
const print = (...args) => { out.push(args.map(String).join(" ") + "\n"); };
const res = { out: [], ns: [] };
for (let r = 0; r < Number(runsArg); r++) {
  out = [];
  const start = process.hrtime.bigint();
  idioms[name](data);
  res.ns.push(Number(process.hrtime.bigint() - start));
  res.out.push(out.join(""));
}
process.stdout.write(JSON.stringify(res) + "\n");
`

// writeNode writes the JS idioms, each the body of a function of data, and the harness.
func writeNode(dir string, idioms []idiom) (string, error) {
	var b strings.Builder
	b.WriteString("\"use strict\";\nconst idioms = {};\n")
	for _, d := range idioms {
		fmt.Fprintf(&b, "\nidioms[%q] = function %s(data) {\n%s\n};\n", d.Name, funcName(d), indent(d.Body, "  "))
	}
	b.WriteString(nodeHarness)
	path := filepath.Join(dir, "idioms.js")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// pythonHarness runs one idiom's Python: stdout is captured per run.
const pythonHarness = `
def main():
    name, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, encoding="utf-8", newline="") as f:
        data = f.read()
    fn = IDIOMS[name]
    res = {"out": [], "ns": []}
    for _ in range(runs):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            start = time.perf_counter_ns()
            fn(data)
            res["ns"].append(time.perf_counter_ns() - start)
        res["out"].append(buf.getvalue())
    json.dump(res, sys.stdout)
    print()

main()
`

// writePython writes every idiom's Python computation, each a function of data, and the harness.
func writePython(dir string, idioms []idiom) (string, error) {
	var b strings.Builder
	b.WriteString("import contextlib, functools, io, json, re, sys, time\n\nIDIOMS = {}\n")
	for _, d := range idioms {
		fmt.Fprintf(&b, "\ndef %s(data):\n%s\n\nIDIOMS[%q] = %s\n", funcName(d), indent(d.Py, "    "), d.Lang+"/"+d.Name, funcName(d))
	}
	b.WriteString(pythonHarness)
	path := filepath.Join(dir, "idioms.py")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// runProcess runs a harness and decodes its timing.
func runProcess(ctx context.Context, name string, args ...string) (timing, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var t timing
	if err := cmd.Run(); err != nil {
		return t, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &t); err != nil {
		return t, fmt.Errorf("%s %s: %v in %q", name, strings.Join(args, " "), err, stdout.String())
	}
	return t, nil
}

// rlmRunner runs cells in rlm sessions: the library's OpenSession, so each cell goes through
// the validator, the confined worker and the engine (for Go, the typed front end) as a user's
// cell does.
type rlmRunner struct {
	home   string
	memory int64 // the worker's memory; 0 = the default
}

func (r rlmRunner) open(ctx context.Context, lang, file string) (*rlm.Session, error) {
	return rlm.OpenSession(ctx, rlm.SessionOptions{Lang: lang, Files: []string{file}, Home: r.home,
		WorkerMemory: r.memory, CellTimeout: 10 * time.Minute})
}

// exec runs one cell and returns its output, or an error naming the cell.
func exec1(ctx context.Context, s *rlm.Session, cell string) (string, time.Duration, error) {
	start := time.Now()
	res := s.Exec(ctx, cell)
	d := time.Since(start)
	if res.Error != nil {
		return "", d, fmt.Errorf("%s: %s %s\n--- cell ---\n%s", res.Error.Kind, res.Error.Pos, res.Error.Message, cell)
	}
	if res.Truncated || res.Rebuilt {
		return "", d, fmt.Errorf("output truncated or worker rebuilt\n--- cell ---\n%s", cell)
	}
	return res.Output, d, nil
}

// run opens a session over file, reads the whole input into data (untimed), then runs the
// idiom's cell runs times, timing each Exec.
func (r rlmRunner) run(ctx context.Context, d idiom, file string, runs int) (timing, error) {
	var t timing
	s, err := r.open(ctx, d.Lang, file)
	if err != nil {
		return t, err
	}
	defer s.Close()
	read := "data := text(ctx0)"
	if d.Lang == "js" {
		read = "const data = text(ctx0);"
	}
	if _, _, err := exec1(ctx, s, read); err != nil {
		return t, err
	}
	cell := d.cell()
	for range runs {
		out, dur, err := exec1(ctx, s, cell)
		if err != nil {
			return t, err
		}
		t.Out = append(t.Out, out)
		t.NS = append(t.NS, int64(dur))
	}
	return t, nil
}

// floor is the median time of a trivial cell in a session of lang: what every rlm time
// includes besides the idiom (validation, the round trip to the worker, the engine's set-up).
func (r rlmRunner) floor(ctx context.Context, lang, file string, runs int) (time.Duration, error) {
	s, err := r.open(ctx, lang, file)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	cell := "x := 1\n_ = x"
	if lang == "js" {
		cell = "let x = 1;"
	}
	var ns []int64
	for range max(runs, 5) {
		_, d, err := exec1(ctx, s, cell)
		if err != nil {
			return 0, err
		}
		ns = append(ns, int64(d))
	}
	return time.Duration(median(ns)), nil
}
