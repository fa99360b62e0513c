package validator_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// hostileJS are JS sources built to cost goja's parser the most within the pre-check's bounds:
// each is either rejected unparsed, or parsed within maxParseRSS and maxParseCPU.
func hostileJS() map[string]string {
	r := strings.Repeat
	fill := func(unit string) string { return r(unit, limits.SourceBytes/len(unit)) }
	return map[string]string{
		"baseline, one token": "1",
		// Issue 17, finding 3: a keyword as a property name made the lexer read a regex.
		"property in, parens": "x.in / " + r("(", 130000) + "1 / g",
		"property in, arrows": "x.in / " + r("a=>", 42000) + "1 / g",
		// What goja reads after a syntax error, skipping tokens to the next statement keyword:
		// '/' as a division and '`' as a plain token.
		"skipped template":   "x = ) `if" + r("(", 130000) + "`",
		"skipped regex":      "x = ) ( / if" + r("(", 130000) + " /",
		"unicode line end":   "// \u2028" + r("(", 130000),
		"string continued":   "\"\\\r\n\"" + r("(", 130000),
		"hashbang template":  "#!`\n" + r("(", 130000) + "\n`",
		"regex flag keyword": "/x/in /\"/ ; " + r("(", 130000) + "\"",
		// Nesting and arrows at the limits, filling the size cap.
		"depth at limit, parens":   fill(r("(", 255) + "1" + r(")", 255) + ";\n"),
		"depth at limit, arrays":   fill(r("[", 255) + r("]", 255) + ";\n"),
		"depth at limit, objects":  fill("x=" + r("{a:", 254) + "1" + r("}", 254) + ";\n"),
		"depth at limit, not":      fill(r("!", 255) + "x;\n"),
		"depth at limit, ternary":  fill(r("a?b:", 255) + "c;\n"),
		"depth at limit, if":       fill(r("if(a)", 255) + ";\n"),
		"depth at limit, template": fill(r("`${", 127) + "1" + r("}`", 127) + ";\n"),
		"templates, keyword last":  fill(r("`${", 127) + "1" + r("}`", 127) + ";\n")[:120000] + ";if(1);",
		"arrows at limit, chained": r("x=>", 255) + "1;\n" + r("(a,b)=>0;\n", 768),
		"arrows at limit, parens":  r("((a)=>", 255) + "1" + r(")", 255) + ";\n" + r("((a)=>(b)=>0);\n", 384),
		"arrows at limit, params":  r("(a=(b=>0))=>", 255) + "1;\n" + r("(a=(b=>0))=>0;\n", 256),
		// goja reads a parenthesised arrow parameter list twice, so lists nested in default
		// values cost 2^k.
		"reparse, defaults": "x=" + r("(a=", 24) + "0" + r(")=>0", 24),
		"reparse, async":    "x=" + r("async(a=", 24) + "0" + r(")=>0", 24),
		"reparse, pattern":  "x=" + r("({a=", 24) + "0" + r("})=>0", 24),
		"reparse, at limit": "x=" + r("(a=", 14) + "0" + r(")=>0", 14) + ";\n" + r("x=1;\n", 20000),
		// goja goes back further from an => that follows no parameter list where an arrow
		// function may start, and from a yield's ++ on no reference (issue 17, second red team,
		// finding 4: the red team's form, at a statement start after debugger and a line break).
		"reparse, after debugger": nestJS(reparseForms["after debugger"], "0", 22),
		"reparse, two lists":      nestJS(reparseForms["two lists"], "b", 22),
		"reparse, brackets taken": nestJS(reparseForms["brackets taken"], "b", 22),
		"reparse, yield ++":       nestJS(reparseForms["yield ++(...)"], "b", 22),
		// The same in what reads as a template unless goja skips tokens after a syntax error.
		"reparse, skipped template": "x = ) `if(0);\n" + nestJS(reparseForms["two lists"], "b", 22) + "`",
		"reparse, skipped, yield":   "x = ) `if(0);\n" + nestJS(reparseForms["yield, yield"], "b", 14) + "`",
		// goja's error recovery re-enters the parse inside the brackets it skipped out of, so
		// nesting accumulates over repeated syntax errors the pre-scan cannot see.
		"recovery, parens":   fill("do((((((x=;))))))"),
		"recovery, arrays":   fill("do[[[[[[[,;]]]]]]]"),
		"recovery, assigned": fill("do x=[[[[[[[;]]]]]]];"),
	}
}

// hostileGo are Go sources built to cost go/parser (and the checks after it) the most within the
// pre-check's bounds.
func hostileGo() map[string]string {
	r := strings.Repeat
	fill := func(unit string) string { return r(unit, limits.SourceBytes/len(unit)) }
	return map[string]string{
		"go depth at limit, parens":  fill("_ = " + r("(", 250) + "1" + r(")", 250) + "\n"),
		"go depth at limit, blocks":  fill(r("{", 250) + r("}", 250) + "\n"),
		"go depth at limit, unary":   fill("_ = " + r("^", 250) + "1\n"),
		"go depth at limit, types":   fill("var _ " + r("[]", 250) + "int\n"),
		"go depth at limit, funcs":   fill("var _ = " + r("func() {", 120) + r("}", 120) + "\n"),
		"go depth at limit, literal": fill("var _ = " + r("[]any{", 120) + r("}", 120) + "\n"),
		"go depth at limit, calls":   fill("_ = f" + r("()", 250) + "\n"),
		"go long constant chain":     "const c0 = 1\n" + constChainLines(4700),
		"go many errors":             fill("x := ) ] } ;\n"),
		"go nested errors":           fill(r("{", 100) + "x :=" + r("}", 100) + "\n"),
	}
}

func constChainLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "const c%d = c%d + c%d\n", i, i-1, i-1)
	}
	return b.String()
}

// Bounds on one Validate of any source, parse included, measured in a process of its own.
const (
	maxParseRSS = 64 << 20
	maxParseCPU = 2 * time.Second
)

// TestParserWorstCase validates each hostile source in a child process and reports its peak
// resident memory and CPU time (go test ./validator -run ParserWorstCase -v prints them). The
// figures SECURITY.md states come from here.
func TestParserWorstCase(t *testing.T) {
	if src := os.Getenv("RLM_VALIDATE_ONE"); src != "" {
		validateOne(src)
		return
	}
	if testing.Short() {
		t.Skip("starts a process per source")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the child's peak memory from /proc")
	}
	sources := hostileJS()
	for name, src := range hostileGo() {
		sources[name] = src
	}
	for name, src := range sources {
		cmd := exec.Command(os.Args[0], "-test.run=^TestParserWorstCase$")
		cmd.Env = append(os.Environ(), "RLM_VALIDATE_ONE="+name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
			continue
		}
		// The child's peak comes from its own VmHWM: rusage's maxrss of a child started by a
		// vfork-style clone keeps the parent's peak across exec, so it grows with the tests
		// that ran before in this process.
		use := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(use.Utime.Nano() + use.Stime.Nano())
		lines := strings.SplitN(string(out), "\n", 3)
		verdict := strings.TrimSpace(lines[0])
		var hwmKB int64
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "VmHWM:") {
			t.Errorf("%s: the child did not report its peak memory:\n%s", name, out)
			continue
		}
		fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(lines[1], "VmHWM:")), "%d", &hwmKB)
		rss := hwmKB << 10
		t.Logf("%-26s %6d bytes  rss %4d MB  cpu %6v  %s", name, len(src), rss>>20, cpu.Round(time.Millisecond), verdict)
		if rss > maxParseRSS || cpu > maxParseCPU {
			t.Errorf("%s: validating took %d MB and %v, over %d MB and %v", name, rss>>20, cpu, maxParseRSS>>20, maxParseCPU)
		}
	}
}

// validateOne validates one hostile source and prints what became of it.
func validateOne(name string) {
	lang, src := source.JS, hostileJS()[name]
	if strings.HasPrefix(name, "go ") {
		lang, src = source.Go, hostileGo()[name]
	}
	if src == "" {
		fmt.Println("no such source")
		os.Exit(2)
	}
	res, err := validator.Validate(lang, "hostile", []byte(src), validator.Policy{})
	switch {
	case err != nil:
		fmt.Println(err)
	case res.Go == nil && res.JS == nil && len(res.Findings) > 0 && res.Findings[0].Rule != source.Syntax:
		msg := res.Findings[0].Message
		fmt.Println("rejected unparsed:", msg[:min(60, len(msg))])
	default:
		fmt.Printf("parsed: %d findings\n", len(res.Findings))
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Println(l)
		}
	}
}

// recoveryUnits are statements whose repetition nests goja's error recovery deeper at each
// syntax error; seeds for FuzzJSPrecheckBound.
var recoveryUnits = []string{
	"do x=[[[[;]]]];", "var x=[[[[;]]]];", "throw [[[[;]]]];", "try{x=[[[[;]]]]}finally{}",
	"do x=[[[[[[[=]]]]]]];", "do x={a:{a:{a:{a:{a:;}}}}};", "do[;];", "do x=[[[[{a b}]]]];",
	"do x=[[[[a?b;]]]];", "do x=[[[[a.;]]]];", "if(1){{{{ x = ; }}}}", "do((((((x=;))))))",
	"x = ) `if(", "x.in / (", "x = ) ( / if(", "// \u2028(", "\"\\\r\n\"(", "/x/in /\"/ ; (",
}

// FuzzJSPrecheckBound: any JS source the pre-check lets through parses within bounded stack
// and time. A source is a unit repeated up to 32 KiB (nesting costs build up over repetitions).
//
//	go test ./validator -run '^$' -fuzz FuzzJSPrecheckBound -parallel 2
func FuzzJSPrecheckBound(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if c.Lang == "js" {
			f.Add(string(c.Source), uint16(1))
		}
	}
	for _, u := range recoveryUnits {
		f.Add(u, uint16(4000))
	}
	for _, form := range reparseForms { // nested, and as units to repeat
		f.Add(nestJS(form, "b", 22), uint16(1))
		f.Add(form, uint16(2000))
	}
	f.Fuzz(func(t *testing.T, unit string, reps uint16) {
		if unit == "" {
			return
		}
		src := strings.Repeat(unit, max(1, min(int(reps), (32<<10)/len(unit))))
		stack, took, res := validateMeasured(src)
		if len(res.Findings) > 0 && (res.Findings[0].Rule == source.Depth || res.Findings[0].Rule == source.Size) {
			return // rejected unparsed
		}
		if stack > 16<<20 || took > 2*time.Second {
			t.Errorf("%d bytes passed the pre-check and took %d MB of stack and %v to validate: %.80q", len(src), stack>>20, took, src)
		}
	})
}

// validateMeasured validates a JS source on a goroutine of its own and returns how far the
// goroutines' stacks grew meanwhile (stacks only shrink at a collection) and how long it took.
func validateMeasured(src string) (stack uint64, took time.Duration, res *validator.Result) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		res, _ = validator.Validate(source.JS, "fuzz.js", []byte(src), validator.Policy{})
		took = time.Since(start)
		runtime.ReadMemStats(&after)
	}()
	<-done
	if after.StackInuse > before.StackInuse {
		stack = after.StackInuse - before.StackInuse
	}
	return stack, took, res
}
