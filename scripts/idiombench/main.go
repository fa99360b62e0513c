// Command idiombench times the idioms models write, in rlm's engines, natively and in CPython,
// side by side (issue 19):
//
//	go run ./scripts/idiombench                  # every idiom, n = 1 MiB and 4n, median of 3
//	go run ./scripts/idiombench -runs 5 -n 2M -lang go -only 'regexp|json'
//	go run ./scripts/idiombench -json > idioms.json
//	go run ./scripts/idiombench -list            # the idioms and the cells, nothing run
//
// Each idiom is a cell written the way a model writes it (idioms.go): modern Go for the Go
// engine, modern JS for the JS engine. It runs over a generated input (inputs.go: log lines with
// non-ASCII text, a CSV table, JSON lines) of n bytes and of 4n bytes, in three contenders:
//
//   - rlm: the cell in a session of the library (rlm.OpenSession), so through the validator,
//     the confined worker and the engine (for Go the typed front end and yaegi, for JS goja),
//     as a user's cell runs. The session first reads the input (data := text(ctx0)), untimed;
//     then the cell's Exec is timed, round trip included. The "cell floor" in the header is a
//     trivial cell's time, which every rlm time includes.
//   - native: for Go, the same statements compiled by the toolchain (one generated program,
//     built once, the body in a function of data); for JS, the same cell under node.
//   - python3: the same computation in CPython, written as a Python programmer would: loops
//     where the cell loops, but list.sort() or a key where the cell sorts with a comparator,
//     so the sorting ratios compare idioms rather than the same number of calls.
//
// Only the computation is timed (the input is already in memory), in a process (or session)
// of its own per idiom and size, and the median of -runs runs is reported. Every run of every
// contender must print the same line (the idiom's checksum); the command fails, naming the
// idiom and the outputs, if any disagrees. That is what makes the ratios honest.
//
// n is 1 MiB by default (-n). The idioms that take rlm over a second at 4 MiB run at n/Div and
// 4n/Div instead (Div in idioms.go; the size column shows it), which keeps the default run
// near two minutes on two cores; -nodiv runs them all at n.
//
// How to read the table: "x native" and "x python3" are rlm's time over the contender's (above
// 1: rlm is slower). "gr" (growth) is the time at 4n over the time at n: about 4 for linear
// work, 16 for quadratic. SUPERLINEAR marks an rlm growth above 6; ">2x CPython" marks an rlm
// time over twice CPython's at 4n, followed by "(native 3.1x)" when the native time too is over
// twice CPython's (the library is slower there, not only the engine). The idioms so marked are
// listed at the end. On a busy machine a median of 3 can show a growth of 7 for linear work,
// so an idiom whose growth is over 6 is measured again with -confirm runs (7) and that second
// measurement is the one reported ("median of 7 runs" in its flags). Times at n include more
// of the cell floor, which pulls growth below 4 for the fastest idioms.
//
// += on strings is measured as models use it, on short strings (one per line): building one
// long string with += is quadratic natively too and would say nothing about the engine.
// The inputs keep their non-ASCII text in the Basic Multilingual Plane, where a JS string's
// length counts code points as Python's len does, so that the checksums can agree.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm"
)

// The thresholds of the flags.
const (
	superlinear = 6.0 // growth n -> 4n
	slowVsPy    = 2.0 // rlm time over CPython's, at 4n
)

type sizeResult struct {
	Bytes    int     `json:"bytes"`
	RLMNS    int64   `json:"rlm_ns"`
	NativeNS int64   `json:"native_ns"`
	PythonNS int64   `json:"python_ns"`
	VsNative float64 `json:"vs_native"`
	VsPython float64 `json:"vs_python"`
}

type result struct {
	Lang         string       `json:"lang"`
	Idiom        string       `json:"idiom"`
	Input        string       `json:"input"`
	Note         string       `json:"note,omitempty"`
	Div          int          `json:"div"`       // the idiom ran at n/div and 4n/div
	Runs         int          `json:"runs"`      // the median is of this many runs (more when measured again)
	Checksums    []string     `json:"checksums"` // at n and 4n
	Sizes        []sizeResult `json:"sizes"`     // n and 4n
	GrowthRLM    float64      `json:"growth_rlm"`
	GrowthNative float64      `json:"growth_native"`
	GrowthPython float64      `json:"growth_python"`
	Superlinear  bool         `json:"superlinear"`
	SlowVsPython bool         `json:"slow_vs_python"`
}

type report struct {
	Machine map[string]string `json:"machine"`
	N       int               `json:"n"`
	Runs    int               `json:"runs"`
	FloorNS map[string]int64  `json:"cell_floor_ns"`
	Results []result          `json:"results"`
}

func main() {
	rlm.MaybeServeWorker() // this executable is also the sessions' worker
	var (
		sizeFlag = flag.String("n", "1M", "input size n in bytes (K and M suffixes: 1024, 1024²); every idiom also runs at 4n")
		runs     = flag.Int("runs", 3, "runs per idiom, size and contender; the median is reported")
		confirm  = flag.Int("confirm", 7, "runs of a second measurement of an idiom whose rlm growth is over 6, to tell noise from superlinear time (0: none)")
		langs    = flag.String("lang", "go,js", "the languages to run")
		only     = flag.String("only", "", "run only the idioms whose name matches this regular expression")
		asJSON   = flag.Bool("json", false, "write the results as JSON instead of a table")
		dir      = flag.String("dir", "", "directory for the inputs and generated programs (default: a temporary one, removed)")
		mem      = flag.Int64("worker-mem", 0, "rlm worker memory in bytes (0: the default, 512 MiB)")
		list     = flag.Bool("list", false, "print the idioms and their cells, run nothing")
		noDiv    = flag.Bool("nodiv", false, "run every idiom at n and 4n (by default the slowest run at n/Div, see idioms.go)")
	)
	flag.Parse()
	n, err := parseSize(*sizeFlag)
	if err != nil || n <= 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "idiombench: -n needs a size (1M, 512K, 2000000) and -runs at least 1")
		os.Exit(2)
	}
	idioms, err := selectIdioms(*langs, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "idiombench:", err)
		os.Exit(2)
	}
	if *list {
		for _, d := range idioms {
			fmt.Printf("=== %s/%s (input: %s, n/%d) %s\n%s\n--- python3\n%s\n\n", d.Lang, d.Name, d.Input, d.div(), d.Note, d.cell(), d.Py)
		}
		return
	}
	if *noDiv {
		for i := range idioms {
			idioms[i].Div = 1
		}
	}
	rep, err := run(context.Background(), idioms, n, *runs, *confirm, *dir, *mem)
	if err != nil {
		fmt.Fprintln(os.Stderr, "idiombench:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return
	}
	printTable(os.Stdout, rep)
}

func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	f, err := strconv.ParseFloat(s, 64)
	return int(f * float64(mult)), err
}

func selectIdioms(langs, only string) ([]idiom, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, fmt.Errorf("-only: %v", err)
	}
	var out []idiom
	for _, l := range strings.Split(langs, ",") {
		var all []idiom
		switch strings.TrimSpace(l) {
		case "go":
			all = goIdioms
		case "js":
			all = jsIdioms
		default:
			return nil, fmt.Errorf("-lang: no language %q (go, js)", l)
		}
		for _, d := range all {
			if re.MatchString(d.Name) {
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no idiom matches")
	}
	return out, nil
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

func run(ctx context.Context, idioms []idiom, n, runs, confirm int, dir string, mem int64) (*report, error) {
	began := time.Now()
	for _, tool := range []string{"go", "node", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s is needed: %v", tool, err)
		}
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "idiombench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rep := &report{Machine: machine(), N: n, Runs: runs, FloorNS: map[string]int64{}}

	progress("idiombench: inputs of n = %d and 4n bytes (n/Div for some idioms), programs in %s", n, dir)
	inputs := map[string]string{} // kind and size -> path
	for _, d := range idioms {
		for _, size := range []int{n / d.div(), 4 * n / d.div()} {
			key := fmt.Sprint(d.Input, size)
			if inputs[key] != "" {
				continue
			}
			path, err := writeInput(dir, d.Input, size)
			if err != nil {
				return nil, err
			}
			inputs[key] = path
		}
	}
	var goIdioms, jsIdioms []idiom
	for _, d := range idioms {
		if d.Lang == "go" {
			goIdioms = append(goIdioms, d)
		} else {
			jsIdioms = append(jsIdioms, d)
		}
	}
	var nativeGo, nodeJS string
	var err error
	if len(goIdioms) > 0 {
		progress("idiombench: building the native Go program")
		if nativeGo, err = buildNativeGo(dir, goIdioms); err != nil {
			return nil, err
		}
	}
	if len(jsIdioms) > 0 {
		if nodeJS, err = writeNode(dir, jsIdioms); err != nil {
			return nil, err
		}
	}
	py, err := writePython(dir, idioms)
	if err != nil {
		return nil, err
	}
	home := dir + "/rlm-home"
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	rr := rlmRunner{home: home, memory: mem}
	for _, lang := range []string{"go", "js"} {
		if lang == "go" && len(goIdioms) == 0 || lang == "js" && len(jsIdioms) == 0 {
			continue
		}
		f, err := rr.floor(ctx, lang, inputs[fmt.Sprint(idioms[0].Input, n/idioms[0].div())], runs)
		if err != nil {
			return nil, fmt.Errorf("rlm %s session: %v", lang, err)
		}
		rep.FloorNS[lang] = int64(f)
	}

	b := bench{rr: rr, nativeGo: nativeGo, nodeJS: nodeJS, py: py, inputs: inputs, n: n, began: began}
	for _, d := range idioms {
		res, err := b.measure(ctx, d, runs)
		if err != nil {
			return nil, err
		}
		if res.Superlinear && confirm > runs {
			progress("%5.0fs %s/%s: growth %.1f; measuring again, %d runs", time.Since(began).Seconds(), d.Lang, d.Name, res.GrowthRLM, confirm)
			if res, err = b.measure(ctx, d, confirm); err != nil {
				return nil, err
			}
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// agree returns the one output every run of every contender printed, or an error listing them.
func agree(outs map[string]timing) (string, error) {
	want := outs["rlm"].Out[0]
	same := true
	for _, t := range outs {
		for _, o := range t.Out {
			same = same && o == want
		}
	}
	if same && strings.Count(want, "\n") == 1 && strings.HasSuffix(want, "\n") {
		return strings.TrimSuffix(want, "\n"), nil
	}
	var b strings.Builder
	for _, name := range []string{"rlm", "native", "python3"} {
		for i, o := range outs[name].Out {
			fmt.Fprintf(&b, "  %-8s run %d: %q\n", name, i+1, o)
		}
	}
	return "", fmt.Errorf("%s(each run must print the same one line)", b.String())
}

func median(ns []int64) int64 {
	s := slices.Clone(ns)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 1, 64) + "ms" }

func output(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func machine() map[string]string {
	load, _ := os.ReadFile("/proc/loadavg")
	return map[string]string{
		"cores":   strconv.Itoa(runtime.NumCPU()),
		"load":    strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "),
		"go":      runtime.Version(),
		"node":    output("node", "--version"),
		"python3": strings.TrimPrefix(output("python3", "--version"), "Python "),
		"commit":  output("git", "rev-parse", "--short", "HEAD"),
		"date":    time.Now().UTC().Format(time.RFC3339),
	}
}

func mb(bytes int) string {
	if bytes < 1<<20 {
		return strconv.Itoa(bytes>>10) + "K"
	}
	return strconv.FormatFloat(float64(bytes)/(1<<20), 'f', 1, 64) + "M"
}

func printTable(w io.Writer, rep *report) {
	m := rep.Machine
	fmt.Fprintf(w, "idiom benchmark: %s cores, load %s, %s, node %s, python3 %s, commit %s\n", m["cores"], m["load"], m["go"], m["node"], m["python3"], m["commit"])
	fmt.Fprintf(w, "n = %d bytes and 4n, median of %d runs; rlm cell floor (a trivial cell): go %s, js %s\n", rep.N, rep.Runs, ms(rep.FloorNS["go"]), ms(rep.FloorNS["js"]))
	fmt.Fprintf(w, "native: Go compiled by %s for go idioms, node for js idioms; x = rlm time / contender time; gr = growth, time at 4n / time at n (rlm, native, python3)\n", m["go"])
	fmt.Fprintf(w, "a size below n: the idiom runs at n/Div and 4n/Div (the slowest ones; -nodiv runs all at n)\n\n")
	const row = "%-4s  %-16s  %6s  %9s  %9s  %10s  %8s  %9s  %6s  %6s  %7s  %s\n"
	fmt.Fprintf(w, row, "lang", "idiom", "size", "rlm ms", "native ms", "python3 ms", "x native", "x python3", "gr rlm", "gr nat", "gr py3", "flags")
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	for _, r := range rep.Results {
		for i, s := range r.Sizes {
			lang, name, g, gn, gp, flags := "", "", "", "", "", ""
			if i == 0 {
				lang, name = r.Lang, r.Idiom
			} else {
				g, gn, gp = f(r.GrowthRLM, 2), f(r.GrowthNative, 2), f(r.GrowthPython, 2)
				flags = strings.Join(flagsOf(r, rep.Runs), ", ")
			}
			fmt.Fprintf(w, row, lang, name, mb(s.Bytes), f(float64(s.RLMNS)/1e6, 1), f(float64(s.NativeNS)/1e6, 2),
				f(float64(s.PythonNS)/1e6, 1), f(s.VsNative, 1), f(s.VsPython, 2), g, gn, gp, flags)
		}
	}
	fmt.Fprintf(w, "\nflagged (rlm growth > %g, or rlm over %gx CPython at 4n):\n", superlinear, slowVsPy)
	for _, lang := range []string{"go", "js"} {
		var names []string
		for _, r := range rep.Results {
			if r.Lang == lang && (r.Superlinear || r.SlowVsPython) {
				names = append(names, fmt.Sprintf("%s (%s)", r.Idiom, strings.Join(flagsOf(r, rep.Runs), ", ")))
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", lang, strings.Join(names, "; "))
		}
	}
}

func flagsOf(r result, runs int) []string {
	var flags []string
	if r.Runs != runs {
		flags = append(flags, fmt.Sprintf("median of %d runs", r.Runs))
	}
	if r.Superlinear {
		s := fmt.Sprintf("SUPERLINEAR %.1f", r.GrowthRLM)
		if r.GrowthNative > superlinear {
			s += " (native too)"
		}
		flags = append(flags, s)
	}
	if r.SlowVsPython {
		s := fmt.Sprintf(">2x CPython %.1fx", r.Sizes[1].VsPython)
		if nat := ratio(r.Sizes[1].NativeNS, r.Sizes[1].PythonNS); nat > slowVsPy {
			s += fmt.Sprintf(" (native %.1fx)", nat) // the library is slower than CPython's, not only the engine
		}
		flags = append(flags, s)
	}
	return flags
}

// bench holds what measuring an idiom needs: the programs and the inputs.
type bench struct {
	rr                   rlmRunner
	nativeGo, nodeJS, py string
	inputs               map[string]string // kind and size -> path
	n                    int
	began                time.Time
}

// measure runs an idiom at n and 4n in every contender, runs times each, and checks that they
// all print the same line.
func (b bench) measure(ctx context.Context, d idiom, runs int) (result, error) {
	res := result{Lang: d.Lang, Idiom: d.Name, Input: d.Input, Note: d.Note, Div: d.div(), Runs: runs}
	for _, size := range []int{b.n / d.div(), 4 * b.n / d.div()} {
		file := b.inputs[fmt.Sprint(d.Input, size)]
		outs := map[string]timing{}
		for _, c := range []string{"rlm", "native", "python3"} {
			start := time.Now()
			var t timing
			var err error
			switch {
			case c == "rlm":
				t, err = b.rr.run(ctx, d, file, runs)
			case c == "native" && d.Lang == "go":
				t, err = runProcess(ctx, b.nativeGo, d.Name, file, strconv.Itoa(runs))
			case c == "native":
				t, err = runProcess(ctx, "node", b.nodeJS, d.Name, file, strconv.Itoa(runs))
			default:
				t, err = runProcess(ctx, "python3", b.py, d.Lang+"/"+d.Name, file, strconv.Itoa(runs))
			}
			if err != nil {
				return res, fmt.Errorf("%s/%s at %d bytes, %s: %v", d.Lang, d.Name, size, c, err)
			}
			var timed int64
			for _, ns := range t.NS {
				timed += ns
			}
			if untimed := time.Since(start) - time.Duration(timed); untimed > 10*time.Second {
				progress("note: %s/%s at %d bytes, %s: %.0fs outside the timed runs (start-up, reading the input); a busy machine?",
					d.Lang, d.Name, size, c, untimed.Seconds())
			}
			outs[c] = t
		}
		sum, err := agree(outs)
		if err != nil {
			return res, fmt.Errorf("%s/%s at %d bytes: the contenders disagree:\n%v", d.Lang, d.Name, size, err)
		}
		sr := sizeResult{Bytes: size, RLMNS: median(outs["rlm"].NS), NativeNS: median(outs["native"].NS), PythonNS: median(outs["python3"].NS)}
		sr.VsNative = ratio(sr.RLMNS, sr.NativeNS)
		sr.VsPython = ratio(sr.RLMNS, sr.PythonNS)
		res.Sizes = append(res.Sizes, sr)
		res.Checksums = append(res.Checksums, sum)
		progress("%5.0fs %s/%-16s %8d bytes  rlm %9s  native %9s  python3 %9s  %s", time.Since(b.began).Seconds(), d.Lang, d.Name, size,
			ms(sr.RLMNS), ms(sr.NativeNS), ms(sr.PythonNS), sum)
	}
	small, large := res.Sizes[0], res.Sizes[1]
	res.GrowthRLM = ratio(large.RLMNS, small.RLMNS)
	res.GrowthNative = ratio(large.NativeNS, small.NativeNS)
	res.GrowthPython = ratio(large.PythonNS, small.PythonNS)
	res.Superlinear = res.GrowthRLM > superlinear
	res.SlowVsPython = large.VsPython > slowVsPy
	return res, nil
}
