package rlm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/fault"
)

// loadTools loads a configuration whose user file is toml (no project file) and returns its
// [tools.NAME] as rlm.Tools, as rlm run, rlm repl and rlm mcp get them.
func loadTools(t *testing.T, toml string) (*config.Config, []rlm.Tool) {
	t.Helper()
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(user, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{UserFile: user, ProjectFile: filepath.Join(dir, "none.toml"),
		TrustStore: filepath.Join(dir, "trusted.json"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := rlm.CommandTools(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, tools
}

const cellTools = `
[tools.head_lines]
description = "the first n lines of a file"
exec = ["head", "-n", "{n}", "--", "{path}"]
params = { path = "path", n = "int" }
max_calls = 4

[tools.echo_word]
description = "the word, echoed"
exec = ["echo", "{word}"]
params = { word = "string" }

[tools.environment]
description = "the command's environment"
exec = ["env"]
env = ["RLM_TEST_NAMED"]

[tools.fails]
description = "always fails"
exec = ["sh", "-c", "echo 'no such page' >&2; exit 3"]

[tools.slow]
description = "never answers in time"
exec = ["sleep", "30"]
timeout = "300ms"

[tools.endless]
description = "endless output"
exec = ["yes"]
max_output = 1000
`

// TestCommandToolsInCells: rlm.toml's tools called from model-style cells in each language: a
// path inside the roots reaches the command resolved, one outside is refused before it runs; an
// argument that would pass for an option is refused; the command sees no API key but the
// variables its table names; a non-zero exit is a code error with the command's stderr; the
// timeout kills it; endless output is cut with a note; the calls cap holds.
func TestCommandToolsInCells(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-0123456789")
	t.Setenv("RLM_TEST_NAMED", "yes")
	root := t.TempDir()
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte("first line\nsecond\nthird\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := strconv.Quote
	cells := map[string][]toolCell{
		"go": {
			{code: "out := head_lines(2, " + q(notes) + ")\nn := 0\nfor _, r := range out {\n\tif r == '\\n' {\n\t\tn++\n\t}\n}\nfmt.Println(n, strings.ToUpper(strings.Fields(out)[0]))", output: "added import \"strings\"\n2 FIRST\n"},
			{code: "fmt.Println(head_lines(1, " + q(outside) + "))", kind: fault.Denied, msg: "outside the allowed roots"},
			{code: `fmt.Println(echo_word("-rf"))`, kind: fault.Code, msg: "starts with '-'"},
			{code: `env := environment()
fmt.Println(strings.Contains(env, "sk-test-secret"), strings.Contains(env, "OPENAI_API_KEY"), strings.Contains(env, "RLM_TEST_NAMED=yes"))`, output: "false false true\n"},
			{code: `fmt.Println(fails())`, kind: fault.Code, msg: "fails: sh failed (exit status 3): no such page; check the arguments"},
			{code: `slow()`, kind: fault.Timeout, msg: "did not answer within 300ms"},
			{code: `s := endless()
fmt.Println(utf8.RuneCountInString(s) <= 1000, strings.HasSuffix(s, "output cut at 1,000 characters; the command wrote more and was stopped; ask for less]"))`, output: "added import \"unicode/utf8\"\ntrue true\n"},
			{code: "for i := 0; i < 4; i++ {\n\thead_lines(1, " + q(notes) + ")\n}", kind: fault.Limit, msg: "head_lines: cap reached: 4 calls per run"},
		},
		"js": {
			{code: "const out = head_lines(2, `" + notes + "`);\nconst n = [...out].filter(c => c === \"\\n\").length;\nprint(n, out.split(/\\s+/)[0]?.toUpperCase());", output: "2 FIRST\n"},
			{code: "print(head_lines(1, " + q(outside) + "))", kind: fault.Denied, msg: "outside the allowed roots"},
			{code: `print(echo_word("-rf"))`, kind: fault.Code, msg: "starts with '-'"},
			{code: "const env = environment();\nprint(env.includes(\"sk-test-secret\"), env.includes(\"OPENAI_API_KEY\"), env.includes(\"RLM_TEST_NAMED=yes\"))", output: "false false true\n"},
			{code: "try { fails() } catch (e) { print(e.message) }", output: "fails: sh failed (exit status 3): no such page; check the arguments of the call (the command's message says what it could not do)\n"},
			{code: `slow()`, kind: fault.Timeout, msg: "did not answer within 300ms"},
			{code: "const s = endless();\nprint([...s].length <= 1000, s.endsWith(\"ask for less]\"))", output: "true true\n"},
			{code: "for (let i = 0; i < 4; i++) head_lines(1, " + q(notes) + ")", kind: fault.Limit, msg: "head_lines: cap reached: 4 calls per run"},
		},
	}
	_, tools := loadTools(t, cellTools)
	for lang, cs := range cells {
		t.Run(lang, func(t *testing.T) {
			runToolCells(t, rlm.SessionOptions{Lang: lang, Roots: []string{root}, Tools: tools}, cs)
		})
	}
}

// counterTools is a tool whose command appends a line to count each time it runs.
func counterTools(t *testing.T, count string) []rlm.Tool {
	_, tools := loadTools(t, `[tools.counter]
description = "the number seven, counted"
exec = ["sh", "-c", "echo call >> `+count+`; echo 7"]
`)
	return tools
}

// TestCommandToolCallsAreJournaled: a worker that dies after a cell called a command tool is
// replaced and the session's cells replayed with the journaled result: the command does not
// run again (its count file has one line). Go: the worker dies out of memory; JS: it is killed.
func TestCommandToolCallsAreJournaled(t *testing.T) {
	for _, c := range []struct{ lang, first, after string }{
		{"go", `n := strings.TrimSpace(counter())`, `fmt.Println(n + "!")`},
		{"js", `const n = counter().trim();`, `print(n + "!")`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "count")
			ctx := context.Background()
			s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: c.lang, Home: t.TempDir(), Tools: counterTools(t, count), WorkerMemory: 256 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := s.Exec(ctx, c.first); r.Error != nil {
				t.Fatal(r.Error)
			}
			rebuilt := false
			if c.lang == "go" {
				crash := s.Exec(ctx, "var a [][]int\nfor i := 0; i < 100000; i++ {\n\ta = append(a, make([]int, 1<<20))\n\ta[i][0] = i\n}")
				if crash.Error == nil || crash.Error.Kind != fault.Crashed {
					t.Fatalf("the crash: %+v", crash.Error)
				}
				rebuilt = crash.Rebuilt
			} else {
				killWorkers(t)
			}
			r := s.Exec(ctx, c.after)
			if r.Error != nil && r.Error.Kind == fault.Crashed {
				rebuilt = rebuilt || r.Rebuilt
				r = s.Exec(ctx, c.after) // the kill was noticed by this cell: the next one runs on the new worker
			}
			if r.Error != nil || r.Output != "7!\n" || !(rebuilt || r.Rebuilt) {
				t.Fatalf("after the worker's death: %q %+v rebuilt %v", r.Output, r.Error, rebuilt || r.Rebuilt)
			}
			if b, err := os.ReadFile(count); err != nil || string(b) != "call\n" {
				t.Errorf("the command ran %d times (%v); the replay must serve the journaled result", strings.Count(string(b), "call"), err)
			}
		})
	}
}

// killWorkers kills this process's children with SIGKILL: between cells, with no command tool
// running and no other test's session open, the session's worker (and its launcher).
func killWorkers(t *testing.T) {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	killed := 0
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	if killed == 0 {
		t.Skip("no worker process found among this process's children (no /proc?)")
	}
}

// TestCommandToolNames: a [tools.NAME] whose name clashes with the API or a keyword is refused
// by CommandTools, and so by Configure, with the file and table named.
func TestCommandToolNames(t *testing.T) {
	for name, want := range map[string]string{"read_file": "clashes with rlm's API function read_file", "func": "a Go keyword", "JSON": "a JavaScript global"} {
		dir := t.TempDir()
		user := filepath.Join(dir, "config.toml")
		os.WriteFile(user, []byte("[tools."+name+"]\ndescription = \"d\"\nexec = [\"cat\"]\n"), 0o600)
		c, err := config.Load(config.Options{UserFile: user, ProjectFile: filepath.Join(dir, "none.toml"), TrustStore: filepath.Join(dir, "t.json"), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		_, err = rlm.CommandTools(c)
		var o rlm.Options
		cerr := o.Configure(c)
		for _, e := range []error{err, cerr} {
			if !errors.Is(e, fault.Schema) || !strings.Contains(e.Error(), user+": [tools."+name+"]") || !strings.Contains(e.Error(), want) {
				t.Errorf("%s: %v; want the file, the table and %q", name, e, want)
			}
		}
		if len(o.Tools) != 0 {
			t.Errorf("%s: Configure kept %d tools", name, len(o.Tools))
		}
	}
}

// TestCommandToolsInARun: Configure adds rlm.toml's tools to a run; a script in each language
// calls one; the call is in the audit trail; the system prompt's line names it with its
// parameters in the order of their first use in exec (n, then path), its description and caps.
func TestCommandToolsInARun(t *testing.T) {
	root := t.TempDir()
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := loadTools(t, cellTools)
	for _, sc := range []struct{ name, src string }{
		{"s.go", "FINAL(strings.TrimSpace(head_lines(1, " + strconv.Quote(notes) + ")))"},
		{"s.js", "FINAL(head_lines(1, `" + notes + "`).trim())"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			home := t.TempDir()
			o := rlm.Options{Script: rlm.Script{Name: sc.name, Source: sc.src}, Home: home, Roots: []string{root}}
			if err := o.Configure(c); err != nil {
				t.Fatal(err)
			}
			res, err := rlm.Ask(context.Background(), o)
			if err != nil || res.Answer != "alpha" {
				t.Fatalf("answer %q, err %v", res.Answer, err)
			}
			tcs, err := openAudit(t, home).ToolCalls(context.Background(), res.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tc := range tcs {
				found = found || tc.Name == "head_lines" && strings.Contains(tc.Result, "alpha")
			}
			if !found {
				t.Errorf("the audit trail's tool calls %+v; want head_lines'", tcs)
			}
		})
	}
	var o rlm.Options
	if err := o.Configure(c); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{
		"go": "head_lines(n int, path string) string — the first n lines of a file; path inside the allowed roots; at most 4 calls per run, 50,000 characters per result, 30s per call",
		"js": "head_lines(n, path) — the first n lines of a file; path inside the allowed roots; at most 4 calls per run, 50,000 characters per result, 30s per call",
	} {
		lines, err := rlm.APILines(lang, o.Limits, o.Tools)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("%s prompt lines lack %q:\n%s", lang, want, strings.Join(lines, "\n"))
		}
	}
}
