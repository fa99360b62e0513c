package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
)

// These tests run cells as models write them, through sessions with the real engines (in
// unconfined workers: the confinement layers have their own tests), and check what the model
// is told against what the sandbox does.

// apiOptions opens real engines over context files with the given contents.
func apiOptions(t *testing.T, lang string, contents ...string) Options {
	t.Helper()
	dir := t.TempDir()
	o := testOptions("real:none")
	o.Lang, o.AllowDegraded = lang, true
	o.CellTimeout, o.KillGrace = 20*time.Second, time.Second
	for i, c := range contents {
		p := filepath.Join(dir, fmt.Sprintf("ctx%d.txt", i))
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Contexts = append(o.Contexts, p)
	}
	return o
}

// logLines is a log of n lines, every 7th an ERROR: about 60 bytes a line.
func logLines(n int) string {
	var b strings.Builder
	for i := range n {
		level := "INFO "
		if i%7 == 0 {
			level = "ERROR"
		}
		fmt.Fprintf(&b, "2026-11-01T10:%02d:%02dZ %s [svc-%d] request %d served\n", i/60%60, i%60, level, i%5, i)
	}
	return b.String()
}

type cellCase struct {
	name, lang, src string
	want            string // the output, exactly
	err             string // or a substring of the error
}

func runCases(t *testing.T, cases []cellCase, contents ...string) {
	t.Helper()
	sessions := map[string]*Session{}
	for _, c := range cases {
		s := sessions[c.lang]
		if s == nil {
			s = open(t, apiOptions(t, c.lang, contents...))
			sessions[c.lang] = s
		}
		r := run(t, s, c.src)
		switch {
		case c.err != "":
			if r.Err == nil || !strings.Contains(r.Err.Error(), c.err) {
				t.Errorf("%s (%s): err %v, want one containing %q (stdout %q)", c.name, c.lang, r.Err, c.err, r.Stdout)
			}
		case r.Err != nil || r.Stdout != c.want:
			t.Errorf("%s (%s):\n got %q, err %v\nwant %q", c.name, c.lang, r.Stdout, r.Err, c.want)
		}
	}
}

// TestContextReadsAreNotCounted: a cell may read a context in as many pieces as it likes; before,
// the 51st call failed with "tool call limit reached: 50 of 50 used" and the 129th peek with
// "slice limit reached: 128 of 128 used".
func TestContextReadsAreNotCounted(t *testing.T) {
	log := logLines(20_000) // about 900,000 characters: 57 peeks of 16,000
	nerr := fmt.Sprint(strings.Count(log, "ERROR"))
	lines := fmt.Sprint(strings.Count(log, "\n"))
	runCases(t, []cellCase{
		{"peek loop", "go", `import "strings"

n := length(context)
lines := 0
for off := 0; off < n; off += 16000 {
	lines += strings.Count(peek(context, off, 16000), "\n")
}
fmt.Println(lines)`, lines + "\n", ""},
		{"300 counts", "go", `
total := 0
for i := 0; i < 300; i++ {
	total += count(context, "ERROR")
}
fmt.Println(total / 300)`, nerr + "\n", ""},
		{"peek loop", "js", `
let lines = 0;
for (let off = 0; off < length(context); off += 16000) {
  lines += (peek(context, off, 16000).match(/\n/g) || []).length;
}
console.log(lines);`, lines + "\n", ""},
		{"chunks then peeks", "js", `
const parts = chunk(context, 5000, 0);
let n = 0;
for (const p of parts) n += peek(context, p.start, p.end - p.start).split("\n").length - 1;
print(parts.length > 128, n);`, "true 20000\n", ""},
	}, log)
}

// TestText: text(ctx) is the whole context, in both languages; past Limits.TextChars it is an
// error that says how to read the context instead.
func TestText(t *testing.T) {
	log := logLines(2_000)
	want := fmt.Sprintf("%d %d\n", len(log), strings.Count(log, "\n"))
	runCases(t, []cellCase{
		{"text", "go", `import "strings"

t := text(context)
fmt.Println(len(t), len(strings.Split(t, "\n"))-1)`, want, ""},
		{"text", "js", `
const t = text(context)
print(t.length, t.split("\n").length - 1)`, want, ""},
	}, log)
	for _, lang := range []string{"go", "js"} {
		o := apiOptions(t, lang, log)
		o.Limits.TextChars = 1000
		src := map[string]string{"go": "x := text(context)", "js": "const x = text(context)"}[lang]
		r := run(t, open(t, o), src)
		want := fmt.Sprintf("text(ctx0): the context is %d characters, more than text returns (1000); read it in pieces: peek(ctx, offset, 16000) in a loop over offsets, or chunk(ctx, size, overlap)", len(log))
		if !errors.Is(r.Err, fault.Limit) || !strings.Contains(r.Err.Error(), want) {
			t.Errorf("%s: text over the cap: %v\nwant a limit error containing %q", lang, r.Err, want)
		}
	}
}

// TestSearchAsModelsWriteIt: the code models write over search results works as it did, and the
// result says when it holds only a page.
func TestSearchAsModelsWriteIt(t *testing.T) {
	log := logLines(3_500) // 500 ERROR lines
	runCases(t, []cellCase{
		{"range, len, index", "go", `import "strings"

ms := search(context, "ERROR")
n := 0
for _, m := range ms {
	if strings.Contains(m.LineText, "request") {
		n++
	}
}
fmt.Println(len(ms), n, ms[0].Text, ms[0].Line, ms[0].Total, ms[len(ms)-1].Index)`, "200 200 ERROR 1 500 199\n", ""},
		{"next page", "go", `
page2 := search(context, "ERROR", 200)
last := search(context, "ERROR", 400)
fmt.Println(len(page2), page2[0].Index, page2[0].Line, len(last), last[len(last)-1].Index+1 == last[0].Total)`, "200 200 1401 100 true\n", ""},
		{"refs", "go", `m := search(context, "request 7 ")[0]
fmt.Println(peek(context, m.Start, m.End-m.Start) == m.Text, m.Ref == fmt.Sprintf("ctx0[%d:%d]", m.Start, m.End))`, "true true\n", ""},
		{"printed note", "go", `print(len(search(context, "ERROR", 499)), search(context, "ERROR", 10)[0].Index)`, "1 10\n", ""},
		{"for of, length, index", "js", `
const ms = search(context, /ERROR/);
let n = 0;
for (const m of ms) if (m.line_text.includes("request")) n++;
print(ms.length, n, ms[0].text, ms[0].line, ms.total, ms.truncated, ms.next, ms.at(-1).index);`, "200 200 ERROR 1 500 true 200 199\n", ""},
		{"paging loop", "js", `
let seen = 0, from = 0;
for (;;) {
  const page = search(context, "ERROR", from);
  seen += page.length;
  if (!page.truncated) break;
  from = page.next;
}
print(seen, JSON.stringify(search(context, "ERROR").slice(0, 1).map(m => m.start)));`, "500 [21]\n", ""},
		{"a page keeps its fields", "js", `const p = search(context, "request 1[0-9]{3} ", 998); print(p.map(m => m.index), p.total, p.truncated)`,
			"[998,999] 1000 false\n", ""},
	}, log)
}

// TestContextVariables: ctx0, ctx1, … exist in both languages, as the first message says.
func TestContextVariables(t *testing.T) {
	runCases(t, []cellCase{
		{"ctx1", "go", `fmt.Println(length(ctx1), peek(ctx1, 0, 5), length(ctx0) == length(context), ctx1.Name)`, "11 world true ctx1\n", ""},
		{"ctx1", "js", `print(length(ctx1), peek(ctx1, 0, 5), ctx0 === context, text(ctx1), peek("ctx1", 6, 5))`, "11 world true world again again\n", ""},
		{"no ctx2", "js", `print(ctx2)`, "", "ctx2 is not defined"},
		{"bad name", "js", `peek("ctx7", 0, 1)`, "", `no context named "ctx7"; the contexts are ctx0 … ctx1`},
	}, "hello", "world again")
}

// TestConfiguredLimits: a cap set in Options.Limits is the one the session enforces, in both
// languages.
func TestConfiguredLimits(t *testing.T) {
	log := logLines(1_000)
	for _, lang := range []string{"go", "js"} {
		o := apiOptions(t, lang, log)
		o.Limits = engine.Limits{PeekChars: 100, SearchResults: 3, MatchChars: 10, Chunks: 4, TallyResults: 2, OutputChars: 20, FinalChars: 5}
		s := open(t, o)
		cells := map[string][2]string{ // lang-specific source, then the expected output or error
			"peek":   {`peek(context, 0, 101)`, "peek length 101 exceeds 100"},
			"search": {`print(len(search(context, "INFO")), search(context, "served")[0].LineText)`, "3 …0 served\n"},
			"chunk":  {`chunk(context, 10, 0)`, "more than 4; use size ≥"},
			"tally":  {"t := tally(context, `svc-\\d`)\nprint(len(t), t[0].Distinct)", "2 5\n"},
			"output": {`import "strings"
print(strings.Repeat("x", 30))`, strings.Repeat("x", 20) + "\n[output truncated: 31 characters in total, the first 20 shown]\n"},
			"final": {`FINAL("123456")`, "the answer (FINAL or FINAL_VAR) is 6 characters, over the cap of 5"},
		}
		if lang == "js" {
			cells["search"] = [2]string{`print(search(context, "INFO").length, search(context, "served")[0].line_text)`, "3 …0 served\n"}
			cells["output"] = [2]string{`print("x".repeat(30))`, cells["output"][1]}
			cells["tally"] = [2]string{`const t = tally(context, /svc-\d/); print(t.length, t[0].distinct)`, "2 5\n"}
		}
		for name, c := range cells {
			r := run(t, s, c[0])
			got := r.Stdout
			if r.Err != nil {
				got = r.Err.Error()
			}
			if !strings.Contains(got, c[1]) {
				t.Errorf("%s %s: got %q, want %q in it", lang, name, got, c[1])
			}
		}
	}
}

// TestFinalCap: one cap on the answer, in characters, for FINAL and FINAL_VAR in both
// languages. Before, a Go FINAL of 40 MB passed through and JS refused more than 1 MB (bytes).
func TestFinalCap(t *testing.T) {
	over := "the answer (FINAL or FINAL_VAR) is 1,000,001 characters, over the cap of 1,000,000; answer with a summary instead"
	runCases(t, []cellCase{
		{"FINAL at the cap", "go", `import "strings"
FINAL(strings.Repeat("é", 1_000_000))`, "", ""},
		{"FINAL over", "go", `FINAL(strings.Repeat("x", 1_000_001))`, "", over},
		{"FINAL_VAR over", "go", `var answer string = strings.Repeat("x", 1_000_001)
FINAL_VAR("answer")`, "", over},
		{"FINAL of 40 MB", "go", `var sb strings.Builder
for i := 0; i < 40; i++ {
	sb.WriteString(strings.Repeat("x", 1<<20))
}
FINAL(sb.String())`, "", "is 41,943,040 characters, over the cap of 1,000,000"},
		{"FINAL at the cap", "js", `FINAL("é".repeat(1e6))`, "", ""},
		{"FINAL over", "js", `FINAL("x".repeat(1e6 + 1))`, "", over},
		{"FINAL_VAR over", "js", `const answer = "x".repeat(1e6 + 1); FINAL_VAR("answer")`, "", over},
		{"an object", "js", `FINAL({ rows: Array.from({ length: 300000 }, (_, i) => i) })`, "", "is 1,988,900 characters, over the cap"},
		{"a big object", "js", `FINAL({ rows: Array.from({ length: 1500000 }, (_, i) => i) })`, "", "is more than 1,000,000 characters, over the cap"},
	})
	// A capped answer is not recorded.
	s := open(t, apiOptions(t, "go"))
	if r := run(t, s, `import "strings"
FINAL(strings.Repeat("x", 1_000_001))`); r.Final != nil || !errors.Is(r.Err, fault.Limit) {
		t.Errorf("over the cap: final recorded (%v), err %v", r.Final != nil, r.Err)
	}
	if r := run(t, s, `FINAL(strings.Repeat("x", 1_000_000))`); r.Final == nil || len(*r.Final) != 1_000_000 {
		t.Errorf("at the cap: no final, err %v", r.Err)
	}
}

// TestFileCallBudget: the file tools share a budget per session (Limits.FileCalls); the context
// tools do not count against it.
func TestFileCallBudget(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := apiOptions(t, "js", "some context")
	o.Roots, o.Limits.FileCalls = []string{root}, 3
	s := open(t, o)
	p := quote(filepath.Join(root, "a.txt"))
	if r := run(t, s, `for (let i = 0; i < 100; i++) peek(context, 0, 4); print(read_file(`+p+`).trim(), file_info(`+p+`).size, list_dir(`+quote(root)+`).length)`); r.Err != nil || r.Stdout != "alpha 6 1\n" {
		t.Fatalf("three file calls: %q %v", r.Stdout, r.Err)
	}
	r := run(t, s, `grep("alpha", `+quote(root)+`)`)
	want := "file-tool call limit reached: 3 of 3 used; read_file, list_dir, file_info and grep count"
	if !errors.Is(r.Err, fault.Limit) || !strings.Contains(r.Err.Error(), want) {
		t.Errorf("the fourth file call: %v, want a limit error containing %q", r.Err, want)
	}
}

// TestReplayRecomputesContextTools: the journal keeps a summary of a context tool's result,
// never its text, and a rebuilt worker recomputes it.
func TestReplayRecomputesContextTools(t *testing.T) {
	log := logLines(5_000)
	o := apiOptions(t, "js", log)
	s := open(t, o)
	if r := run(t, s, `const all = text(context); const first = peek(context, 0, 16000)`); r.Err != nil {
		t.Fatal(r.Err)
	}
	if n := len(s.journal.entries[0].calls); n > 1000 {
		t.Errorf("the journal keeps %d bytes of a cell that read the context", n)
	}
	s.w.kill()
	<-s.w.exited
	r := run(t, s, `print(all.length, first.length, all.startsWith(first))`)
	if want := fmt.Sprintf("%d 16000 true\n", len(log)); r.Stdout != want || !r.Rebuilt {
		t.Errorf("after a rebuild: %q (rebuilt %v, err %v, lost %v), want %q", r.Stdout, r.Rebuilt, r.Err, r.Lost, want)
	}
}

// TestSearchPrintedForm: printing a page that does not hold every match says so.
func TestSearchPrintedForm(t *testing.T) {
	log := logLines(3_500) // 500 ERROR lines
	note := " (200 of 500 matches shown, numbers 0 to 199; search(ctx, regex, 200) reads the next page)\n"
	for lang, src := range map[string]string{"go": `print(search(context, "ERROR"))`, "js": `print(search(context, "ERROR"))`} {
		r := run(t, open(t, apiOptions(t, lang, log)), src)
		if r.Err != nil || !strings.HasSuffix(r.Stdout, note) {
			t.Errorf("%s: %q…%q, err %v; want it to end with %q", lang, r.Stdout[:min(80, len(r.Stdout))], r.Stdout[max(0, len(r.Stdout)-120):], r.Err, note)
		}
	}
	r := run(t, open(t, apiOptions(t, "js", log)), `print(search(context, "request 1 "))`)
	if strings.Contains(r.Stdout, "shown") {
		t.Errorf("a page holding every match has no note: %q", r.Stdout)
	}
}

// TestJSLocalsNamedLikeHostGlobals: a declaration shadows a denied global name, across cells
// too; a free use is still rejected. Before, `const frames = new Map()` was rejected with
// "global-object: use of frames".
func TestJSLocalsNamedLikeHostGlobals(t *testing.T) {
	runCases(t, []cellCase{
		{"declare", "js", `const frames = new Map(); frames.set("a", 1); const { module, exports } = { module: 2, exports: 3 }`, "", ""},
		{"a later cell", "js", `frames.set("b", 2); print(frames.size, module + exports)`, "2 5\n", ""},
		{"free", "js", `print(self)`, "", "global-object: use of self, which this cell does not declare (free, it is the host's global object"},
		{"top-level var", "js", `var global = 1`, "", "a top-level var named global is the global object's property"},
	})
}
